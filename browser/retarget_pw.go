package browser

import (
	"github.com/go-rod/rod/lib/proto"
)

// elementOf is the element an action on h acts on: h itself, or the parent
// element of a text node (an element handle can hold one: evaluate_handle of
// a node's firstChild), as Playwright retargets it. h is returned unchanged
// when it is not a text node or the question cannot be answered.
func (p *Page) elementOf(o *op, h handle) handle {
	res, err := proto.RuntimeCallFunctionOn{ObjectID: h.obj, ObjectGroup: o.objectGroup(),
		FunctionDeclaration: "function () { return this.nodeType === Node.TEXT_NODE && this.parentElement ? this.parentElement : this; }",
	}.Call(o.rodPage())
	if err != nil || res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
		return h
	}
	return handle{ec: h.ec, obj: res.Result.ObjectID}
}
