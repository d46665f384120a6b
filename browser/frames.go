package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod"
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

// observeFrames turns a page's frame tree changes into client events
// (page.frameattached, page.framedetached), so that Playwright's frame and
// context events can be delivered. A frame that is swapped for an
// out-of-process one is not reported as detached: it goes on.
func (p *Page) observeFrames(msg *rod.Message) {
	switch msg.Method {
	case "Page.frameAttached":
		var e proto.PageFrameAttached
		if msg.Load(&e) {
			p.emit(&FrameAttachedEvent{Frame: string(e.FrameID), Parent: string(e.ParentFrameID),
				ParentMain: e.ParentFrameID == p.mainFrame()})
		}
	case "Page.frameDetached":
		var e proto.PageFrameDetached
		if msg.Load(&e) && e.Reason != proto.PageFrameDetachedReasonSwap {
			p.emit(&FrameDetachedEvent{Frame: string(e.FrameID)})
		}
	}
}

// Frame is one frame of a page: the main frame, or a child frame that an
// <iframe> or <frame> element shows. It is named by CDP's frame id, as
// page.frameattached gives it, and holds nothing else: a Frame of a frame
// that has been detached fails what is asked of it, and two Frames of one
// id are the same frame. Goto is in navigation.go.
type Frame struct {
	p  *Page
	id proto.PageFrameID
}

// MainFrame is the page's top frame, whose document the page shows.
func (p *Page) MainFrame() *Frame { return &Frame{p: p, id: p.mainFrame()} }

// Frame is the frame of the page with the given CDP frame id (as
// page.frameattached and FrameTree name it).
func (p *Page) Frame(id string) *Frame { return &Frame{p: p, id: proto.PageFrameID(id)} }

// Page is the page the frame is in.
func (f *Frame) Page() *Page { return f.p }

// ID is the frame's CDP frame id.
func (f *Frame) ID() string { return string(f.id) }

// Owner keeps a handle on the <iframe> or <frame> element that holds the
// frame.
func (f *Frame) Owner(ctx context.Context) (string, error) {
	o := f.p.begin(ctx, 10*time.Second)
	defer o.end()
	owner, err := proto.DOMGetFrameOwner{FrameID: f.id}.Call(o.rodPage())
	if err != nil {
		return "", newErr(ErrTargetClosed, "frame %s has no owner element (it was detached): %s", f.id, cdpMessage(err))
	}
	kept, err := proto.DOMResolveNode{BackendNodeID: owner.BackendNodeID, ObjectGroup: handleGroup}.Call(o.rodPage())
	if err != nil {
		return "", newErr(ErrTargetClosed, "frame %s: its owner element is gone: %s", f.id, cdpMessage(err))
	}
	return string(kept.Object.ObjectID), nil
}

// FrameInfo is one frame of a page's frame tree, as CDP names it: the
// client keeps one Frame object per ID (Playwright's frames keep their
// identity while they live).
type FrameInfo struct {
	ID     string `json:"frame"`
	Parent string `json:"parent"` // "" for the main frame
	Name   string `json:"name"`
	URL    string `json:"url"`
}

// FrameTree lists the page's live frames, parents before their children: the
// main frame's tree. A frame missing from it has been detached.
func (p *Page) FrameTree(ctx context.Context) ([]FrameInfo, error) {
	return p.MainFrame().Tree(ctx)
}

// Tree lists the frame and the live frames below it, parents before their
// children; nothing when the frame has been detached.
func (f *Frame) Tree(ctx context.Context) ([]FrameInfo, error) {
	p := f.p
	if err := p.closedErr(); err != nil {
		return nil, err
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	tree, err := proto.PageGetFrameTree{}.Call(o.rodPage())
	if err != nil {
		return nil, o.fail(p.jsErr(err), "waiting for the page's frame tree")
	}
	var out []FrameInfo
	var walk func(t *proto.PageFrameTree, in bool)
	walk = func(t *proto.PageFrameTree, in bool) {
		in = in || t.Frame.ID == f.id
		if in {
			url := t.Frame.URL + t.Frame.URLFragment // an error page's is chrome-error://chromewebdata/
			out = append(out, FrameInfo{ID: string(t.Frame.ID), Parent: string(t.Frame.ParentID), Name: t.Frame.Name, URL: url})
		}
		for _, c := range t.ChildFrames {
			walk(c, in)
		}
	}
	// The main frame's tree is the whole tree, whatever id its root has.
	walk(tree.FrameTree, f.id == p.mainFrame())
	return out, nil
}

// NodeFrames names the frames of the node a handle holds: owner is the frame
// whose document holds it, content the frame an <iframe> or <frame> element
// shows (nil for other nodes, or a frame element without a document).
func (p *Page) NodeFrames(ctx context.Context, obj string) (owner, content *Frame, err error) {
	ownerID, contentID, err := p.nodeFrames(ctx, obj)
	if err != nil {
		return nil, nil, err
	}
	if ownerID != "" {
		owner = p.Frame(ownerID)
	}
	if contentID != "" {
		content = p.Frame(contentID)
	}
	return owner, content, nil
}

func (p *Page) nodeFrames(ctx context.Context, obj string) (owner, content string, err error) {
	if err := p.closedErr(); err != nil {
		return "", "", err
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	node, err := proto.DOMDescribeNode{ObjectID: proto.RuntimeRemoteObjectID(obj)}.Call(o.rodPage())
	if err != nil {
		return "", "", o.fail(p.jsErr(err), "")
	}
	if name := node.Node.NodeName; name == "IFRAME" || name == "FRAME" {
		content = string(node.Node.FrameID)
	}
	// CDP names the frame of a document's root element: reach it from the node.
	root, err := proto.RuntimeCallFunctionOn{
		ObjectID:            proto.RuntimeRemoteObjectID(obj),
		FunctionDeclaration: "function () { const d = this.nodeType === 9 ? this : this.ownerDocument; return d && d.documentElement; }",
		ObjectGroup:         o.objectGroup(),
	}.Call(o.rodPage())
	if err != nil {
		return "", "", o.fail(p.jsErr(err), "")
	}
	if root.Result.ObjectID == "" {
		return "", content, nil
	}
	rn, err := proto.DOMDescribeNode{ObjectID: root.Result.ObjectID}.Call(o.rodPage())
	if err != nil {
		return "", "", o.fail(p.jsErr(err), "")
	}
	return string(rn.Node.FrameID), content, nil
}
