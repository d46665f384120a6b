package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
	"wright/internal/pause"
)

var (
	funcStart  = regexp.MustCompile(`^(async\s+)?function[\s*(]`)
	arrowIdent = regexp.MustCompile(`^(async\s+)?[A-Za-z_$][\w$]*\s*=>`)
	asyncParen = regexp.MustCompile(`^async\s*\(`)
)

// isFunctionSource tells a function (function ..., async ..., (a) => ...,
// a => ...) from an expression, without running it: running an expression
// to find out would run its side effects twice.
func isFunctionSource(src string) bool {
	s := strings.TrimSpace(src)
	if funcStart.MatchString(s) || arrowIdent.MatchString(s) {
		return true
	}
	if loc := asyncParen.FindStringIndex(s); loc != nil {
		s = s[loc[1]-1:]
	}
	if !strings.HasPrefix(s, "(") {
		return false
	}
	end := matchingParen(s)
	if end < 0 {
		return false
	}
	return strings.HasPrefix(strings.TrimSpace(s[end+1:]), "=>")
}

// matchingParen returns the index of the ) closing s[0], skipping strings,
// template literals and comments.
func matchingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\'', '`':
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(s) && s[i+1] == '/' {
				for i < len(s) && s[i] != '\n' {
					i++
				}
			} else if i+1 < len(s) && s[i+1] == '*' {
				if j := strings.Index(s[i+2:], "*/"); j >= 0 {
					i += j + 3
				}
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// evalResult turns a by-value remote object into JSON. Values JSON cannot
// hold (NaN, Infinity, -0, BigInt) come back as their JavaScript text.
func evalResult(r *proto.RuntimeRemoteObject) json.RawMessage {
	if r == nil || r.Type == proto.RuntimeRemoteObjectTypeUndefined {
		return json.RawMessage("null")
	}
	if r.UnserializableValue != "" {
		b, _ := json.Marshal(string(r.UnserializableValue))
		return b
	}
	if r.Type == proto.RuntimeRemoteObjectTypeFunction {
		return json.RawMessage("null")
	}
	return json.RawMessage(r.Value.JSON("", ""))
}

func evalErr(d *proto.RuntimeExceptionDetails) error {
	text := exceptionText(d)
	lines := strings.Split(text, "\n")
	if len(lines) > 8 {
		lines = append(lines[:8], "    ...")
	}
	return newErr(ErrEvaluation, "evaluation failed: %s", strings.Join(lines, "\n"))
}

func callArgs(arg json.RawMessage) ([]*proto.RuntimeCallArgument, error) {
	if len(arg) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(arg, &v); err != nil {
		return nil, newErr(ErrInvalidParams, "arg is not valid JSON: %v", err)
	}
	return []*proto.RuntimeCallArgument{{Value: gson.New(v)}}, nil
}

func (p *Page) evalCDPErr(o *op, err error) error {
	p.b.settle(err)
	if e := p.closedErr(); e != nil {
		return e
	}
	if o.ctx.Err() != nil {
		return o.fail(err, "waiting for the evaluation to finish (a promise that never settles?)")
	}
	s := err.Error()
	switch {
	case strings.Contains(s, "Execution context was destroyed"), strings.Contains(s, "Inspected target navigated or closed"):
		// Chromium's phrase stays in the message: code that polls across
		// navigations (wait_for_function) knows the error by it.
		return newErr(ErrEvaluation, "evaluation failed: Execution context was destroyed: the page navigated while the code ran; wait for the navigation to finish and evaluate again")
	case strings.Contains(s, "Object reference chain is too long"), strings.Contains(s, "Object couldn't be returned by value"):
		return newErr(ErrEvaluation, "evaluation failed: the result cannot be serialised to JSON (a DOM node, a cyclic object or a window?); return plain data instead")
	}
	return asError(err)
}

// Evaluate runs JavaScript in the page's main frame: a function source is
// called with arg, anything else is evaluated as an expression (top-level
// await allowed). Promises are awaited; the value comes back as JSON.
func (p *Page) Evaluate(ctx context.Context, src string, arg json.RawMessage, timeout time.Duration) (json.RawMessage, error) {
	if strings.TrimSpace(src) == "" {
		return nil, newErr(ErrInvalidParams, "evaluate needs an expression or a function")
	}
	args, err := callArgs(arg)
	if err != nil {
		return nil, err
	}
	if err := p.closedErr(); err != nil {
		return nil, err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	if !isFunctionSource(src) {
		return p.evalExpression(o, src)
	}
	for {
		ec, err := p.main(o)
		if err == nil {
			var res *proto.RuntimeCallFunctionOnResult
			res, err = proto.RuntimeCallFunctionOn{
				ObjectID: ec.win, FunctionDeclaration: src, Arguments: args,
				ReturnByValue: true, AwaitPromise: true, UserGesture: true, ObjectGroup: o.objectGroup(),
			}.Call(o.rodPage())
			if err == nil {
				if res.ExceptionDetails != nil {
					return nil, evalErr(res.ExceptionDetails)
				}
				return evalResult(res.Result), nil
			}
			// Only a window that vanished before the call ran is retried; the
			// code itself must never run twice.
			if strings.Contains(err.Error(), "Could not find object with given id") || strings.Contains(err.Error(), "Cannot find context with specified id") {
				p.mu.Lock()
				p.forgetContextsLocked()
				p.mu.Unlock()
				err = errRetry
			}
		}
		if !errors.Is(err, errRetry) {
			return nil, p.evalCDPErr(o, err)
		}
		if err := pause.For(o.ctx, 50*time.Millisecond); err != nil {
			return nil, o.fail(err, "waiting for the page to finish navigating before evaluating")
		}
	}
}

// evalExpression evaluates src in REPL mode (let redeclarations and
// top-level await work), then awaits a promise it ends with and fetches the
// value as JSON.
func (p *Page) evalExpression(o *op, src string) (json.RawMessage, error) {
	res, err := proto.RuntimeEvaluate{
		Expression: src, AwaitPromise: true, ReplMode: true, UserGesture: true, ObjectGroup: o.objectGroup(),
	}.Call(o.rodPage())
	if err != nil {
		return nil, p.evalCDPErr(o, err)
	}
	if res.ExceptionDetails != nil {
		return nil, evalErr(res.ExceptionDetails)
	}
	r := res.Result
	if r.ObjectID == "" {
		return evalResult(r), nil
	}
	if r.Subtype == proto.RuntimeRemoteObjectSubtypePromise {
		aw, err := proto.RuntimeAwaitPromise{PromiseObjectID: r.ObjectID, ReturnByValue: true}.Call(o.rodPage())
		if err != nil {
			return nil, p.evalCDPErr(o, err)
		}
		if aw.ExceptionDetails != nil {
			return nil, evalErr(aw.ExceptionDetails)
		}
		return evalResult(aw.Result), nil
	}
	v, err := proto.RuntimeCallFunctionOn{ObjectID: r.ObjectID, FunctionDeclaration: "function () { return this; }", ReturnByValue: true}.Call(o.rodPage())
	if err != nil {
		return nil, p.evalCDPErr(o, err)
	}
	if v.ExceptionDetails != nil {
		return nil, evalErr(v.ExceptionDetails)
	}
	return evalResult(v.Result), nil
}

// Evaluate calls a function with the element first, then arg. An expression
// source is evaluated with the element as this.
func (l *Locator) Evaluate(ctx context.Context, src string, arg json.RawMessage, timeout time.Duration) (json.RawMessage, error) {
	if strings.TrimSpace(src) == "" {
		return nil, newErr(ErrInvalidParams, "evaluate needs an expression or a function")
	}
	args, err := callArgs(arg)
	if err != nil {
		return nil, err
	}
	fn := src
	if !isFunctionSource(src) {
		fn = "function () { return (\n" + src + "\n); }"
	}
	o := l.p.begin(ctx, timeout)
	defer o.end()
	h, err := l.waitOne(o, stateAttached, "")
	if err != nil {
		return nil, err
	}
	// The user's function runs in the page's world, not wright's.
	obj, err := l.p.pageObject(o, h)
	if err != nil {
		return nil, o.fail(err, "")
	}
	res, err := proto.RuntimeCallFunctionOn{
		ObjectID: obj, FunctionDeclaration: fn, Arguments: append([]*proto.RuntimeCallArgument{{ObjectID: obj}}, args...),
		ReturnByValue: true, AwaitPromise: true, UserGesture: true, ObjectGroup: o.objectGroup(),
	}.Call(o.rodPage())
	if err != nil {
		return nil, l.p.evalCDPErr(o, err)
	}
	if res.ExceptionDetails != nil {
		return nil, evalErr(res.ExceptionDetails)
	}
	return evalResult(res.Result), nil
}

// AddInitScriptID is AddInitScript that also returns the script's id, for
// RemoveInitScript (Playwright's disposable add_init_script).
func (p *Page) AddInitScriptID(ctx context.Context, source string) (string, error) {
	if err := p.closedErr(); err != nil {
		return "", err
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	res, err := proto.PageAddScriptToEvaluateOnNewDocument{Source: source}.Call(o.rodPage())
	if err != nil {
		return "", o.fail(p.jsErr(err), "")
	}
	return string(res.Identifier), nil
}

// setNamedScript replaces the page's init script called name: the new one
// is added before the old one goes, so no document starts with neither.
func (p *Page) setNamedScript(ctx context.Context, name, source string) error {
	p.mu.Lock()
	old := p.named[name]
	p.mu.Unlock()
	id := ""
	if source != "" {
		var err error
		if id, err = p.AddInitScriptID(ctx, source); err != nil {
			return err
		}
	}
	if old != "" {
		if err := p.RemoveInitScript(ctx, old); err != nil {
			return err
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.named == nil {
		p.named = map[string]string{}
	}
	if id == "" {
		delete(p.named, name)
	} else {
		p.named[name] = id
	}
	return nil
}

// RemoveInitScript stops an init script from running in the documents
// loaded from now on; an unknown id is fine.
func (p *Page) RemoveInitScript(ctx context.Context, id string) error {
	if err := p.closedErr(); err != nil {
		return nil
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	_ = proto.PageRemoveScriptToEvaluateOnNewDocument{Identifier: proto.PageScriptIdentifier(id)}.Call(o.rodPage())
	return nil
}

// transferJS encodes and decodes values crossing js.call (see driver/PROTOCOL.md,
// "Value transfer").
//
//go:embed transfer.js
var transferJS string

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
	// NoAwait leaves a promise the function returns as it is (a handle's
	// property that is a promise stays one: JSHandle.get_property).
	NoAwait bool
	// Worker, if set, is the dedicated worker (its id) the call runs in
	// (workers.go); a call on a worker's handles runs there without it.
	Worker string
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
	w, err := p.workerFor(c)
	if err != nil {
		return nil, err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	if w != nil {
		return w.call(o, c)
	}
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
	args, err := callArguments(&proto.RuntimeCallArgument{ObjectID: compiler}, c, target)
	if err != nil {
		return nil, err
	}
	res, err := proto.RuntimeCallFunctionOn{
		ObjectID: target, FunctionDeclaration: callDeclaration(fn, c), Arguments: args,
		ReturnByValue: !c.ReturnHandle, AwaitPromise: !c.NoAwait, UserGesture: true, ObjectGroup: p.resultGroup(o, c),
	}.Call(o.rodPage())
	if err != nil {
		return nil, p.callErr(o, err, c.Element != "" || c.Context != "")
	}
	if res.ExceptionDetails != nil {
		return nil, evalErr(res.ExceptionDetails)
	}
	return p.jsResult(o, res.Result, c.ReturnHandle)
}

// callDeclaration wraps the client's function fn for Runtime.callFunctionOn:
// its arguments are the page's compiler (or undefined), the transferred
// argument, whether an element comes first, then the handles; its result is
// transfer-encoded, or kept as an object for c.ReturnHandle. With c.NoAwait
// the function is not async and its result is not awaited.
func callDeclaration(fn string, c JSCall) string {
	ret := "__w.encode(__r)"
	if c.ReturnHandle {
		ret = "__r"
	}
	if c.NoAwait {
		return "function (__wc, __wa, __we, ...__wh) {\n" +
			"const __wcompile = (src, direct) => __wc ? __wc(src, direct) : direct();\n" +
			"const __w = (" + transferJS + ")();\n" +
			"const __f = __wcompile(" + jsString(fn) + ", () => (\n" + fn + "\n));\n" +
			"const __el = __we ? __wh.shift() : undefined;\n" +
			"const __a = __w.decode(__wa, __wh);\n" +
			"const __r = __we ? __f(__el, __a) : __f(__a);\n" +
			"return " + ret + ";\n}"
	}
	return "async function (__wc, __wa, __we, ...__wh) {\n" +
		"const __wcompile = (src, direct) => __wc ? __wc(src, direct) : direct();\n" +
		"const __w = (" + transferJS + ")();\n" +
		"const __f = __wcompile(" + jsString(fn) + ", () => (\n" + fn + "\n));\n" +
		"const __el = __we ? __wh.shift() : undefined;\n" +
		"const __a = __w.decode(__wa, __wh);\n" +
		"const __r = __we ? await __f(__el, __a) : await __f(__a);\n" +
		"return " + ret + ";\n}"
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
		enc, err := encodePrimitive(o.p.mustWin(o), r).Call(o.rodPage())
		if err != nil {
			return nil, p.evalCDPErr(o, err)
		}
		out.Value = evalResult(enc.Result)
		return out, nil
	}
	out.Handle = string(r.ObjectID)
	return out, nil
}

// encodePrimitive transfer-encodes a primitive result, on the object target.
// Infinity, NaN, -0 and BigInts cannot be passed back as an argument: a
// call argument always carries "value" (null when unset), which Chromium
// takes over unserializableValue. Their CDP form is a JavaScript literal,
// so it is written into the function instead.
func encodePrimitive(target proto.RuntimeRemoteObjectID, r *proto.RuntimeRemoteObject) proto.RuntimeCallFunctionOn {
	if u := string(r.UnserializableValue); u != "" && unserializableLiteral.MatchString(u) {
		return proto.RuntimeCallFunctionOn{ObjectID: target, ReturnByValue: true,
			FunctionDeclaration: "function () { return (" + transferJS + ")().encode(" + u + "); }"}
	}
	return proto.RuntimeCallFunctionOn{ObjectID: target, ReturnByValue: true,
		FunctionDeclaration: "function (v) { return (" + transferJS + ")().encode(v); }",
		Arguments:           []*proto.RuntimeCallArgument{{Value: r.Value}}}
}

// unserializableLiteral is what CDP's unserializableValue holds: Infinity,
// -Infinity, NaN, -0 or a BigInt literal (nothing else is written into code).
var unserializableLiteral = regexp.MustCompile(`^(-?Infinity|NaN|-0|-?[0-9]+n)$`)

func (p *Page) mustWin(o *op) proto.RuntimeRemoteObjectID {
	ec, err := p.main(o)
	if err != nil {
		return ""
	}
	return ec.win
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

// AddInitScript runs source in every document the page loads from now on,
// before the document's own scripts.
func (p *Page) AddInitScript(ctx context.Context, source string) error {
	if err := p.closedErr(); err != nil {
		return err
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: source}).Call(o.rodPage()); err != nil {
		return o.fail(p.jsErr(err), "")
	}
	return nil
}

// bindingPrefix names the CDP bindings behind exposed functions; the page
// sees its function under the name the client chose.
const bindingPrefix = "__wright_binding_"

// bindingShim defines window[name] in a document: a call sends its
// transfer-encoded arguments through the CDP binding and returns a promise
// the client settles with page.binding_result.
func bindingShim(name string) string {
	n, _ := json.Marshal(name)
	return "(() => { const name = " + string(n) + "; const w = (" + transferJS + ")();\n" +
		"const send = globalThis['" + bindingPrefix + "' + name]; if (!send) return;\n" +
		"const slot = '__wright_pending_' + name; const pending = globalThis[slot] = new Map(); let seq = 0;\n" +
		"globalThis[name] = (...args) => new Promise((resolve, reject) => { const id = ++seq;\n" +
		"  pending.set(id, {resolve, reject}); send(JSON.stringify({id, args: w.encode(args)})); });\n" +
		"globalThis['__wright_settle_' + name] = (id, ok, value) => { const p = pending.get(id); if (!p) return;\n" +
		"  pending.delete(id); if (ok) { p.resolve(w.decode(value, [])); return; }\n" +
		// A failure is the client's message, or {message, stack} with the stack of the client's callback.
		"  const e = new Error(value && typeof value === 'object' ? value.message : value);\n" +
		"  if (value && typeof value === 'object' && value.stack) e.stack = 'Error: ' + value.message + '\\n' + value.stack;\n" +
		"  p.reject(e); };\n" +
		"})()"
}

// ExposeBinding makes window[name] call back into the client in this page's
// documents, present and future (page.binding events).
func (p *Page) ExposeBinding(ctx context.Context, name string) error {
	if name == "" {
		return newErr(ErrInvalidParams, "expose_binding needs a name")
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	if err := (proto.RuntimeAddBinding{Name: bindingPrefix + name}).Call(o.rodPage()); err != nil {
		return o.fail(p.jsErr(err), "")
	}
	shim := bindingShim(name)
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: shim}).Call(o.rodPage()); err != nil {
		return o.fail(p.jsErr(err), "")
	}
	// The main frame's current document gets it now; new documents (frames
	// included) get it from the script above.
	if _, err := (proto.RuntimeEvaluate{Expression: shim}).Call(o.rodPage()); err != nil {
		return o.fail(p.jsErr(err), "")
	}
	p.evalInChildFrames(o, shim)
	return nil
}

// SettleBinding answers one call of an exposed function in the context it
// came from.
func (p *Page) SettleBinding(ctx context.Context, name string, contextID int, id int, ok bool, value json.RawMessage) error {
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	n, _ := json.Marshal(name)
	if len(value) == 0 {
		value = json.RawMessage("null")
	}
	var v any
	if err := json.Unmarshal(value, &v); err != nil {
		return newErr(ErrInvalidParams, "value is not valid JSON: %v", err)
	}
	_, err := proto.RuntimeCallFunctionOn{
		ExecutionContextID:  proto.RuntimeExecutionContextID(contextID),
		FunctionDeclaration: "function (id, ok, value) { const f = globalThis['__wright_settle_' + " + string(n) + "]; if (f) f(id, ok, value); }",
		Arguments:           []*proto.RuntimeCallArgument{{Value: gson.New(id)}, {Value: gson.New(ok)}, {Value: gson.New(v)}},
	}.Call(o.rodPage())
	if err != nil && !strings.Contains(err.Error(), "Cannot find context") {
		return o.fail(p.jsErr(err), "")
	}
	return nil
}

// RequestGC asks the page's JavaScript engine to collect garbage now
// (Playwright's page.request_gc), so a test can see a WeakRef cleared.
func (p *Page) RequestGC(ctx context.Context) error {
	if err := p.closedErr(); err != nil {
		return err
	}
	o := p.begin(ctx, 0)
	defer o.end()
	if err := callCDP(o.rodPage(), proto.HeapProfilerCollectGarbage{}); err != nil {
		return o.fail(err, "collecting garbage")
	}
	return nil
}

// callArguments are a js.call's arguments to the engine's call wrapper
// (callDeclaration), after first (the page's compiler, or nothing where there
// is none, as in a worker): the argument, whether there is an element, the
// element, then the handles the argument refers to.
func callArguments(first *proto.RuntimeCallArgument, c JSCall, target proto.RuntimeRemoteObjectID) ([]*proto.RuntimeCallArgument, error) {
	args := []*proto.RuntimeCallArgument{first}
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
	return args, nil
}
