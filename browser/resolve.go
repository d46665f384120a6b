package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
	"wright/browser/aria"
	"wright/browser/selector"
)

//go:embed engine.js
var engineJS string

// engineGroup holds the long-lived objects of a context (its window and the
// engine); they die with the context.
const engineGroup = "wright-engine"

// execCtx is wright's isolated world in one frame's document, with the
// engine installed in it. Page scripts share the DOM with it but not the
// JavaScript globals, so a page that redefines Map, Event or
// Array.prototype methods cannot break the engine. Element objects from
// the engine live in this world: code written by users runs in the page's
// main world, on objects from pageObject.
type execCtx struct {
	id     proto.RuntimeExecutionContextID // wright's isolated world
	iso    proto.RuntimeRemoteObjectID     // its global object
	engine proto.RuntimeRemoteObjectID
	win    proto.RuntimeRemoteObjectID // the page's main-world global object (main frame only), for user code
	cs     *customState                // custom selector engines (below)

	compiler proto.RuntimeRemoteObjectID // the main world's function compiler (events.go, evalCompiler)
	frame    proto.PageFrameID           // the frame whose document this is (secretguard.go)
}

// worldName names wright's isolated world in every frame. It is the ARIA
// snapshot's world too: the page script installed there (aria.PageScript)
// holds the one role and name engine, which the selector engine is given.
const worldName = aria.World

// installEngine installs the page script (once per document: the ARIA
// snapshot may have done it already) and makes an engine on its roles.
var installEngine = "function () { " + aria.PageScript + " return (" + engineJS + ")(globalThis.__wrightAria.roles); }"

func (p *Page) forgetContextsLocked() {
	p.mainCtx = nil
	clear(p.contexts)
	clear(p.frameCtx)
}

// errRetry marks a failure that is expected while a page navigates; the
// waiting loops try again.
var errRetry = errors.New("the page navigated; retrying")

// isolatedCtx makes wright's isolated world in a frame and installs the
// engine there.
func (p *Page) isolatedCtx(o *op, frame proto.PageFrameID) (*execCtx, error) {
	world, err := proto.PageCreateIsolatedWorld{FrameID: frame, WorldName: worldName, GrantUniveralAccess: true}.Call(o.rodPage())
	if err != nil {
		if strings.Contains(err.Error(), "No frame for given id") {
			return nil, errRetry
		}
		return nil, p.jsErr(err)
	}
	// The cache of contexts is keyed by the world's context id.
	key := proto.RuntimeRemoteObjectID(fmt.Sprintf("world:%d", world.ExecutionContextID))
	p.mu.Lock()
	ec := p.contexts[key]
	p.mu.Unlock()
	if ec != nil {
		return ec, nil
	}
	res, err := proto.RuntimeEvaluate{Expression: "globalThis", ContextID: world.ExecutionContextID, ObjectGroup: engineGroup}.Call(o.rodPage())
	if err != nil {
		return nil, p.jsErr(err)
	}
	win := res.Result.ObjectID
	inst, err := proto.RuntimeCallFunctionOn{
		ObjectID:            win,
		FunctionDeclaration: installEngine,
		ObjectGroup:         engineGroup,
	}.Call(o.rodPage())
	if err != nil {
		return nil, p.jsErr(err)
	}
	if inst.ExceptionDetails != nil {
		return nil, newErr(ErrBrowser, "install the selector engine: %s", exceptionText(inst.ExceptionDetails))
	}
	ec = &execCtx{id: world.ExecutionContextID, iso: win, engine: inst.Result.ObjectID, frame: frame}
	p.mu.Lock()
	p.contexts[key] = ec
	p.mu.Unlock()
	return ec, nil
}

// main returns the main frame's context.
func (p *Page) main(o *op) (*execCtx, error) {
	p.mu.Lock()
	ec := p.mainCtx
	p.mu.Unlock()
	if ec != nil {
		return ec, nil
	}
	ec, err := p.isolatedCtx(o, p.mainFrame())
	if err != nil {
		return nil, err
	}
	if ec.win == "" {
		res, err := proto.RuntimeEvaluate{Expression: "globalThis", ObjectGroup: engineGroup}.Call(o.rodPage())
		if err != nil {
			return nil, p.jsErr(err)
		}
		ec.win = res.Result.ObjectID
	}
	p.mu.Lock()
	p.mainCtx = ec
	p.mu.Unlock()
	return ec, nil
}

// frameOf returns the context of the document inside an iframe element
// that the iframe's parent cannot reach itself (cross-origin).
func (p *Page) frameOf(o *op, iframe handle) (*execCtx, error) {
	node, err := proto.DOMDescribeNode{ObjectID: iframe.obj, Depth: gson.Int(1), Pierce: true}.Call(o.rodPage())
	if err != nil {
		return nil, p.jsErr(err)
	}
	if node.Node.ContentDocument == nil || node.Node.FrameID == "" {
		return nil, errRetry // the frame has no document yet
	}
	return p.docCtx(o, node.Node.ContentDocument.BackendNodeID, node.Node.FrameID)
}

// docCtx returns the engine context of the document docID, made once and
// then cached. frame is the document's frame, or "" to look it up.
func (p *Page) docCtx(o *op, docID proto.DOMBackendNodeID, frame proto.PageFrameID) (*execCtx, error) {
	p.mu.Lock()
	ec := p.frameCtx[docID]
	p.mu.Unlock()
	if ec != nil {
		return ec, nil
	}
	if frame == "" {
		var err error
		if frame, err = p.frameOfDoc(o, docID); err != nil {
			return nil, err
		}
	}
	var err error
	if frame == p.mainFrame() {
		ec, err = p.main(o)
	} else {
		ec, err = p.isolatedCtx(o, frame)
	}
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.frameCtx[docID] = ec
	p.mu.Unlock()
	return ec, nil
}

// frameOfDoc finds the frame showing the document docID: the main frame,
// or the one whose owner <iframe> holds it.
func (p *Page) frameOfDoc(o *op, docID proto.DOMBackendNodeID) (proto.PageFrameID, error) {
	tree, err := proto.PageGetFrameTree{}.Call(o.rodPage())
	if err != nil {
		return "", p.jsErr(err)
	}
	var frames []proto.PageFrameID
	var walk func(t *proto.PageFrameTree)
	walk = func(t *proto.PageFrameTree) {
		frames = append(frames, t.Frame.ID)
		for _, c := range t.ChildFrames {
			walk(c)
		}
	}
	walk(tree.FrameTree)
	for _, f := range frames[1:] {
		owner, err := proto.DOMGetFrameOwner{FrameID: f}.Call(o.rodPage())
		if err != nil {
			continue // a frame that went away
		}
		n, err := proto.DOMDescribeNode{BackendNodeID: owner.BackendNodeID, Depth: gson.Int(1), Pierce: true}.Call(o.rodPage())
		if err == nil && n.Node.ContentDocument != nil && n.Node.ContentDocument.BackendNodeID == docID {
			return f, nil
		}
	}
	return frames[0], nil
}

// jsErr classifies a CDP error from a JavaScript call: a context that went
// away (navigation) is retryable, a closed page is TargetClosed.
func (p *Page) jsErr(err error) error {
	p.b.settle(err)
	if e := p.closedErr(); e != nil {
		return e
	}
	if isContextGone(err) {
		p.mu.Lock()
		p.forgetContextsLocked()
		p.mu.Unlock()
		return errRetry
	}
	return err
}

// arg is an argument of an engine call: a remote object or a JSON value.
type arg struct {
	obj   proto.RuntimeRemoteObjectID
	value any
}

func objArg(id proto.RuntimeRemoteObjectID) arg { return arg{obj: id} }

func valArg(v any) arg { return arg{value: v} }

// call runs engine.method(args...) in ec. byValue returns JSON; otherwise
// the result stays a remote object in the op's group.
func (p *Page) call(o *op, ec *execCtx, method string, byValue bool, args ...arg) (*proto.RuntimeRemoteObject, error) {
	cargs := make([]*proto.RuntimeCallArgument, len(args))
	for i, a := range args {
		if a.obj != "" {
			cargs[i] = &proto.RuntimeCallArgument{ObjectID: a.obj}
		} else {
			cargs[i] = &proto.RuntimeCallArgument{Value: gson.New(a.value)}
		}
	}
	res, err := proto.RuntimeCallFunctionOn{
		ObjectID:            ec.engine,
		FunctionDeclaration: "function (...a) { return this." + method + "(...a); }",
		Arguments:           cargs,
		ReturnByValue:       byValue,
		AwaitPromise:        true,
		ObjectGroup:         o.objectGroup(),
	}.Call(o.rodPage())
	if err != nil {
		return nil, p.jsErr(err)
	}
	if res.ExceptionDetails != nil {
		return nil, engineException(res.ExceptionDetails)
	}
	return res.Result, nil
}

// callValue is call with the JSON result decoded into dst.
func (p *Page) callValue(o *op, ec *execCtx, method string, dst any, args ...arg) error {
	res, err := p.call(o, ec, method, true, args...)
	if err != nil {
		return err
	}
	if dst == nil {
		return nil
	}
	if res.Type == proto.RuntimeRemoteObjectTypeUndefined {
		return json.Unmarshal([]byte("null"), dst)
	}
	return json.Unmarshal([]byte(res.Value.JSON("", "")), dst)
}

// engineException turns an exception thrown by engine.js into an *Error:
// WrightError carries its type, anything else is a driver bug or a page
// that broke the DOM APIs.
func engineException(d *proto.RuntimeExceptionDetails) error {
	text := exceptionText(d)
	if i := strings.Index(text, "WrightError: "); i >= 0 {
		rest := text[i+len("WrightError: "):]
		if j := strings.Index(rest, "\n    at "); j >= 0 {
			rest = rest[:j]
		}
		typ, msg, ok := strings.Cut(rest, "|")
		if ok {
			return newErr(ErrorType(typ), "%s", msg)
		}
	}
	if isContextGone(errors.New(text)) {
		return errRetry
	}
	return newErr(ErrBrowser, "selector engine failed: %s", text)
}

func exceptionText(d *proto.RuntimeExceptionDetails) string {
	if d.Exception != nil {
		if d.Exception.Description != "" {
			return d.Exception.Description
		}
		if !d.Exception.Value.Nil() {
			return "Uncaught " + d.Exception.Value.JSON("", "")
		}
	}
	return d.Text
}

// resolve finds every element the selector matches, in order. It does not
// wait.
func (p *Page) resolve(o *op, parts []selector.Part) ([]handle, error) {
	var items []handle // nil ec+obj means "the document of main"
	i := 0
	if parts[0].Engine == "aria-ref" {
		el, err := p.resolveRef(o, parts[0].Ref)
		if err != nil {
			return nil, err
		}
		items = []handle{el}
		i = 1
	} else if parts[0].Engine == "handle" {
		el, err := p.resolveHandle(o, parts[0].Ref)
		if err != nil {
			return nil, err
		}
		items = []handle{el}
		i = 1
	} else {
		ec, err := p.main(o)
		if err != nil {
			return nil, err
		}
		items = []handle{{ec: ec}}
	}
	for i < len(parts) {
		// While every item lives in one context, let the engine run as far
		// as it can in one call.
		if sameContext(items) {
			res, stop, opaque, err := p.run(o, items[0].ec, parts[i:], items)
			if err != nil {
				return nil, err
			}
			if stop < 0 {
				return res, nil
			}
			items, i = res, i+stop
			if err := p.stepOpaque(o, &items, parts[i], opaque); err != nil {
				return nil, err
			}
			i++
			continue
		}
		// Items span contexts (some came from cross-origin frames): apply
		// one part at a time, per context, keeping the order.
		next, err := p.stepMixed(o, items, parts[i])
		if err != nil {
			return nil, err
		}
		items = next
		i++
	}
	return items, nil
}

func sameContext(items []handle) bool {
	for _, h := range items[1:] {
		if h.ec != items[0].ec {
			return false
		}
	}
	return len(items) > 0
}

// run calls engine.run in one context. roots with an empty obj mean the
// context's document.
func (p *Page) run(o *op, ec *execCtx, parts []selector.Part, roots []handle) (res []handle, stop int, opaque []int, err error) {
	if selector.HasCustom(parts) {
		twin, err := p.prepareCustom(o, ec, parts)
		if err != nil {
			return nil, 0, nil, err
		}
		if twin != nil {
			return p.runInMain(o, ec, twin, parts, roots)
		}
	}
	args := []arg{valArg(parts)}
	for _, r := range roots {
		if r.obj != "" {
			args = append(args, objArg(r.obj))
		}
	}
	arr, err := p.call(o, ec, "run", false, args...)
	if err != nil {
		return nil, 0, nil, err
	}
	props, err := proto.RuntimeGetProperties{ObjectID: arr.ObjectID, OwnProperties: true}.Call(o.rodPage())
	if err != nil {
		return nil, 0, nil, p.jsErr(err)
	}
	stop = -1
	type indexed struct {
		i int
		h handle
	}
	var els []indexed
	for _, prop := range props.Result {
		if prop.Value == nil {
			continue
		}
		switch prop.Name {
		case "stopAt":
			stop = prop.Value.Value.Int()
		case "opaque":
			for _, s := range strings.Split(prop.Value.Value.Str(), ",") {
				if n, err := strconv.Atoi(s); err == nil {
					opaque = append(opaque, n)
				}
			}
		case "length", "__proto__":
		default:
			n, err := strconv.Atoi(prop.Name)
			if err == nil && prop.Value.ObjectID != "" {
				els = append(els, indexed{n, handle{ec: ec, obj: prop.Value.ObjectID}})
			}
		}
	}
	res = make([]handle, len(els))
	for _, e := range els {
		if e.i < len(res) {
			res[e.i] = e.h
		}
	}
	return res, stop, opaque, nil
}

// stepOpaque applies a search part to items where the indexes in opaque
// are frames this context cannot enter: those are searched from the frame's
// own context, the rest here.
func (p *Page) stepOpaque(o *op, items *[]handle, pt selector.Part, opaque []int) error {
	isOpaque := map[int]bool{}
	for _, i := range opaque {
		isOpaque[i] = true
	}
	var out []handle
	for i, h := range *items {
		var found []handle
		var err error
		if isOpaque[i] {
			ec, ferr := p.frameOf(o, h)
			if ferr != nil {
				return ferr
			}
			found, _, _, err = p.run(o, ec, []selector.Part{pt}, nil)
		} else {
			found, _, _, err = p.run(o, h.ec, []selector.Part{pt}, []handle{h})
		}
		if err != nil {
			return err
		}
		out = append(out, found...)
	}
	*items = out
	return nil
}

// stepMixed applies one part to items spread over several contexts.
func (p *Page) stepMixed(o *op, items []handle, pt selector.Part) ([]handle, error) {
	switch pt.Engine {
	case "nth":
		i := pt.N
		if i < 0 {
			i += len(items)
		}
		if i < 0 || i >= len(items) {
			return nil, nil
		}
		return []handle{items[i]}, nil
	case "has-text", "has-not-text", "visible", "has", "has-not", "and", "or":
		var out []handle
		for _, h := range items {
			keep, _, _, err := p.runFilter(o, h, pt)
			if err != nil {
				return nil, err
			}
			if keep {
				out = append(out, h)
			}
		}
		return out, nil
	}
	var out []handle
	for _, h := range items {
		res, stop, opaque, err := p.run(o, h.ec, []selector.Part{pt}, []handle{h})
		if err != nil {
			return nil, err
		}
		if stop >= 0 {
			if err := p.stepOpaque(o, &res, pt, opaque); err != nil {
				return nil, err
			}
		}
		out = append(out, res...)
	}
	return out, nil
}

// runFilter applies a filter part to one element.
func (p *Page) runFilter(o *op, h handle, pt selector.Part) (bool, int, []int, error) {
	var keep bool
	if err := p.callValue(o, h.ec, "filterOne", &keep, valArg(pt), objArg(h.obj)); err != nil {
		return false, 0, nil, err
	}
	return keep, 0, nil, nil
}

// resolveRef turns an aria-ref into an element.
func (p *Page) resolveRef(o *op, ref string) (handle, error) {
	el, err := p.aria.Resolve(o.ctx, p.rod, ref)
	if err != nil {
		var stale *aria.StaleRefError
		if errors.As(err, &stale) {
			return handle{}, wrapErr(ErrStaleRef, err, "%s", stale.Error())
		}
		if e := p.closedErr(); e != nil {
			return handle{}, e
		}
		return handle{}, wrapErr(ErrBrowser, err, "resolve aria-ref=%s: %v", ref, err)
	}
	if el == nil || el.Object == nil {
		return handle{}, newErr(ErrStaleRef, "ref %s did not resolve to an element: take a new aria_snapshot() and use a ref from it", ref)
	}
	return p.engineHandle(o, el.Object.ObjectID)
}

// describe renders up to max elements for a message.
func (p *Page) describe(o *op, hs []handle, max int) []string {
	var out []string
	for _, h := range hs {
		if len(out) >= max {
			break
		}
		var d []string
		if err := p.callValue(o, h.ec, "describe", &d, objArg(h.obj)); err != nil || len(d) == 0 {
			out = append(out, "(an element that could not be described)")
			continue
		}
		out = append(out, d[0])
	}
	return out
}

func strictError(selector string, n int, cands []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "strict mode violation: %q matches %d elements, but this action needs exactly one:", selector, n)
	for i, c := range cands {
		fmt.Fprintf(&b, "\n  %d) %s", i+1, c)
	}
	if n > len(cands) {
		fmt.Fprintf(&b, "\n  ... and %d more", n-len(cands))
	}
	b.WriteString("\nPick one with nth=N (0-based; the Python client's .first / .nth(i)), or narrow the selector (role=...[name=...], has-text=..., a parent >> child chain).")
	return newErr(ErrStrictMode, "%s", b.String())
}

// elementCtx wraps ctx-less helpers for tests.
func (p *Page) roleAndName(ctx context.Context, selector string) (role, name string, err error) {
	l, err := p.Locator(selector)
	if err != nil {
		return "", "", err
	}
	o := p.begin(ctx, 0)
	defer o.end()
	h, err := l.waitOne(o, stateAttached, "")
	if err != nil {
		return "", "", err
	}
	var v struct {
		Role *string `json:"role"`
		Name string  `json:"name"`
	}
	if err := p.callValue(o, h.ec, "roleAndName", &v, objArg(h.obj)); err != nil {
		return "", "", o.fail(err, "")
	}
	if v.Role != nil {
		role = *v.Role
	}
	return role, v.Name, nil
}

// Custom selector engines: a script registers an engine (an object with
// queryAll(root, body), as Playwright's selectors.register takes), and
// NAME=BODY then works in every selector of every page of the browser. The
// engine runs in the page's main world unless it was registered as a
// content script, which runs in wright's isolated world; a chain that uses
// any main-world engine runs whole in the main world, and so does one whose
// matches go to a main-world function at once (evaluate_all).

// customEngine is one registered engine.
type customEngine struct {
	name   string
	source string // a JavaScript expression for the engine object
	main   bool   // runs in the page's main world
}

// customEngines is a browser's registry.
type customEngines struct {
	mu   sync.Mutex
	list []customEngine
}

// RegisterSelectorEngine adds an engine named name, made by source (a
// JavaScript expression that evaluates to an object with
// queryAll(root, selector)); contentScript runs it in wright's isolated
// world instead of the page's.
func (b *Browser) RegisterSelectorEngine(name, source string, contentScript bool) error {
	if !selector.ValidCustomName(name) {
		return newErr(ErrInvalidParams, "Selector engine name may only contain [a-zA-Z0-9_] characters")
	}
	lower := strings.ToLower(name)
	if slices.Contains(selector.Engines, lower) || slices.Contains(selector.FilterEngines, lower) || selector.LayoutPseudos[lower] {
		return newErr(ErrInvalidParams, "%q is a predefined selector engine", name)
	}
	if strings.TrimSpace(source) == "" {
		return newErr(ErrInvalidParams, "selector engine %q needs a script: an object with query(root, selector) and queryAll(root, selector)", name)
	}
	r := &b.custom
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.list {
		if e.name == name {
			return newErr(ErrInvalidParams, "%q selector engine has been already registered", name)
		}
	}
	r.list = append(r.list, customEngine{name: name, source: source, main: !contentScript})
	return nil
}

func (b *Browser) customEngine(name string) (customEngine, bool) {
	b.custom.mu.Lock()
	defer b.custom.mu.Unlock()
	for _, e := range b.custom.list {
		if e.name == name {
			return e, true
		}
	}
	return customEngine{}, false
}

func (b *Browser) hasCustomEngine(name string) bool {
	_, ok := b.customEngine(name)
	return ok
}

// customState is what a context knows of custom engines: which it has
// defined, and its twin engine in the page's main world.
type customState struct {
	mainWorld bool // this context is a frame's main world
	defined   map[string]bool
	twin      *execCtx // the main-world engine of an isolated context
}

// prepareCustom readies ec for parts that use custom engines. It returns
// the main-world context the chain must run in instead of ec, or nil.
func (p *Page) prepareCustom(o *op, ec *execCtx, parts []selector.Part) (*execCtx, error) {
	if ec.cs != nil && ec.cs.mainWorld {
		return nil, p.defineCustom(o, ec, parts)
	}
	main := o.customMain
	selector.WalkCustom(parts, func(pt selector.Part) {
		if e, ok := p.b.customEngine(pt.Custom); ok && e.main {
			main = true
		}
	})
	if !main {
		return nil, p.defineCustom(o, ec, parts)
	}
	twin, err := p.mainTwin(o, ec)
	if err != nil {
		return nil, err
	}
	return twin, p.defineCustom(o, twin, parts)
}

// defineCustom defines in ec the engines parts use that it lacks.
func (p *Page) defineCustom(o *op, ec *execCtx, parts []selector.Part) error {
	var err error
	selector.WalkCustom(parts, func(pt selector.Part) {
		if err != nil {
			return
		}
		p.mu.Lock()
		if ec.cs == nil {
			ec.cs = &customState{}
		}
		done := ec.cs.defined[pt.Custom]
		p.mu.Unlock()
		if done {
			return
		}
		e, ok := p.b.customEngine(pt.Custom)
		if !ok {
			err = newErr(ErrInvalidSelector, "Unknown engine %q", pt.Custom)
			return
		}
		name, _ := json.Marshal(e.name)
		res, cerr := proto.RuntimeCallFunctionOn{
			ObjectID:            ec.engine,
			FunctionDeclaration: "function () { return this.defineEngine(" + string(name) + ", (\n" + e.source + "\n)); }",
			ObjectGroup:         engineGroup,
		}.Call(o.rodPage())
		if cerr != nil {
			err = p.jsErr(cerr)
			return
		}
		if res.ExceptionDetails != nil {
			err = newErr(ErrInvalidSelector, "selector engine %q failed to load: %s", e.name, exceptionText(res.ExceptionDetails))
			return
		}
		p.mu.Lock()
		if ec.cs.defined == nil {
			ec.cs.defined = map[string]bool{}
		}
		ec.cs.defined[pt.Custom] = true
		p.mu.Unlock()
	})
	return err
}

// mainTwin returns (installing it once) the engine in the main world of
// the frame whose isolated context is ec.
func (p *Page) mainTwin(o *op, ec *execCtx) (*execCtx, error) {
	p.mu.Lock()
	if ec.cs == nil {
		ec.cs = &customState{}
	}
	twin := ec.cs.twin
	p.mu.Unlock()
	if twin != nil {
		return twin, nil
	}
	doc, err := proto.RuntimeEvaluate{Expression: "document", ContextID: ec.id, ObjectGroup: o.objectGroup()}.Call(o.rodPage())
	if err != nil {
		return nil, p.jsErr(err)
	}
	mainDoc, err := p.pageObject(o, handle{ec: ec, obj: doc.Result.ObjectID})
	if err != nil {
		return nil, err
	}
	inst, err := proto.RuntimeCallFunctionOn{
		ObjectID: mainDoc,
		// The page's world gets a role engine of its own, never a global.
		FunctionDeclaration: "function () { return (" + engineJS + ")(" + aria.RolesFactory + "); }",
		ObjectGroup:         engineGroup,
	}.Call(o.rodPage())
	if err != nil {
		return nil, p.jsErr(err)
	}
	if inst.ExceptionDetails != nil {
		return nil, newErr(ErrBrowser, "install the selector engine in the page's world: %s", exceptionText(inst.ExceptionDetails))
	}
	twin = &execCtx{engine: inst.Result.ObjectID, cs: &customState{mainWorld: true}}
	p.mu.Lock()
	ec.cs.twin = twin
	p.mu.Unlock()
	return twin, nil
}

// runInMain runs parts in twin (the main world of ec's frame) from roots
// (handles in ec) and returns the matches as handles in ec again.
func (p *Page) runInMain(o *op, ec, twin *execCtx, parts []selector.Part, roots []handle) ([]handle, int, []int, error) {
	mainRoots := make([]handle, 0, len(roots))
	for _, r := range roots {
		if r.obj == "" {
			continue
		}
		obj, err := p.pageObject(o, r)
		if err != nil {
			return nil, 0, nil, err
		}
		mainRoots = append(mainRoots, handle{ec: twin, obj: obj})
	}
	res, stop, opaque, err := p.run(o, twin, parts, mainRoots)
	if err != nil {
		return nil, 0, nil, err
	}
	for i, h := range res {
		n, err := proto.DOMDescribeNode{ObjectID: h.obj}.Call(o.rodPage())
		if err != nil {
			return nil, 0, nil, p.jsErr(err)
		}
		back, err := proto.DOMResolveNode{BackendNodeID: n.Node.BackendNodeID, ExecutionContextID: ec.id, ObjectGroup: o.objectGroup()}.Call(o.rodPage())
		if err != nil {
			return nil, 0, nil, p.jsErr(err)
		}
		res[i] = handle{ec: ec, obj: back.Object.ObjectID}
	}
	return res, stop, opaque, nil
}

// parseSelector is selector.Parse with its error as the protocol's
// InvalidSelector.
func parseSelector(sel string, known ...func(string) bool) ([]selector.Part, error) {
	parts, err := selector.Parse(sel, known...)
	if err != nil {
		var se *selector.Error
		if errors.As(err, &se) {
			return nil, wrapErr(ErrInvalidSelector, se.Err, "%s", se.Message)
		}
		return nil, wrapErr(ErrInvalidSelector, err, "%s", err.Error())
	}
	return parts, nil
}

// Locator parses selector (see driver/PROTOCOL.md, "Selectors") for use on p.
// A malformed selector is an InvalidSelector error here, not later.
func (p *Page) Locator(selector string) (*Locator, error) {
	parts, err := parseSelector(selector, p.b.hasCustomEngine)
	if err != nil {
		return nil, err
	}
	return &Locator{p: p, selector: selector, parts: parts}, nil
}

// WaitForSelector waits on the page for any match of selector to be in state
// (not strict: one matching element is enough).
func (p *Page) WaitForSelector(ctx context.Context, selector string, state ElementState, timeout time.Duration) error {
	l, err := p.Locator(selector)
	if err != nil {
		return err
	}
	state, err = state.valid()
	if err != nil {
		return err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	return l.poll(o, "to be "+string(state), func() (bool, string, error) {
		hs, err := p.resolve(o, l.parts)
		if err != nil {
			return false, "", err
		}
		switch state {
		case stateAttached:
			return len(hs) > 0, noMatch, nil
		case stateDetached:
			return len(hs) == 0, fmt.Sprintf("%d element(s) still match", len(hs)), nil
		}
		anyVisible := false
		for _, h := range hs {
			var vis bool
			if err := p.callValue(o, h.ec, "state", &vis, objArg(h.obj), valArg("visible")); err != nil {
				return false, "", err
			}
			if vis {
				anyVisible = true
				break
			}
		}
		if state == stateVisible {
			if len(hs) == 0 {
				return false, noMatch, nil
			}
			return anyVisible, fmt.Sprintf("%d element(s) match but none is visible", len(hs)), nil
		}
		return !anyVisible, "a matching element is still visible", nil
	})
}
