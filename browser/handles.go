package browser

import (
	"context"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// Element handles: the engine's (handle, an element in wright's world of its
// frame) and the client's (an object id kept in handleGroup, which a script
// holds as an ElementHandle and a selector names as handle=ID).

// handle is an element in a known context.
type handle struct {
	ec  *execCtx
	obj proto.RuntimeRemoteObjectID
}

// handleGroup holds the objects a client keeps handles on: they outlive the
// op that made them and go when the client disposes of them or the page
// navigates away.
const handleGroup = "wright-handles"

// engineHandle turns an element object from elsewhere (the aria registry, a
// handle a script made in the page's world) into the same element in
// wright's world of its frame, where the engine can take it.
func (p *Page) engineHandle(o *op, obj proto.RuntimeRemoteObjectID) (handle, error) {
	el, err := proto.DOMDescribeNode{ObjectID: obj}.Call(o.rodPage())
	if err != nil {
		return handle{}, p.jsErr(err)
	}
	doc, err := proto.RuntimeCallFunctionOn{
		ObjectID: obj, FunctionDeclaration: "function () { return this.ownerDocument || this; }", ObjectGroup: o.objectGroup(),
	}.Call(o.rodPage())
	if err != nil {
		return handle{}, p.jsErr(err)
	}
	node, err := proto.DOMDescribeNode{ObjectID: doc.Result.ObjectID}.Call(o.rodPage())
	if err != nil {
		return handle{}, p.jsErr(err)
	}
	ec, err := p.docCtx(o, node.Node.BackendNodeID, "")
	if err != nil {
		return handle{}, err
	}
	res, err := proto.DOMResolveNode{BackendNodeID: el.Node.BackendNodeID, ExecutionContextID: ec.id, ObjectGroup: o.objectGroup()}.Call(o.rodPage())
	if err != nil {
		return handle{}, p.jsErr(err)
	}
	return handle{ec: ec, obj: res.Object.ObjectID}, nil
}

// pageObject returns the element of h as an object of the page's main
// world, where code written by users runs: engine handles must not be
// passed to user code as they are.
func (p *Page) pageObject(o *op, h handle) (proto.RuntimeRemoteObjectID, error) {
	n, err := proto.DOMDescribeNode{ObjectID: h.obj}.Call(o.rodPage())
	if err != nil {
		return "", p.jsErr(err)
	}
	res, err := proto.DOMResolveNode{BackendNodeID: n.Node.BackendNodeID, ObjectGroup: o.objectGroup()}.Call(o.rodPage())
	if err != nil {
		return "", p.jsErr(err)
	}
	return res.Object.ObjectID, nil
}

// nodeID returns the backend node id of an element (for scoping snapshots).
func (p *Page) nodeID(o *op, h handle) (proto.DOMBackendNodeID, error) {
	n, err := proto.DOMDescribeNode{ObjectID: h.obj}.Call(o.rodPage())
	if err != nil {
		return 0, p.jsErr(err)
	}
	return n.Node.BackendNodeID, nil
}

// connected reports whether the element is still in its document (true
// when that cannot be told).
func (p *Page) connected(o *op, h handle) bool {
	res, err := proto.RuntimeCallFunctionOn{ObjectID: h.obj, FunctionDeclaration: "function () { return this.isConnected; }", ReturnByValue: true}.Call(o.rodPage())
	if err != nil || res.ExceptionDetails != nil || res.Result == nil {
		return true
	}
	return res.Result.Value.Bool()
}

// Dispose releases a handle; an unknown or already released one is fine.
func (p *Page) Dispose(ctx context.Context, h string) error {
	o := p.begin(ctx, 5*time.Second)
	defer o.end()
	if w := p.workerOfObject(h); w != nil {
		w.release(o.ctx, h)
		return nil
	}
	_ = proto.RuntimeReleaseObject{ObjectID: proto.RuntimeRemoteObjectID(h)}.Call(o.rodPage())
	return nil
}

// ElementHandles resolves the locator now (no waiting) and keeps a handle
// on every match.
func (l *Locator) ElementHandles(ctx context.Context, timeout time.Duration) ([]string, error) {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	hs, err := l.resolveNow(o)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(hs))
	for _, h := range hs {
		// Re-resolved through its node, the handle lives in its own frame's
		// main world, whichever context the engine reached it from.
		node, err := proto.DOMDescribeNode{ObjectID: h.obj}.Call(o.rodPage())
		if err != nil {
			return nil, o.fail(l.p.jsErr(err), "")
		}
		kept, err := proto.DOMResolveNode{BackendNodeID: node.Node.BackendNodeID, ObjectGroup: handleGroup}.Call(o.rodPage())
		if err != nil {
			return nil, o.fail(l.p.jsErr(err), "")
		}
		out = append(out, string(kept.Object.ObjectID))
	}
	return out, nil
}

// resolveHandle turns a handle= selector part into an element.
func (p *Page) resolveHandle(o *op, id string) (handle, error) {
	obj := proto.RuntimeRemoteObjectID(id)
	h, err := p.engineHandle(o, obj)
	if err != nil {
		if strings.Contains(err.Error(), "Could not find object") {
			return handle{}, newErr(ErrTargetClosed, "element handle is disposed or its page navigated away")
		}
		return handle{}, err
	}
	return h, nil
}
