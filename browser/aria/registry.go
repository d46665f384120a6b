package aria

import (
	"context"
	"fmt"
	"strconv"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// refKey names an element: its backend node id, which is unique within
// the renderer of the session it came from, and its frame.
type refKey struct {
	target  proto.TargetTargetID // "" for the page's own session
	frame   proto.PageFrameID
	backend proto.DOMBackendNodeID
	world   proto.RuntimeExecutionContextID // in-page builds: the builder's world
	tag     int                             // in-page builds: the element's tag there
}

// refEntry is what a ref was given to, and the page state it belongs to.
type refEntry struct {
	key         refKey
	mainLoader  proto.NetworkLoaderID // the main frame's document at snapshot time
	frameLoader proto.NetworkLoaderID // the element's frame's document
	role, name  string
}

// defaultMaxRefs bounds the registry of a long-lived page. Refs are
// dropped oldest first; a dropped ref resolves to a StaleRefError
// ("expired").
const defaultMaxRefs = 100000

// issue is the set of refs one snapshot hands out. Numbers are chosen
// while rendering and kept only for the lines that made it into the
// output (the character budget may cut the rest), so the registry never
// holds a ref nobody saw. The caller holds reg.mu throughout.
type issue struct {
	reg        *Registry
	mainLoader proto.NetworkLoaderID
	next       int
	number     map[*node]int
	fresh      map[*node]bool
}

func (r *Registry) begin(mainLoader proto.NetworkLoaderID) *issue {
	if r.refs == nil {
		r.refs = map[int]*refEntry{}
		r.byKey = map[refKey]int{}
		r.oldest = 1
	}
	return &issue{reg: r, mainLoader: mainLoader, next: r.last, number: map[*node]int{}, fresh: map[*node]bool{}}
}

func (is *issue) refFor(n *node) string {
	if num, ok := is.number[n]; ok {
		return "e" + strconv.Itoa(num)
	}
	// The same element, in the same documents, with the same role and
	// name keeps the ref it had: the model's earlier refs stay good.
	if num, ok := is.reg.byKey[n.key]; ok {
		if e := is.reg.refs[num]; e != nil && e.mainLoader == is.mainLoader && e.frameLoader == n.loader && e.role == n.role && e.name == n.name {
			is.number[n] = num
			return "e" + strconv.Itoa(num)
		}
	}
	is.next++
	is.number[n] = is.next
	is.fresh[n] = true
	return "e" + strconv.Itoa(is.next)
}

func (is *issue) commit(shown []*node) {
	r := is.reg
	for _, n := range shown {
		num := is.number[n]
		if !is.fresh[n] {
			continue
		}
		r.refs[num] = &refEntry{key: n.key, mainLoader: is.mainLoader, frameLoader: n.loader, role: n.role, name: n.name}
		r.byKey[n.key] = num
		if num > r.last {
			r.last = num
		}
	}
	limit := r.limit
	if limit <= 0 {
		limit = defaultMaxRefs
	}
	for len(r.refs) > limit && r.oldest <= r.last {
		if e, ok := r.refs[r.oldest]; ok {
			if r.byKey[e.key] == r.oldest {
				delete(r.byKey, e.key)
			}
			delete(r.refs, r.oldest)
		}
		r.oldest++
	}
}

// parseRef reads "eN" (N a positive decimal without leading zeros).
func parseRef(ref string) (int, bool) {
	if len(ref) < 2 || ref[0] != 'e' || ref[1] == '0' {
		return 0, false
	}
	n, err := strconv.Atoi(ref[1:])
	if err != nil || n <= 0 || "e"+strconv.Itoa(n) != ref {
		return 0, false
	}
	return n, true
}

func (r *Registry) resolve(ctx context.Context, page *rod.Page, ref string) (*rod.Element, error) {
	stale := func(reason string) error { return &StaleRefError{Ref: ref, Reason: reason} }
	num, ok := parseRef(ref)
	r.mu.Lock()
	var e *refEntry
	if ok {
		e = r.refs[num]
	}
	last := r.last
	r.mu.Unlock()
	if e == nil {
		if ok && num <= last {
			return nil, stale("expired")
		}
		return nil, stale("unknown ref")
	}

	p := page.Context(ctx)
	tree, err := proto.PageGetFrameTree{}.Call(p)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: read frame tree: %w", ref, err)
	}
	if tree.FrameTree.Frame.LoaderID != e.mainLoader {
		return nil, stale("page navigated")
	}
	if e.key.tag != 0 {
		return resolveTag(ctx, page, ref, e.key)
	}

	sess, owner := p, page // the session holding the element, and its page without ctx
	frameLoader, frameFound := proto.NetworkLoaderID(""), false
	if e.key.target != "" {
		fp, err := framePage(page, e.key.target)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// The iframe's target is gone: so is its document.
			return nil, stale("element removed")
		}
		owner, sess = fp, fp.Context(ctx)
		ft, err := proto.PageGetFrameTree{}.Call(sess)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, stale("element removed")
		}
		frameLoader, frameFound = ft.FrameTree.Frame.LoaderID, ft.FrameTree.Frame.ID == e.key.frame
	} else {
		var find func(t *proto.PageFrameTree)
		find = func(t *proto.PageFrameTree) {
			if t.Frame.ID == e.key.frame {
				frameLoader, frameFound = t.Frame.LoaderID, true
				return
			}
			for _, c := range t.ChildFrames {
				find(c)
			}
		}
		find(tree.FrameTree)
	}
	if !frameFound {
		return nil, stale("element removed")
	}
	if frameLoader != e.frameLoader {
		return nil, stale("frame navigated")
	}

	el, err := connectedElement(ctx, sess, ref, e.key.backend)
	if err != nil {
		return nil, err
	}
	return el.Context(owner.GetContext()), nil
}

// connectedElement is the element of the backend node in sess, with a
// StaleRefError for ref when the node is gone or no longer in the document.
func connectedElement(ctx context.Context, sess *rod.Page, ref string, backend proto.DOMBackendNodeID) (*rod.Element, error) {
	el, err := sess.ElementFromNode(&proto.DOMNode{BackendNodeID: backend})
	if err != nil {
		return nil, nodeError(ctx, ref, err)
	}
	// A removed element that script still holds is alive but detached.
	res, err := proto.RuntimeCallFunctionOn{
		ObjectID:            el.Object.ObjectID,
		FunctionDeclaration: `function() { return this.isConnected; }`,
		ReturnByValue:       true,
	}.Call(sess)
	if err != nil {
		return nil, nodeError(ctx, ref, err)
	}
	if !res.Result.Value.Bool() {
		return nil, &StaleRefError{Ref: ref, Reason: "element removed"}
	}
	return el, nil
}

// nodeError is the error of resolving ref when a call on its node failed
// with err: the context's error when it ended, a StaleRefError when the
// node is gone.
func nodeError(ctx context.Context, ref string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if isNodeGone(err) {
		return &StaleRefError{Ref: ref, Reason: "element removed"}
	}
	return fmt.Errorf("resolve %s: %w", ref, err)
}
