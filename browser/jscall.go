package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"wright/pause"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

// transferJS encodes and decodes values crossing js.call (see PROTOCOL.md,
// "Value transfer").
//
//go:embed transfer.js
var transferJS string

// handleGroup holds the objects a client keeps handles on: they outlive the
// op that made them and go when the client disposes of them or the page
// navigates away.
const handleGroup = "wright-handles"

// JSCall is one call of client JavaScript with Playwright's value transfer.
type JSCall struct {
	// Source is a function source (called with the argument) or an
	// expression (evaluated).
	Source string
	// Arg is the transfer-encoded argument; empty means none (undefined).
	Arg json.RawMessage
	// Handles are the object ids the argument refers to as {"h": i}.
	Handles []string
	// Element, if set, is a handle passed to the function before the
	// argument (handle.evaluate); the call runs in its context.
	Element string
	// Context, if set, is a handle whose context (frame) the call runs in;
	// unlike Element it is not passed to the function.
	Context string
	// ReturnHandle keeps the result in the page and answers a handle.
	ReturnHandle bool
}

// JSResult is a transfer-encoded value or a handle on the result.
type JSResult struct {
	Value  json.RawMessage `json:"value,omitempty"`
	Handle string          `json:"handle,omitempty"`
	// Type and Subtype are CDP's (object/node, function, ...), for the
	// client's choice between JSHandle and ElementHandle.
	Type        string `json:"type,omitempty"`
	Subtype     string `json:"subtype,omitempty"`
	Description string `json:"description,omitempty"`
}

// Call runs c in the page's main frame (or the element's context).
func (p *Page) Call(ctx context.Context, c JSCall, timeout time.Duration) (*JSResult, error) {
	if strings.TrimSpace(c.Source) == "" {
		return nil, newErr(ErrInvalidParams, "js.call needs an expression or a function")
	}
	if err := p.closedErr(); err != nil {
		return nil, err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	for {
		res, err := p.callOnce(o, c)
		if !errors.Is(err, errRetry) {
			return res, err
		}
		if err := pause.For(o.ctx, 50*time.Millisecond); err != nil {
			return nil, o.fail(err, "waiting for the page to finish navigating before evaluating")
		}
	}
}

func (p *Page) callOnce(o *op, c JSCall) (*JSResult, error) {
	target := proto.RuntimeRemoteObjectID(c.Element)
	if target == "" {
		target = proto.RuntimeRemoteObjectID(c.Context)
	}
	var compiler proto.RuntimeRemoteObjectID
	if target == "" {
		ec, err := p.main(o)
		if err != nil {
			return nil, err
		}
		target = ec.win
		if compiler, err = p.evalCompiler(o, ec); err != nil {
			return nil, err
		}
	}
	isFn := isFunctionSource(c.Source)
	if !isFn && c.Element == "" && c.Context == "" {
		return p.callExpression(o, c, target)
	}
	fn := trimSource(c.Source)
	if !isFn {
		fn = "function () { return (\n" + c.Source + "\n); }"
		if c.Element == "" {
			fn = "async function () { return (\n" + c.Source + "\n); }"
		}
	}
	args := []*proto.RuntimeCallArgument{{ObjectID: compiler}}
	if len(c.Arg) > 0 {
		var v any
		if err := json.Unmarshal(c.Arg, &v); err != nil {
			return nil, newErr(ErrInvalidParams, "arg is not valid JSON: %v", err)
		}
		args = append(args, &proto.RuntimeCallArgument{Value: gson.New(v)})
	} else {
		args = append(args, &proto.RuntimeCallArgument{})
	}
	args = append(args, &proto.RuntimeCallArgument{Value: gson.New(c.Element != "")})
	if c.Element != "" {
		args = append(args, &proto.RuntimeCallArgument{ObjectID: target})
	}
	for _, h := range c.Handles {
		args = append(args, &proto.RuntimeCallArgument{ObjectID: proto.RuntimeRemoteObjectID(h)})
	}
	ret := "__w.encode(__r)"
	if c.ReturnHandle {
		ret = "__r"
	}
	decl := "async function (__wc, __wa, __we, ...__wh) {\n" +
		"const __wcompile = (src, direct) => __wc ? __wc(src, direct) : direct();\n" +
		"const __w = (" + transferJS + ")();\n" +
		"const __f = __wcompile(" + jsString(fn) + ", () => (\n" + fn + "\n));\n" +
		"const __el = __we ? __wh.shift() : undefined;\n" +
		"const __a = __w.decode(__wa, __wh);\n" +
		"const __r = __we ? await __f(__el, __a) : await __f(__a);\n" +
		"return " + ret + ";\n}"
	res, err := proto.RuntimeCallFunctionOn{
		ObjectID: target, FunctionDeclaration: decl, Arguments: args,
		ReturnByValue: !c.ReturnHandle, AwaitPromise: true, UserGesture: true, ObjectGroup: p.resultGroup(o, c),
	}.Call(o.rodPage())
	if err != nil {
		return nil, p.callErr(o, err, c.Element != "" || c.Context != "")
	}
	if res.ExceptionDetails != nil {
		return nil, evalErr(res.ExceptionDetails)
	}
	return p.jsResult(o, res.Result, c.ReturnHandle)
}

func (p *Page) resultGroup(o *op, c JSCall) string {
	if c.ReturnHandle {
		return handleGroup
	}
	return o.objectGroup()
}

// callErr maps a failed call: a main world that vanished is retried (the
// code never ran), a stale handle is the caller's error.
func (p *Page) callErr(o *op, err error, onElement bool) error {
	msg := err.Error()
	if strings.Contains(msg, "Could not find object with given id") || strings.Contains(msg, "Cannot find context with specified id") {
		if onElement {
			return newErr(ErrTargetClosed, "the handle is disposed or its page navigated away (JSHandle is disposed)")
		}
		p.mu.Lock()
		p.forgetContextsLocked()
		p.mu.Unlock()
		return errRetry
	}
	return p.evalCDPErr(o, err)
}

// callExpression evaluates an expression in REPL mode, then encodes or
// keeps its value.
func (p *Page) callExpression(o *op, c JSCall, win proto.RuntimeRemoteObjectID) (*JSResult, error) {
	res, err := proto.RuntimeEvaluate{
		Expression: c.Source, AwaitPromise: true, ReplMode: true, UserGesture: true, ObjectGroup: o.objectGroup(),
	}.Call(o.rodPage())
	if err != nil {
		return nil, p.evalCDPErr(o, err)
	}
	if res.ExceptionDetails != nil {
		return nil, evalErr(res.ExceptionDetails)
	}
	r := res.Result
	if r.Subtype == proto.RuntimeRemoteObjectSubtypePromise {
		aw, err := proto.RuntimeAwaitPromise{PromiseObjectID: r.ObjectID}.Call(o.rodPage())
		if err != nil {
			return nil, p.evalCDPErr(o, err)
		}
		if aw.ExceptionDetails != nil {
			return nil, evalErr(aw.ExceptionDetails)
		}
		r = aw.Result
	}
	arg := &proto.RuntimeCallArgument{ObjectID: r.ObjectID, UnserializableValue: r.UnserializableValue}
	if r.ObjectID == "" && r.UnserializableValue == "" && r.Type != proto.RuntimeRemoteObjectTypeUndefined {
		arg.Value = r.Value
	}
	decl := "function (v) { return (" + transferJS + ")().encode(v); }"
	if c.ReturnHandle {
		decl = "function (v) { return v; }"
	}
	out, err := proto.RuntimeCallFunctionOn{
		ObjectID: win, FunctionDeclaration: decl, Arguments: []*proto.RuntimeCallArgument{arg},
		ReturnByValue: !c.ReturnHandle, ObjectGroup: p.resultGroup(o, c),
	}.Call(o.rodPage())
	if err != nil {
		return nil, p.callErr(o, err, false)
	}
	if out.ExceptionDetails != nil {
		return nil, evalErr(out.ExceptionDetails)
	}
	return p.jsResult(o, out.Result, c.ReturnHandle)
}

func (p *Page) jsResult(o *op, r *proto.RuntimeRemoteObject, asHandle bool) (*JSResult, error) {
	if !asHandle {
		return &JSResult{Value: evalResult(r)}, nil
	}
	out := &JSResult{Type: string(r.Type), Subtype: string(r.Subtype), Description: r.Description}
	if r.ObjectID == "" {
		// A primitive: the client holds it by value.
		enc, err := proto.RuntimeCallFunctionOn{
			ObjectID: o.p.mustWin(o), FunctionDeclaration: "function (v) { return (" + transferJS + ")().encode(v); }",
			Arguments: []*proto.RuntimeCallArgument{{Value: r.Value, UnserializableValue: r.UnserializableValue}}, ReturnByValue: true,
		}.Call(o.rodPage())
		if err != nil {
			return nil, p.evalCDPErr(o, err)
		}
		out.Value = evalResult(enc.Result)
		return out, nil
	}
	out.Handle = string(r.ObjectID)
	return out, nil
}

func (p *Page) mustWin(o *op) proto.RuntimeRemoteObjectID {
	ec, err := p.main(o)
	if err != nil {
		return ""
	}
	return ec.win
}

// Dispose releases a handle; an unknown or already released one is fine.
func (p *Page) Dispose(ctx context.Context, h string) error {
	o := p.begin(ctx, 5*time.Second)
	defer o.end()
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

// EvaluateAll calls c.Source with every current match of the locator (an
// array, possibly empty) and c's argument; it does not wait.
func (l *Locator) EvaluateAll(ctx context.Context, c JSCall, timeout time.Duration) (*JSResult, error) {
	if !isFunctionSource(c.Source) {
		return nil, newErr(ErrInvalidParams, "evaluate_all needs a function source, such as (elements, arg) => ...")
	}
	o := l.p.begin(ctx, timeout)
	defer o.end()
	o.customMain = true // the matches go to the page's world: find them there
	hs, err := l.resolveNow(o)
	if err != nil {
		return nil, err
	}
	// The engine's handles live in wright's isolated world; user code runs
	// in the page's.
	objs := make([]proto.RuntimeRemoteObjectID, len(hs))
	for i, h := range hs {
		if objs[i], err = l.p.pageObject(o, h); err != nil {
			return nil, o.fail(err, "")
		}
	}
	var target proto.RuntimeRemoteObjectID
	if len(hs) > 0 {
		target = objs[0]
	} else {
		ec, err := l.p.main(o)
		if err != nil {
			return nil, o.fail(err, "")
		}
		target = ec.win
	}
	args := []*proto.RuntimeCallArgument{{}, {Value: gson.New(len(hs))}}
	if len(c.Arg) > 0 {
		var v any
		if err := json.Unmarshal(c.Arg, &v); err != nil {
			return nil, newErr(ErrInvalidParams, "arg is not valid JSON: %v", err)
		}
		args[0] = &proto.RuntimeCallArgument{Value: gson.New(v)}
	}
	for _, obj := range objs {
		args = append(args, &proto.RuntimeCallArgument{ObjectID: obj})
	}
	for _, h := range c.Handles {
		args = append(args, &proto.RuntimeCallArgument{ObjectID: proto.RuntimeRemoteObjectID(h)})
	}
	decl := "async function (__wa, __wn, ...__wh) {\n" +
		"const __w = (" + transferJS + ")();\n" +
		"const __f = (\n" + trimSource(c.Source) + "\n);\n" +
		"const __els = __wh.slice(0, __wn);\n" +
		"const __a = __w.decode(__wa, __wh.slice(__wn));\n" +
		"return __w.encode(await __f(__els, __a));\n}"
	res, err := proto.RuntimeCallFunctionOn{
		ObjectID: target, FunctionDeclaration: decl, Arguments: args,
		ReturnByValue: true, AwaitPromise: true, UserGesture: true, ObjectGroup: o.objectGroup(),
	}.Call(o.rodPage())
	if err != nil {
		return nil, o.fail(l.p.jsErr(err), "")
	}
	if res.ExceptionDetails != nil {
		return nil, evalErr(res.ExceptionDetails)
	}
	return &JSResult{Value: evalResult(res.Result)}, nil
}

// trimSource drops the whitespace and semicolons a function source may end
// with ("x => f(x);"), which cannot stand inside the parentheses it is
// wrapped in.
func trimSource(src string) string {
	return strings.TrimRight(strings.TrimSpace(src), "; \t\r\n")
}
