package aria

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

// The in-page builder (snapshot.js, on the role engine role_engine.js: together
// PageScript) runs in wright's isolated world of the main frame, the one
// the selector engine uses: page scripts share the DOM with it, not its
// JavaScript. One call
// builds the tree (same-process frames and shadow roots included), cut at
// the budget in the page, so a snapshot costs one round trip and what the
// lines it shows cost. What it cannot reach (a frame in another renderer,
// a scope inside a frame) is built from Chromium's accessibility tree.

//go:embed snapshot.js
var snapshotJS string

// ariaWorld names the object group of the builder's temporary objects.
const ariaWorld = "wright-aria"

// errNeedProtocol says the in-page builder cannot build this snapshot.
var errNeedProtocol = errors.New("the in-page builder cannot reach this content")

// maxSuspects bounds the elements looked at for a closed shadow root per
// snapshot (a round trip each, once per element).
const maxSuspects = 64

// pageState is the in-page builder's state for one page: its world, the
// main document it was made in, and the last snapshot with the page's
// mutation token, reused while the page has not changed.
type pageState struct {
	mu     sync.Mutex
	world  proto.RuntimeExecutionContextID
	loader proto.NetworkLoaderID
	cache  *cachedBuild
}

// bare holds the builder's state of pages snapshotted without a registry
// (no refs), by target and session, so that those too keep their world
// and reuse; bounded, since nothing says when such a page closes.
var bare = struct {
	sync.Mutex
	pages map[string]*pageState
}{pages: map[string]*pageState{}}

const maxBarePages = 64

func bareState(page *rod.Page) *pageState {
	key := string(page.TargetID) + "/" + string(page.SessionID)
	bare.Lock()
	defer bare.Unlock()
	st := bare.pages[key]
	if st == nil {
		if len(bare.pages) >= maxBarePages {
			clear(bare.pages)
		}
		st = &pageState{}
		bare.pages[key] = st
	}
	return st
}

type cachedBuild struct {
	refs         bool // built for a snapshot with refs (the budget counts them)
	opts         Options
	world        proto.RuntimeExecutionContextID
	token, print string
	built        *built
}

// jsResult is what snapshot.js returns.
type jsResult struct {
	Same        int     `json:"same"`
	Root        *jsNode `json:"root"`
	More        int     `json:"more"`
	Token       string  `json:"token"`
	Print       string  `json:"print"`
	Unreachable int     `json:"unreachable"`
	Suspects    []int   `json:"suspects"`
}

// jsNode is a node as snapshot.js writes it (see there for the keys).
type jsNode struct {
	R string   `json:"r"`
	N string   `json:"n"`
	K []jsItem `json:"k"`
	A int      `json:"a"`
	C string   `json:"c"`
	P string   `json:"p"`
	D int      `json:"d"`
	X int      `json:"x"`
	S int      `json:"s"`
	I string   `json:"i"`
	L int      `json:"l"`
	U *string  `json:"u"`
	H *string  `json:"h"`
	T int      `json:"t"`
	F int      `json:"f"` // an iframe whose cross-origin document is built apart
}

// jsItem is a child: a JSON string (text) or a node.
type jsItem struct {
	text string
	n    *jsNode
}

func (it *jsItem) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &it.text)
	}
	it.n = &jsNode{}
	return json.Unmarshal(b, it.n)
}

// buildInPage builds the tree in the page, or says errNeedProtocol.
func buildInPage(ctx context.Context, page *rod.Page, reg *Registry, opts Options) (*built, error) {
	st := bareState(page)
	if reg != nil {
		st = &reg.page
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	p := page.Context(ctx)
	for attempt := 0; ; attempt++ {
		bt, err := st.build(p, opts, reg != nil)
		if err == nil || attempt == 2 || !errors.Is(err, errWorldGone) {
			return bt, err
		}
		// The document went (a navigation): make the world again.
		st.world, st.cache = 0, nil
	}
}

var errWorldGone = errors.New("the builder's world is gone")

func (st *pageState) build(p *rod.Page, opts Options, withRefs bool) (*built, error) {
	if err := st.ensureWorld(p); err != nil {
		return nil, err
	}
	var scope *proto.RuntimeCallArgument
	if opts.Scope != 0 {
		obj, err := proto.DOMResolveNode{BackendNodeID: opts.Scope, ExecutionContextID: st.world, ObjectGroup: ariaWorld}.Call(p)
		if err != nil || obj.Object == nil {
			// Not in the main document (another frame) or not at all:
			// the protocol builder says which.
			return nil, errNeedProtocol
		}
		defer func() { _ = proto.RuntimeReleaseObjectGroup{ObjectGroup: ariaWorld}.Call(p) }()
		scope = &proto.RuntimeCallArgument{ObjectID: obj.Object.ObjectID}
	}
	cache := st.cache
	if cache != nil && (cache.opts != opts || cache.refs != withRefs || cache.world != st.world || opts.Scope != 0) {
		cache = nil
	}
	res, err := st.call(p, opts, cache, scope, withRefs)
	if err != nil {
		return nil, err
	}
	if res.Same == 1 && cache != nil {
		return cache.built, nil
	}
	if res.Unreachable == 1 {
		return nil, errNeedProtocol
	}
	if len(res.Suspects) > 0 {
		found, err := st.closedRoots(p, res.Suspects)
		if err != nil {
			return nil, err
		}
		if found {
			if res, err = st.call(p, opts, nil, scope, withRefs); err != nil {
				return nil, err
			}
		}
	}
	if res.Root == nil {
		return nil, errors.New("in-page snapshot returned no tree")
	}
	holes := 0
	bt := &built{root: st.convert(res.Root, st.world, "", &holes), mainLoader: st.loader, more: res.More}
	if holes > 0 {
		if err := st.fillFrames(p, bt.root, opts, 1); err != nil {
			return nil, err
		}
	}
	if opts.Scope == 0 && holes == 0 {
		st.cache = &cachedBuild{refs: withRefs, opts: opts, world: st.world, token: res.Token, print: res.Print, built: bt}
	}
	return bt, nil
}

// ensureWorld makes the builder's world in the main frame's document and
// installs the builder, noting the document's loader id: refs are bound
// to it. The frame tree is read again afterwards so that a navigation in
// between never binds the world to the wrong document.
func (st *pageState) ensureWorld(p *rod.Page) error {
	if st.world != 0 {
		return nil
	}
	for attempt := 0; attempt < 3; attempt++ {
		tree, err := proto.PageGetFrameTree{}.Call(p)
		if err != nil {
			return fmt.Errorf("read frame tree: %w", err)
		}
		frame := tree.FrameTree.Frame
		world, err := proto.PageCreateIsolatedWorld{FrameID: frame.ID, WorldName: World, GrantUniveralAccess: true}.Call(p)
		if err != nil {
			return fmt.Errorf("create the snapshot's world: %w", err)
		}
		res, err := proto.RuntimeEvaluate{Expression: PageScript, ContextID: world.ExecutionContextID}.Call(p)
		if err != nil {
			return fmt.Errorf("install the snapshot builder: %w", err)
		}
		if res.ExceptionDetails != nil {
			return fmt.Errorf("install the snapshot builder: %s", exceptionText(res.ExceptionDetails))
		}
		again, err := proto.PageGetFrameTree{}.Call(p)
		if err != nil {
			return fmt.Errorf("read frame tree: %w", err)
		}
		if again.FrameTree.Frame.LoaderID == frame.LoaderID {
			st.world, st.loader, st.cache = world.ExecutionContextID, frame.LoaderID, nil
			return nil
		}
	}
	return errors.New("the page kept navigating while the snapshot's world was made")
}

const snapshotCall = `function (o, scope) {
	const a = globalThis.__wrightAria;
	if (!a) return '';
	if (scope) o.scope = scope;
	return a.snapshot(o);
}`

func (st *pageState) call(p *rod.Page, opts Options, cache *cachedBuild, scope *proto.RuntimeCallArgument, refs bool) (*jsResult, error) {
	args := map[string]any{"maxChars": opts.MaxChars, "maxDepth": opts.MaxDepth, "interactiveOnly": opts.InteractiveOnly, "refs": refs}
	if cache != nil {
		args["since"], args["print"] = cache.token, cache.print
	}
	call := proto.RuntimeCallFunctionOn{
		ExecutionContextID:  st.world,
		FunctionDeclaration: snapshotCall,
		Arguments:           []*proto.RuntimeCallArgument{{Value: gson.New(args)}},
		ReturnByValue:       true,
	}
	if scope != nil {
		call.Arguments = append(call.Arguments, scope)
	}
	res, err := call.Call(p)
	if err != nil {
		if isNodeGone(err) && p.GetContext().Err() == nil {
			return nil, fmt.Errorf("%w: %v", errWorldGone, err)
		}
		return nil, err
	}
	if res.ExceptionDetails != nil {
		text := exceptionText(res.ExceptionDetails)
		if strings.Contains(text, "destroyed") {
			return nil, fmt.Errorf("%w: %s", errWorldGone, text)
		}
		return nil, fmt.Errorf("in-page snapshot: %s", text)
	}
	raw := res.Result.Value.Str()
	if raw == "" {
		// The world is there but not our builder: a new document reused it.
		return nil, fmt.Errorf("%w: builder missing", errWorldGone)
	}
	var out jsResult
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, fmt.Errorf("decode in-page snapshot: %w", err)
	}
	return &out, nil
}

// closedRoots looks into the elements the builder suspects of hosting a
// closed shadow root (which page-side script cannot open) and hands the
// roots it finds to the builder. It says whether it found any.
func (st *pageState) closedRoots(p *rod.Page, tags []int) (bool, error) {
	if len(tags) > maxSuspects {
		tags = tags[:maxSuspects]
	}
	defer func() { _ = proto.RuntimeReleaseObjectGroup{ObjectGroup: ariaWorld}.Call(p) }()
	// The look-ups are independent: send them together, a few at a time,
	// rather than paying a round trip after another.
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		found bool
		first error
	)
	sem := make(chan struct{}, 16)
	for _, tag := range tags {
		wg.Add(1)
		sem <- struct{}{}
		go func(tag int) {
			defer func() { <-sem; wg.Done() }()
			ok, err := st.closedRoot(p, tag)
			mu.Lock()
			defer mu.Unlock()
			found = found || ok
			if err != nil && first == nil {
				first = err
			}
		}(tag)
	}
	wg.Wait()
	return found, first
}

// closedRoot hands the closed shadow root of one element to the builder,
// saying whether there was one.
func (st *pageState) closedRoot(p *rod.Page, tag int) (bool, error) {
	el, err := lookupTag(p, st.world, tag)
	if err != nil || el == "" {
		return false, nil // gone since: nothing to look into
	}
	desc, err := proto.DOMDescribeNode{ObjectID: el, Depth: gson.Int(0), Pierce: true}.Call(p)
	if err != nil {
		return false, nil
	}
	found := false
	for _, root := range desc.Node.ShadowRoots {
		if root.ShadowRootType != proto.DOMShadowRootTypeClosed {
			continue
		}
		obj, err := proto.DOMResolveNode{BackendNodeID: root.BackendNodeID, ExecutionContextID: st.world, ObjectGroup: ariaWorld}.Call(p)
		if err != nil || obj.Object == nil {
			continue
		}
		_, err = proto.RuntimeCallFunctionOn{
			ExecutionContextID:  st.world,
			FunctionDeclaration: `function (t, root) { globalThis.__wrightAria.addClosedRoot(t, root); }`,
			Arguments:           []*proto.RuntimeCallArgument{{Value: gson.New(tag)}, {ObjectID: obj.Object.ObjectID}},
		}.Call(p)
		if err != nil {
			return false, fmt.Errorf("hand in a closed shadow root: %w", err)
		}
		found = true
	}
	return found, nil
}

// lookupTag returns the element of a tag as an object of the builder's
// world (in ObjectGroup ariaWorld), or "" with the reason it is gone.
func lookupTag(p *rod.Page, world proto.RuntimeExecutionContextID, tag int) (proto.RuntimeRemoteObjectID, error) {
	res, err := proto.RuntimeCallFunctionOn{
		ExecutionContextID:  world,
		FunctionDeclaration: `function (t) { const a = globalThis.__wrightAria; return a ? a.lookup(t) : 'page navigated'; }`,
		Arguments:           []*proto.RuntimeCallArgument{{Value: gson.New(tag)}},
		ObjectGroup:         ariaWorld,
	}.Call(p)
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", fmt.Errorf("look up element: %s", exceptionText(res.ExceptionDetails))
	}
	if res.Result.Type == proto.RuntimeRemoteObjectTypeString {
		return "", &StaleRefError{Reason: res.Result.Value.Str()}
	}
	return res.Result.ObjectID, nil
}

// resolveTag finds the element of an in-page ref and returns it as an
// element of its document's main world, where rod and scripts use it.
func resolveTag(ctx context.Context, page *rod.Page, ref string, key refKey) (*rod.Element, error) {
	p := page.Context(ctx)
	obj, err := lookupTag(p, key.world, key.tag)
	var stale *StaleRefError
	switch {
	case errors.As(err, &stale):
		stale.Ref = ref
		return nil, stale
	case err != nil:
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if isNodeGone(err) {
			// The world went with its document.
			return nil, &StaleRefError{Ref: ref, Reason: goneReason(p, key)}
		}
		return nil, fmt.Errorf("resolve %s: %w", ref, err)
	}
	defer func() { _ = proto.RuntimeReleaseObjectGroup{ObjectGroup: ariaWorld}.Call(p) }()
	desc, err := proto.DOMDescribeNode{ObjectID: obj}.Call(p)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("resolve %s: %w", ref, err)
	}
	el, err := p.ElementFromNode(&proto.DOMNode{BackendNodeID: desc.Node.BackendNodeID})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if isNodeGone(err) {
			return nil, &StaleRefError{Ref: ref, Reason: "element removed"}
		}
		return nil, fmt.Errorf("resolve %s: %w", ref, err)
	}
	return el.Context(page.GetContext()), nil
}

// convert turns the builder's nodes into the renderer's: world is the
// world that built them, frame their frame when it is not the main one.
// It counts the iframes whose document is to be built apart.
func (st *pageState) convert(j *jsNode, world proto.RuntimeExecutionContextID, frame proto.PageFrameID, holes *int) *node {
	n := &node{role: j.R, name: j.N, checked: j.C, pressed: j.P, disabled: j.D == 1, expanded: j.X == 1,
		selected: j.S == 1, invalid: j.I, level: j.L, truncated: j.T == 1, loader: ""}
	if j.A > 0 {
		n.actionable = true
		n.key = refKey{world: world, tag: j.A, frame: frame}
	}
	if j.F > 0 {
		n.hole = j.F
		*holes++
	}
	if j.H != nil {
		n.props = append(n.props, prop{"placeholder", *j.H})
	}
	if j.U != nil {
		n.props = append(n.props, prop{"url", *j.U})
	}
	if len(j.K) > 0 {
		n.kids = make([]item, len(j.K))
		for i, k := range j.K {
			if k.n != nil {
				n.kids[i] = item{n: st.convert(k.n, world, frame, holes)}
			} else {
				n.kids[i] = item{text: k.text}
			}
		}
	}
	return n
}

func exceptionText(e *proto.RuntimeExceptionDetails) string {
	if e.Exception != nil && e.Exception.Description != "" {
		return e.Exception.Description
	}
	return e.Text
}

// fillFrames builds the documents of cross-origin iframes (which the
// parent's world cannot read) in a world of their own frame, and puts
// them under their <iframe> nodes. A frame in another renderer (site
// isolation) is out of this session's reach: the protocol builder does it.
func (st *pageState) fillFrames(p *rod.Page, root *node, opts Options, depth int) error {
	var holes []*node
	var walk func(n *node)
	walk = func(n *node) {
		if n.hole != 0 {
			holes = append(holes, n)
		}
		for _, k := range n.kids {
			if k.n != nil {
				walk(k.n)
			}
		}
	}
	walk(root)
	defer func() { _ = proto.RuntimeReleaseObjectGroup{ObjectGroup: ariaWorld}.Call(p) }()
	for _, h := range holes {
		world := h.key.world
		tag := h.hole
		h.hole = 0
		obj, err := lookupTag(p, world, tag)
		if err != nil {
			continue // gone since: shown empty
		}
		desc, err := proto.DOMDescribeNode{ObjectID: obj}.Call(p)
		if err != nil || desc.Node.FrameID == "" {
			continue
		}
		frame := desc.Node.FrameID
		fw, err := proto.PageCreateIsolatedWorld{FrameID: frame, WorldName: World, GrantUniveralAccess: true}.Call(p)
		if err != nil {
			return errNeedProtocol
		}
		res, err := proto.RuntimeEvaluate{Expression: PageScript, ContextID: fw.ExecutionContextID}.Call(p)
		if err != nil || res.ExceptionDetails != nil {
			return errNeedProtocol
		}
		sub := &pageState{world: fw.ExecutionContextID}
		out, err := sub.call(p, Options{InteractiveOnly: opts.InteractiveOnly}, nil, nil, false)
		if err != nil || out.Root == nil {
			continue // the frame navigated meanwhile: shown empty
		}
		more := 0
		fr := st.convert(out.Root, fw.ExecutionContextID, frame, &more)
		if more > 0 && depth < maxFrameDepth {
			if err := st.fillFrames(p, fr, opts, depth+1); err != nil {
				return err
			}
		}
		h.kids = fr.kids
		finish(h)
	}
	return nil
}

// goneReason says why the world of a ref's document is gone: the main
// document navigated (checked before), or the ref's frame navigated or
// went away.
func goneReason(p *rod.Page, key refKey) string {
	if key.frame == "" {
		return "page navigated"
	}
	tree, err := proto.PageGetFrameTree{}.Call(p)
	if err != nil {
		return "element removed"
	}
	var find func(t *proto.PageFrameTree) bool
	find = func(t *proto.PageFrameTree) bool {
		if t.Frame.ID == key.frame {
			return true
		}
		for _, c := range t.ChildFrames {
			if find(c) {
				return true
			}
		}
		return false
	}
	if find(tree.FrameTree) {
		return "frame navigated"
	}
	return "element removed"
}
