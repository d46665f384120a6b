package browser

import (
	"encoding/json"

	"github.com/go-rod/rod/lib/proto"
)

// A function that wright compiles with Runtime.callFunctionOn counts as
// foreign code to Chromium: an error it throws later (from a timer's
// callback) reaches pageerror as text only, "[object Object]", without the
// thrown value. A function compiled by eval from a script that
// Runtime.evaluate compiled is not, and its errors carry the value (a
// thrown {} reads "Object", an Error keeps its own name). A page whose CSP
// forbids eval, or has replaced it, gets the function as callFunctionOn
// compiled it.
const compilerJS = `((ev) => (src, direct) => {
  let f;
  try { f = ev('(' + src + '\n)'); } catch (e) { return direct(); }
  return typeof f === 'function' ? f : direct();
})(globalThis.eval)`

// evalCompiler returns the compiler of the main frame's main world, made
// once per document.
func (p *Page) evalCompiler(o *op, ec *execCtx) (proto.RuntimeRemoteObjectID, error) {
	p.mu.Lock()
	c := ec.compiler
	p.mu.Unlock()
	if c != "" {
		return c, nil
	}
	res, err := proto.RuntimeEvaluate{Expression: compilerJS, ObjectGroup: engineGroup}.Call(o.rodPage())
	if err != nil {
		return "", p.jsErr(err)
	}
	if res.ExceptionDetails != nil || res.Result.ObjectID == "" {
		return "", nil // no compiler: functions are compiled as before
	}
	p.mu.Lock()
	ec.compiler = res.Result.ObjectID
	p.mu.Unlock()
	return res.Result.ObjectID, nil
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// emitLogEntry reports a message of the browser itself (a CORS refusal, a
// resource that failed to load, an intervention) as a console message of
// its level, as Playwright does; a worker's entries are left out.
func (p *Page) emitLogEntry(e *proto.LogLogEntry) {
	if e.Source == proto.LogLogEntrySourceWorker {
		return
	}
	line := 0
	if e.LineNumber != nil {
		line = *e.LineNumber
	}
	p.emit("page.console", map[string]any{"type": string(e.Level), "text": e.Text, "url": e.URL, "line": line,
		"column": 0, "args": []map[string]any{}})
}
