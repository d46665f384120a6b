package browser

import (
	"math"
	"strings"

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

// unionBox is the box around all of an element's content quads (every line
// box of an inline element, as getBoundingClientRect gives it) in main-frame
// viewport coordinates; nil when the element has no layout.
func (p *Page) unionBox(o *op, h handle) (*Box, error) {
	q, err := proto.DOMGetContentQuads{ObjectID: h.obj}.Call(o.rodPage())
	if err != nil {
		if strings.Contains(err.Error(), "Could not compute content quads") {
			return nil, nil
		}
		return nil, p.jsErr(err)
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, quad := range q.Quads {
		for i := 0; i+1 < len(quad); i += 2 {
			minX, maxX = math.Min(minX, quad[i]), math.Max(maxX, quad[i])
			minY, maxY = math.Min(minY, quad[i+1]), math.Max(maxY, quad[i+1])
		}
	}
	if math.IsInf(minX, 1) {
		return nil, nil
	}
	return &Box{X: minX, Y: minY, Width: maxX - minX, Height: maxY - minY}, nil
}
