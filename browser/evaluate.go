package browser

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"

	"wright/browser/aria"
	"wright/pause"
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
		return newErr(ErrEvaluation, "evaluation failed: the page navigated while the code ran (its execution context was destroyed); wait for the navigation to finish and evaluate again")
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

// ---- screenshots ---------------------------------------------------------------

// Screenshot captures the viewport, or the whole page with fullPage, as PNG.
func (p *Page) Screenshot(ctx context.Context, fullPage bool, timeout time.Duration) ([]byte, error) {
	return p.Capture(ctx, ShotOptions{FullPage: fullPage}, timeout)
}

func roundPx(f float64) float64 {
	if f < 1 {
		return 1
	}
	return float64(int(f + 0.5))
}

// Screenshot captures the element (scrolled into view) as PNG.
func (l *Locator) Screenshot(ctx context.Context, timeout time.Duration) ([]byte, error) {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	_, _, box, err := l.actionableBox(o, action{name: "screenshot", visible: true, stable: true, position: &Point{}})
	if err != nil {
		return nil, err
	}
	if err := l.p.ensureVisible(o); err != nil {
		return nil, o.fail(err, "")
	}
	m, err := proto.PageGetLayoutMetrics{}.Call(o.rodPage())
	if err != nil {
		return nil, o.fail(err, "measuring the page")
	}
	clip := &proto.PageViewport{X: box.X, Y: box.Y, Width: box.Width, Height: box.Height, Scale: 1}
	if m.CSSVisualViewport != nil {
		// The clip is in document coordinates; the box is in the viewport's.
		clip.X += m.CSSVisualViewport.PageX
		clip.Y += m.CSSVisualViewport.PageY
	}
	shot, err := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng, Clip: clip, CaptureBeyondViewport: true}.Call(o.rodPage())
	if err != nil {
		return nil, o.fail(err, "taking the screenshot")
	}
	return shot.Data, nil
}

// ---- aria snapshots ------------------------------------------------------------

// AriaOptions shape an ARIA snapshot; Ref or Selector scope it to one element.
type AriaOptions struct {
	InteractiveOnly bool
	MaxDepth        int
	MaxChars        int
	Ref             string
	Selector        string
	// NoRefs leaves out the [ref=eN] markers (Playwright's snapshot format,
	// for locator.aria_snapshot and to_match_aria_snapshot).
	NoRefs bool
}

// AriaSnapshot renders the page (or the scoped element) as ARIA snapshot
// YAML, with refs for the elements that can be acted on.
func (p *Page) AriaSnapshot(ctx context.Context, opts AriaOptions, timeout time.Duration) (string, error) {
	if opts.Ref != "" && opts.Selector != "" {
		return "", newErr(ErrInvalidParams, "give ref or selector, not both")
	}
	if opts.MaxDepth < 0 || opts.MaxChars < 0 {
		return "", newErr(ErrInvalidParams, "max_depth and max_chars must be 0 (no limit) or positive")
	}
	if err := p.closedErr(); err != nil {
		return "", err
	}
	var l *Locator
	if opts.Selector != "" {
		var err error
		if l, err = p.Locator(opts.Selector); err != nil {
			return "", err
		}
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	return p.ariaSnapshot(o, opts, l)
}

func (p *Page) ariaSnapshot(o *op, opts AriaOptions, l *Locator) (string, error) {
	ao := aria.Options{InteractiveOnly: opts.InteractiveOnly, MaxDepth: opts.MaxDepth, MaxChars: opts.MaxChars}
	var h handle
	var err error
	switch {
	case opts.Ref != "":
		h, err = p.resolveRef(o, opts.Ref)
	case l != nil:
		h, err = l.waitOne(o, stateAttached, "")
	}
	if err != nil {
		return "", o.fail(err, "")
	}
	if h.obj != "" {
		if ao.Scope, err = p.nodeID(o, h); err != nil {
			return "", o.fail(err, "")
		}
	}
	reg := p.aria
	if opts.NoRefs {
		reg = nil
	}
	snap, err := aria.Snapshot(o.ctx, p.rod, reg, ao)
	if err != nil {
		var stale *aria.StaleRefError
		if errors.As(err, &stale) {
			return "", wrapErr(ErrStaleRef, err, "%s", stale.Error())
		}
		if e := p.closedErr(); e != nil {
			return "", e
		}
		if o.ctx.Err() != nil {
			return "", o.fail(err, "taking the aria snapshot")
		}
		return "", wrapErr(ErrBrowser, err, "aria snapshot: %v", err)
	}
	return snap, nil
}

// AriaSnapshot renders the one element the locator matches.
func (l *Locator) AriaSnapshot(ctx context.Context, opts AriaOptions, timeout time.Duration) (string, error) {
	if opts.Ref != "" || opts.Selector != "" {
		return "", newErr(ErrInvalidParams, "locator.aria_snapshot is scoped by its selector; ref and selector are for page.aria_snapshot")
	}
	o := l.p.begin(ctx, timeout)
	defer o.end()
	return l.p.ariaSnapshot(o, opts, l)
}
