package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

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

// AnswerDialog accepts or dismisses the dialog open on the page; promptText
// (accept only) replaces a prompt's default value.
func (p *Page) AnswerDialog(ctx context.Context, accept bool, promptText *string) error {
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	req := proto.PageHandleJavaScriptDialog{Accept: accept}
	if promptText != nil {
		req.PromptText = *promptText
	}
	if err := req.Call(o.rodPage()); err != nil {
		return wrapErr(ErrInvalidParams, err, "no dialog to answer: %s", cdpMessage(err))
	}
	return nil
}

// ResponseBody is the body of a response the page received (by the request
// id of its page.request event).
func (p *Page) ResponseBody(ctx context.Context, request string) ([]byte, error) {
	o := p.begin(ctx, 30*time.Second)
	defer o.end()
	res, err := proto.NetworkGetResponseBody{RequestID: proto.NetworkRequestID(request)}.Call(o.rodPage())
	if err != nil {
		return nil, wrapErr(ErrBrowser, err, "response body unavailable (%s)", cdpMessage(err))
	}
	if res.Base64Encoded {
		return base64.StdEncoding.DecodeString(res.Body)
	}
	return []byte(res.Body), nil
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
