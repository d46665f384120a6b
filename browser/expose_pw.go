package browser

import (
	"github.com/go-rod/rod/lib/proto"
)

// evalInChildFrames runs script in the main world of every frame below
// the main one that this page's session holds (exposed functions reach
// frames that were there before the function was exposed). A frame that
// goes away meanwhile is skipped: its next document runs the script from
// the page's new-document scripts.
func (p *Page) evalInChildFrames(o *op, script string) {
	tree, err := proto.PageGetFrameTree{}.Call(o.rodPage())
	if err != nil {
		return
	}
	var frames []proto.PageFrameID
	var walk func(t *proto.PageFrameTree)
	walk = func(t *proto.PageFrameTree) {
		for _, c := range t.ChildFrames {
			frames = append(frames, c.Frame.ID)
			walk(c)
		}
	}
	walk(tree.FrameTree)
	for _, f := range frames {
		ec, err := p.isolatedCtx(o, f)
		if err != nil {
			continue
		}
		doc, err := proto.RuntimeEvaluate{Expression: "document", ContextID: ec.id, ObjectGroup: o.objectGroup()}.Call(o.rodPage())
		if err != nil || doc.Result.ObjectID == "" {
			continue
		}
		mainDoc, err := p.pageObject(o, handle{ec: ec, obj: doc.Result.ObjectID})
		if err != nil {
			continue
		}
		_, _ = proto.RuntimeCallFunctionOn{ObjectID: mainDoc, FunctionDeclaration: "function () {\n" + script + ";\n}"}.Call(o.rodPage())
	}
}
