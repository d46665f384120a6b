package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"wright/browser/aria"
)

// ConsoleMessage is one console API call of a page.
type ConsoleMessage struct {
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url"`
	Line int    `json:"line"`
}

// PageError is an uncaught exception of a page.
type PageError struct {
	Message string `json:"message"`
	Stack   string `json:"stack"`
}

// Dialog is an alert, confirm, prompt or beforeunload dialog; all are
// accepted as they open (a prompt with its default value).
type Dialog struct {
	Type         string `json:"type"`
	Message      string `json:"message"`
	DefaultValue string `json:"default_value"`
}

// maxLog bounds each per-page log so a chatty page cannot grow the driver
// without limit; the oldest entries go first.
const maxLog = 2000

// Page is one tab. Its methods are safe for concurrent use.
type Page struct {
	b       *Browser
	rod     *rod.Page
	id      string
	opener  string
	popup   bool        // opened by another page
	created bool        // opened by this driver (not adopted from an attached browser)
	ready   atomic.Bool // set up; only ready pages are listed

	ctx    context.Context // the page's life
	cancel context.CancelFunc

	aria *aria.Registry

	navs navWatches // actions waiting for the navigations they start (navwait.go)

	groupSeq atomic.Int64 // object groups, one per operation

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change
	closed  string        // why the page is closed; "" while open

	url      string
	loader   proto.NetworkLoaderID
	events   map[proto.NetworkLoaderID]map[string]bool
	status   map[proto.NetworkLoaderID]int
	navSeq   int
	blocked  []blockedNav
	console  []ConsoleMessage
	errors   []PageError
	dialogs  []Dialog
	contexts map[proto.RuntimeRemoteObjectID]*execCtx // by window object id
	mainCtx  *execCtx
	frameCtx map[proto.DOMBackendNodeID]*execCtx // by a frame's content document

	inputMu sync.Mutex // one input sequence at a time
	mouseX  float64
	mouseY  float64
	routing atomic.Bool // a client decides this page's requests (intercept.go)
	held    int         // modifier bits of keys held down by KeyDown
	buttons int         // mouse buttons held down by MouseDown

	drag     *proto.InputDragData // an intercepted HTML5 drag in progress (drag.go)
	keysDown map[string]bool      // keys down now, by code: a second down is a repeat (keys_pw.go)
	flush    flusher              // the event barrier (flush_pw.go)
	context  string               // the client's context id (context_defaults.go)
}

type blockedNav struct {
	url string
	err error
	at  time.Time
}

func newPage(b *Browser, rp *rod.Page, id, opener string) *Page {
	ctx, cancel := context.WithCancel(b.ctx)
	return &Page{
		b: b, rod: rp, id: id, opener: opener,
		ctx: ctx, cancel: cancel,
		aria:     aria.NewRegistry(),
		changed:  make(chan struct{}),
		events:   map[proto.NetworkLoaderID]map[string]bool{},
		status:   map[proto.NetworkLoaderID]int{},
		contexts: map[proto.RuntimeRemoteObjectID]*execCtx{},
		frameCtx: map[proto.DOMBackendNodeID]*execCtx{},
	}
}

// setup enables the domains the page needs and starts its event pump.
// emulate applies the browser's viewport (done only for the pages we
// created and their popups, never for someone else's tabs).
func (p *Page) setup(ctx context.Context, emulate bool) error {
	events := p.rod.Context(p.ctx).Event() // subscribe before enabling, so nothing is missed
	p.b.wg.Add(1)
	go func() {
		defer p.b.wg.Done()
		p.pump(events)
	}()
	r := p.rod.Context(ctx)
	calls := []proto.Request{
		proto.RuntimeEnable{},
		proto.NetworkEnable{},
		proto.PageSetLifecycleEventsEnabled{Enabled: true},
		proto.LogEnable{}, // the browser's own messages (CORS, failed loads) are console messages too
	}
	if emulate {
		vp := p.b.opts.viewport()
		calls = append(calls, proto.EmulationSetDeviceMetricsOverride{Width: vp.Width, Height: vp.Height, DeviceScaleFactor: 1})
		// Every page behaves as the focused one, as Playwright's do: focus and
		// blur events fire, document.hasFocus() holds, in background tabs too.
		calls = append(calls, proto.EmulationSetFocusEmulationEnabled{Enabled: true})
	}
	if pats := p.interceptPatterns(); pats != nil {
		calls = append(calls, proto.FetchEnable{Patterns: pats})
	}
	for _, c := range calls {
		if err := callCDP(r, c); err != nil {
			return wrapErr(ErrBrowser, err, "set up page %s: %s: %s", p.id, c.ProtoReq(), cdpMessage(err))
		}
	}
	tree, err := proto.PageGetFrameTree{}.Call(r)
	if err != nil {
		return wrapErr(ErrBrowser, err, "set up page %s: %s", p.id, cdpMessage(err))
	}
	ready := ""
	if v, err := (proto.RuntimeEvaluate{Expression: "document.readyState", ReturnByValue: true}).Call(r); err == nil && v.Result != nil {
		ready = v.Result.Value.Str()
	}
	p.mu.Lock()
	if p.url == "" {
		p.url = tree.FrameTree.Frame.URL
	}
	if p.loader == "" {
		p.loader = tree.FrameTree.Frame.LoaderID
	}
	// Lifecycle events that fired before we listened are inferred from the
	// document's state.
	ev := p.loaderEvents(p.loader)
	ev["init"] = true // the document is there: committed
	switch ready {
	case "complete":
		ev["DOMContentLoaded"], ev["load"] = true, true
		if isBlankURL(p.url) {
			ev["networkIdle"] = true
		}
	case "interactive":
		ev["DOMContentLoaded"] = true
	}
	p.broadcastLocked()
	p.mu.Unlock()
	return nil
}

// callCDP sends a request whose result we do not need.
func callCDP(c proto.Client, req proto.Request) error {
	ctx := context.Background()
	if cc, ok := c.(proto.Contextable); ok {
		ctx = cc.GetContext()
	}
	session := ""
	if s, ok := c.(proto.Sessionable); ok {
		session = string(s.GetSessionID())
	}
	_, err := c.Call(ctx, session, req.ProtoReq(), req)
	return err
}

func (p *Page) loaderEvents(l proto.NetworkLoaderID) map[string]bool {
	ev := p.events[l]
	if ev == nil {
		if len(p.events) > 64 {
			// Old navigations are never waited for again.
			for k := range p.events {
				if k != p.loader {
					delete(p.events, k)
					delete(p.status, k)
				}
			}
		}
		ev = map[string]bool{}
		p.events[l] = ev
	}
	return ev
}

func (p *Page) broadcastLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// pump records what the page does: navigations, lifecycle, console, errors
// and dialogs. It ends when the page's session ends.
func (p *Page) pump(events <-chan *rod.Message) {
	for msg := range events {
		p.observe(msg)
		p.noteNavigation(msg)
		switch msg.Method {
		case "Page.lifecycleEvent":
			var e proto.PageLifecycleEvent
			if msg.Load(&e) && e.FrameID == p.mainFrame() {
				p.mu.Lock()
				if e.Name == "init" {
					p.loader = e.LoaderID
				}
				p.loaderEvents(e.LoaderID)[string(e.Name)] = true
				p.broadcastLocked()
				p.mu.Unlock()
			}
		case "Page.frameNavigated":
			var e proto.PageFrameNavigated
			if msg.Load(&e) && e.Frame.ParentID == "" {
				p.mu.Lock()
				// The URL comes without its #fragment. A failed navigation
				// leaves Chromium's error page, chrome-error://chromewebdata/,
				// as Playwright reports it, never the URL that failed.
				p.url = e.Frame.URL + e.Frame.URLFragment
				p.loader = e.Frame.LoaderID
				p.navSeq++
				p.broadcastLocked()
				p.mu.Unlock()
			}
		case "Page.navigatedWithinDocument":
			var e proto.PageNavigatedWithinDocument
			if msg.Load(&e) && e.FrameID == p.mainFrame() {
				p.mu.Lock()
				p.url = e.URL
				p.navSeq++
				p.broadcastLocked()
				p.mu.Unlock()
			}
		case "Network.responseReceived":
			var e proto.NetworkResponseReceived
			if msg.Load(&e) && e.Type == proto.NetworkResourceTypeDocument && e.FrameID == p.mainFrame() {
				p.mu.Lock()
				p.status[e.LoaderID] = e.Response.Status
				p.mu.Unlock()
			}
		case "Runtime.consoleAPICalled":
			var e proto.RuntimeConsoleAPICalled
			if msg.Load(&e) {
				url, line := "", 0
				if e.StackTrace != nil && len(e.StackTrace.CallFrames) > 0 {
					url, line = e.StackTrace.CallFrames[0].URL, e.StackTrace.CallFrames[0].LineNumber+1
				}
				p.addConsole(consoleType(string(e.Type)), formatConsoleArgs(e.Args), url, line)
			}
		case "Runtime.exceptionThrown":
			var e proto.RuntimeExceptionThrown
			if msg.Load(&e) && e.ExceptionDetails != nil {
				p.addPageError(e.ExceptionDetails)
			}
		case "Page.javascriptDialogOpening":
			var e proto.PageJavascriptDialogOpening
			if msg.Load(&e) {
				p.mu.Lock()
				p.dialogs = appendCapped(p.dialogs, Dialog{Type: string(e.Type), Message: e.Message, DefaultValue: e.DefaultPrompt})
				p.broadcastLocked()
				p.mu.Unlock()
				if !p.b.clientDialogs() { // else a client answers it (page.dialog_answer)
					ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
					_ = proto.PageHandleJavaScriptDialog{Accept: true, PromptText: e.DefaultPrompt}.Call(p.rod.Context(ctx))
					cancel()
				}
			}
		case "Runtime.executionContextsCleared", "Runtime.executionContextDestroyed":
			p.mu.Lock()
			p.forgetContextsLocked()
			p.mu.Unlock()
		case "Runtime.bindingCalled":
			p.flushed(msg)
		case "Fetch.requestPaused":
			var e proto.FetchRequestPaused
			if msg.Load(&e) {
				p.decideRequest(&e)
			}
		case "Inspector.targetCrashed":
			p.markClosed("the page crashed")
		}
	}
	p.markClosed("the page was closed")
}

func (p *Page) mainFrame() proto.PageFrameID { return proto.PageFrameID(p.rod.TargetID) }

func appendCapped[T any](s []T, v T) []T {
	if len(s) >= maxLog {
		s = append(s[:0], s[len(s)-maxLog+1:]...)
	}
	return append(s, v)
}

func consoleType(t string) string {
	switch t {
	case "warning":
		return "warning"
	case "assert":
		return "assert"
	}
	return t
}

func (p *Page) addConsole(typ, text, url string, line int) {
	p.mu.Lock()
	p.console = appendCapped(p.console, ConsoleMessage{Type: typ, Text: text, URL: url, Line: line})
	p.broadcastLocked()
	p.mu.Unlock()
}

func (p *Page) addPageError(d *proto.RuntimeExceptionDetails) {
	msg, stack := d.Text, ""
	if d.Exception != nil {
		desc := d.Exception.Description
		if desc == "" && d.Exception.Value.Nil() == false {
			desc = d.Exception.Value.String()
		}
		if desc == "" && d.Exception.Subtype == proto.RuntimeRemoteObjectSubtypeNull {
			desc = "null"
		} else if desc == "" && d.Exception.Type == proto.RuntimeRemoteObjectTypeUndefined {
			desc = "undefined"
		}
		if desc != "" {
			stack = desc
			msg = strings.SplitN(desc, "\n", 2)[0]
		}
	}
	msg = strings.TrimPrefix(msg, "Uncaught ")
	p.mu.Lock()
	p.errors = appendCapped(p.errors, PageError{Message: msg, Stack: stack})
	p.broadcastLocked()
	p.mu.Unlock()
}

// formatConsoleArgs renders console arguments the way a person reads them.
func formatConsoleArgs(args []*proto.RuntimeRemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		parts = append(parts, formatRemote(a))
	}
	return strings.Join(parts, " ")
}

func formatRemote(a *proto.RuntimeRemoteObject) string {
	switch a.Type {
	case proto.RuntimeRemoteObjectTypeString:
		return a.Value.Str()
	case proto.RuntimeRemoteObjectTypeUndefined:
		return "undefined"
	case proto.RuntimeRemoteObjectTypeNumber, proto.RuntimeRemoteObjectTypeBoolean, proto.RuntimeRemoteObjectTypeBigint:
		if a.UnserializableValue != "" {
			return string(a.UnserializableValue)
		}
		return a.Value.JSON("", "")
	case proto.RuntimeRemoteObjectTypeObject:
		if a.Subtype == proto.RuntimeRemoteObjectSubtypeNull {
			return "null"
		}
		// Plain objects and arrays show their contents; anything else its
		// class (Window, Promise, Map(2)), as Playwright's console text does.
		plain := a.Description == "Object" || a.Subtype == proto.RuntimeRemoteObjectSubtypeArray
		if a.Preview != nil && plain {
			return formatPreview(a.Preview)
		}
	}
	return a.Description
}

func formatPreview(pv *proto.RuntimeObjectPreview) string {
	var b strings.Builder
	arr := pv.Subtype == proto.RuntimeObjectPreviewSubtypeArray
	if arr {
		b.WriteString("[")
	} else {
		b.WriteString("{")
	}
	for i, prop := range pv.Properties {
		if i > 0 {
			b.WriteString(", ")
		}
		if !arr {
			b.WriteString(prop.Name + ": ")
		}
		// Strings unquoted, as Playwright's console text shows them: {foo: bar}.
		b.WriteString(prop.Value)
	}
	if pv.Overflow {
		b.WriteString(", ...")
	}
	if arr {
		b.WriteString("]")
	} else {
		b.WriteString("}")
	}
	return b.String()
}

func (p *Page) recordBlocked(url string, err error) {
	p.mu.Lock()
	p.blocked = appendCapped(p.blocked, blockedNav{url: url, err: err, at: time.Now()})
	p.broadcastLocked()
	p.mu.Unlock()
}

// blockedSince returns the first navigation the policy refused after t.
func (p *Page) blockedSince(t time.Time) *blockedNav {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.blocked {
		if !p.blocked[i].at.Before(t) {
			b := p.blocked[i]
			return &b
		}
	}
	return nil
}

func (p *Page) markClosed(reason string) {
	p.mu.Lock()
	first := p.closed == ""
	if first {
		p.closed = reason
		p.broadcastLocked()
	}
	p.mu.Unlock()
	p.cancel()
	if first {
		p.emit("page.close", map[string]any{"reason": reason})
	}
}

func (p *Page) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed != ""
}

// Err is the TargetClosed error for a closed page (or its broken
// browser's error), or nil while the page can be used.
func (p *Page) Err() error { return p.closedErr() }

// closedErr is the TargetClosed error for a closed page, or nil.
func (p *Page) closedErr() error {
	if err := p.b.Err(); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed == "" {
		return nil
	}
	return newErr(ErrTargetClosed, "Target page, context or browser has been closed: page %s is closed (%s); use another page from browser.pages or open a new one", p.id, p.closed)
}

// ID is the page's protocol id (p1, p2, ...).
func (p *Page) ID() string { return p.id }

// Opener is the id of the page that opened this one, or "".
func (p *Page) Opener() string { return p.opener }

// Rod exposes the underlying rod page (for the aria package and raw CDP).
func (p *Page) Rod() *rod.Page { return p.rod }

// AriaRegistry is the page's registry of snapshot refs.
func (p *Page) AriaRegistry() *aria.Registry { return p.aria }

// Browser is the browser the page belongs to.
func (p *Page) Browser() *Browser { return p.b }

// op is one call on a page: its context, its timeout, and how to describe
// what it was waiting for when that runs out.
type op struct {
	p       *Page
	ctx     context.Context
	cancel  context.CancelFunc
	timeout time.Duration
	group   string
	used    bool // group holds objects

	customMain bool // custom selector engines run in the page's main world (selectors_custom.go)
}

func (p *Page) begin(ctx context.Context, timeout time.Duration) *op {
	if timeout <= 0 {
		timeout = p.b.opts.timeout()
	}
	c, cancel := p.b.opContext(ctx, timeout)
	stop := context.AfterFunc(p.ctx, cancel)
	return &op{p: p, ctx: c, timeout: timeout, group: fmt.Sprintf("wright-op-%d", p.groupSeq.Add(1)), cancel: func() {
		stop()
		cancel()
	}}
}

// objectGroup is the op's object group; objects in it are released when
// it ends.
func (o *op) objectGroup() string {
	o.used = true
	return o.group
}

// end releases the op's context and, in the background, its remote
// objects: a renderer busy with a navigation may take a while to answer,
// and the caller should not wait for that.
func (o *op) end() {
	o.cancel()
	if !o.used || o.p.closedErr() != nil {
		return
	}
	p, group := o.p, o.group
	p.b.wg.Add(1)
	go func() {
		defer p.b.wg.Done()
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		defer cancel()
		_ = proto.RuntimeReleaseObjectGroup{ObjectGroup: group}.Call(p.rod.Context(ctx))
	}()
}

// rodPage is the page bound to the op's context (its deadline and
// cancellation).
func (o *op) rodPage() *rod.Page { return o.p.rod.Context(o.ctx) }

// fail maps an error seen during the op: a closed page or browser wins, then
// a timeout (naming what was waited for), then the error itself.
func (o *op) fail(err error, waitingFor string) error {
	o.p.b.settle(err)
	if e := o.p.closedErr(); e != nil {
		return e
	}
	if o.ctx.Err() != nil && errors.Is(context.Cause(o.ctx), context.DeadlineExceeded) {
		return newErr(ErrTimeout, "Timeout %dms exceeded.\n%s", o.timeout.Milliseconds(), waitingFor)
	}
	if err == nil {
		err = o.ctx.Err()
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return asError(context.Canceled)
	}
	return asError(err)
}

// waitChange blocks until the page's state changes or the op ends.
func (o *op) waitChange(since <-chan struct{}, poll time.Duration) error {
	t := time.NewTimer(poll)
	defer t.Stop()
	select {
	case <-since:
	case <-t.C:
	case <-o.ctx.Done():
		return o.ctx.Err()
	}
	return nil
}

func (p *Page) changedChan() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.changed
}

// ---- navigation -------------------------------------------------------------

// WaitUntil is a load state: load, domcontentloaded or networkidle.
type WaitUntil string

// The load states.
const (
	Load             WaitUntil = "load"
	DOMContentLoaded WaitUntil = "domcontentloaded"
	NetworkIdle      WaitUntil = "networkidle"
	Commit           WaitUntil = "commit" // the response came and the new document replaced the old one
)

func (w WaitUntil) event() (string, error) {
	switch w {
	case "", Load:
		return "load", nil
	case DOMContentLoaded:
		return "DOMContentLoaded", nil
	case NetworkIdle:
		return "networkIdle", nil
	case Commit:
		return "init", nil // the first lifecycle event of a committed document
	}
	return "", newErr(ErrInvalidParams, "wait_until/state must be load, domcontentloaded, networkidle or commit, not %q", string(w))
}

// GotoResult is where a navigation ended and the HTTP status of its
// document (0 when there was none, as for about:blank or a same-document
// navigation).
type GotoResult struct {
	URL    string
	Status int
}

// gotoTarget checks a navigation before it starts (page and child frames
// alike): the wait event, the page still open, the URL completed and
// allowed by the URL policy.
func (p *Page) gotoTarget(url string, waitUntil WaitUntil) (string, string, error) {
	ev, err := waitUntil.event()
	if err != nil {
		return "", "", err
	}
	if err := p.closedErr(); err != nil {
		return "", "", err
	}
	if strings.TrimSpace(url) == "" {
		return "", "", newErr(ErrInvalidParams, "goto needs a url")
	}
	url = completeURL(url)
	if pol := p.b.opts.URLPolicy; pol != nil {
		if err := pol(url); err != nil {
			return "", "", wrapErr(ErrBlockedURL, err, "navigation to %s is blocked by the URL policy: %v", url, err)
		}
	}
	return url, ev, nil
}

// Goto navigates the page. HTTP error statuses are results, not errors; an
// unreachable host, a refused policy or a timeout are.
func (p *Page) Goto(ctx context.Context, url string, waitUntil WaitUntil, timeout time.Duration) (GotoResult, error) {
	url, ev, err := p.gotoTarget(url, waitUntil)
	if err != nil {
		return GotoResult{}, err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	started := time.Now()
	p.mu.Lock()
	start, before := p.loader, p.url
	p.mu.Unlock()
	idle := p.watchIdle(o, ev == "networkIdle")
	defer idle.close()
	res, err := proto.PageNavigate{URL: url}.Call(o.rodPage())
	if err != nil {
		if strings.Contains(err.Error(), "Cannot navigate to invalid URL") {
			return GotoResult{}, newErr(ErrNavigation, "Cannot navigate to invalid URL %q: give an absolute URL such as https://example.com/", url)
		}
		return GotoResult{}, o.fail(err, fmt.Sprintf("waiting for %s to respond", url))
	}
	if res.ErrorText != "" && res.ErrorText != "net::ERR_HTTP_RESPONSE_CODE_FAILURE" {
		res.ErrorText = p.tunnelError(o.ctx, url, res.ErrorText)
		p.awaitErrorPage(o)
		if bl := p.blockedSince(started); bl != nil {
			if bl.url == url {
				return GotoResult{}, wrapErr(ErrBlockedURL, bl.err, "%s at %s: blocked by the URL policy: %v", res.ErrorText, url, bl.err)
			}
			return GotoResult{}, wrapErr(ErrBlockedURL, bl.err, "%s at %s: redirected to %s, which is blocked by the URL policy: %v", res.ErrorText, url, bl.url, bl.err)
		}
		return GotoResult{}, newErr(ErrNavigation, "navigation to %s failed: %s", url, res.ErrorText)
	}
	if res.LoaderID == "" { // same-document navigation
		// Page.navigate answers before Page.navigatedWithinDocument
		// reaches the pump: wait for URL to catch up with the document.
		p.settleURL(o, before)
		return GotoResult{URL: p.URL()}, nil
	}
	err = p.waitLoader(o, res.LoaderID, ev, start)
	if err == nil {
		err = idle.wait(o)
	}
	if err != nil {
		return GotoResult{}, o.fail(err, fmt.Sprintf("navigating to %q, waiting until %q: waiting for the %s event of %s (the page responded but is still loading; try wait_until=\"domcontentloaded\" or a longer timeout)", url, waitUntil.name(), ev, url))
	}
	p.mu.Lock()
	st := p.status[res.LoaderID]
	p.mu.Unlock()
	return GotoResult{URL: p.URL(), Status: st}, nil
}

// waitLoader waits for a lifecycle event of one document. An empty loader
// means the current document, whichever that is when the event comes. A
// goto passes the document it started from (start), so that a newer
// navigation replacing its own (a script redirect, a click) is followed,
// but the old document is never mistaken for the new one.
func (p *Page) waitLoader(o *op, loader proto.NetworkLoaderID, event string, start proto.NetworkLoaderID) error {
	follow := loader == ""
	for {
		p.mu.Lock()
		if follow {
			loader = p.loader
		} else if p.loader != loader && p.loader != start && p.events[p.loader]["init"] {
			loader = p.loader
		}
		ok := p.events[loader][event]
		ch := p.changed
		p.mu.Unlock()
		if ok {
			return nil
		}
		if err := o.waitChange(ch, time.Second); err != nil {
			return err
		}
		if err := p.closedErr(); err != nil {
			return err
		}
	}
}

// WaitForLoadState waits until the current document reached state.
func (p *Page) WaitForLoadState(ctx context.Context, state WaitUntil, timeout time.Duration) error {
	ev, err := state.event()
	if err != nil {
		return err
	}
	if err := p.closedErr(); err != nil {
		return err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	if err := p.waitLoader(o, "", ev, ""); err != nil {
		return o.fail(err, fmt.Sprintf("waiting for the %s event of %s", ev, p.URL()))
	}
	return nil
}

// navigateAndWait runs a history or reload command and waits for the
// navigation it starts.
func (p *Page) navigateAndWait(ctx context.Context, what string, waitUntil WaitUntil, timeout time.Duration, run func(o *op) error) (string, error) {
	ev, err := waitUntil.event()
	if err != nil {
		return "", err
	}
	if err := p.closedErr(); err != nil {
		return "", err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	p.mu.Lock()
	seq, loader := p.navSeq, p.loader
	p.mu.Unlock()
	if err := run(o); err != nil {
		return "", o.fail(err, "waiting for "+what)
	}
	for {
		p.mu.Lock()
		moved := p.navSeq != seq
		ch := p.changed
		cur := p.loader
		p.mu.Unlock()
		if moved {
			if cur != loader {
				if err := p.waitLoader(o, cur, ev, loader); err != nil {
					return "", o.fail(err, fmt.Sprintf("waiting for the %s event after %s", ev, what))
				}
			}
			return p.URL(), nil
		}
		if err := o.waitChange(ch, time.Second); err != nil {
			return "", o.fail(err, "waiting for "+what+" to navigate")
		}
	}
}

// Reload reloads the page.
func (p *Page) Reload(ctx context.Context, waitUntil WaitUntil, timeout time.Duration) (string, error) {
	return p.navigateAndWait(ctx, "the reload", waitUntil, timeout, func(o *op) error {
		return callCDP(o.rodPage(), proto.PageReload{})
	})
}

// GoBack goes one entry back in history; ok is false when there is none.
func (p *Page) GoBack(ctx context.Context, waitUntil WaitUntil, timeout time.Duration) (url string, ok bool, err error) {
	return p.history(ctx, -1, waitUntil, timeout)
}

// GoForward goes one entry forward in history; ok is false when there is none.
func (p *Page) GoForward(ctx context.Context, waitUntil WaitUntil, timeout time.Duration) (url string, ok bool, err error) {
	return p.history(ctx, 1, waitUntil, timeout)
}

func (p *Page) history(ctx context.Context, delta int, waitUntil WaitUntil, timeout time.Duration) (string, bool, error) {
	if err := p.closedErr(); err != nil {
		return "", false, err
	}
	hctx, cancel := p.b.opContext(ctx, 5*time.Second)
	h, err := proto.PageGetNavigationHistory{}.Call(p.rod.Context(hctx))
	cancel()
	if err != nil {
		return "", false, p.targetErr(err)
	}
	i := h.CurrentIndex + delta
	if i < 0 || i >= len(h.Entries) {
		return "", false, nil
	}
	entry := h.Entries[i]
	what := "going back"
	if delta > 0 {
		what = "going forward"
	}
	url, err := p.navigateAndWait(ctx, what+" to "+entry.URL, waitUntil, timeout, func(o *op) error {
		return callCDP(o.rodPage(), proto.PageNavigateToHistoryEntry{EntryID: entry.ID})
	})
	return url, err == nil, err
}

func (p *Page) targetErr(err error) error {
	p.b.settle(err)
	if e := p.closedErr(); e != nil {
		return e
	}
	return asError(err)
}

// documentURL reads location.href of the main frame's document, or ""
// when it cannot be read now (a navigation is replacing the document, or
// the renderer is busy past the short limit).
func (p *Page) documentURL(o *op) string {
	ctx, cancel := context.WithTimeout(o.ctx, settleLimit)
	defer cancel()
	res, err := proto.RuntimeEvaluate{Expression: "location.href", ReturnByValue: true}.Call(p.rod.Context(ctx))
	if err != nil || res.ExceptionDetails != nil || res.Result == nil {
		return ""
	}
	return res.Result.Value.Str()
}

// settleLimit bounds what an input action spends making URL reflect the
// navigation it caused; past it the action still succeeds.
const settleLimit = 2 * time.Second

// settleURL makes URL reflect a same-document navigation (a #fragment
// link, history.pushState in a click handler) that an input action
// started, as Playwright's actions wait for the navigations they start to
// commit. The renderer commits such a navigation synchronously while it
// handles the event, but Chromium acknowledges the input before it reports
// Page.navigatedWithinDocument, and our pump records that event after
// that: without this, URL right after a click on a #fragment link is
// usually still the old one. before is the document's URL read before the
// action ("" skips the wait); the document's URL now is the truth, and we
// wait, briefly, for the events to catch up with it. A cross-document
// navigation that has not committed leaves location.href unchanged and is
// not waited for here (as before: wait_for_url or wait_for_load_state).
func (p *Page) settleURL(o *op, before string) {
	if before == "" {
		return
	}
	after := p.documentURL(o)
	if after == "" || after == before {
		return
	}
	ctx, cancel := context.WithTimeout(o.ctx, settleLimit)
	defer cancel()
	for {
		p.mu.Lock()
		u, ch := p.url, p.changed
		p.mu.Unlock()
		if u == after {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// URL is the page's current URL.
func (p *Page) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}

// Title is the document's title.
func (p *Page) Title(ctx context.Context) (string, error) {
	var s string
	err := p.evalInto(ctx, "document.title", &s)
	return s, err
}

// Content is the document's HTML, doctype included.
func (p *Page) Content(ctx context.Context) (string, error) {
	var s string
	err := p.evalInto(ctx, `(document.doctype ? new XMLSerializer().serializeToString(document.doctype) : "") + (document.documentElement ? document.documentElement.outerHTML : "")`, &s)
	return s, err
}

// evalInto evaluates a driver-internal expression in the main frame,
// retrying across navigations.
func (p *Page) evalInto(ctx context.Context, expr string, dst any) error {
	if err := p.closedErr(); err != nil {
		return err
	}
	o := p.begin(ctx, 0)
	defer o.end()
	for {
		res, err := proto.RuntimeEvaluate{Expression: expr, ReturnByValue: true, ObjectGroup: o.objectGroup()}.Call(o.rodPage())
		if err == nil && res.ExceptionDetails != nil {
			return newErr(ErrBrowser, "%s", exceptionText(res.ExceptionDetails))
		}
		if err == nil {
			return json.Unmarshal([]byte(res.Result.Value.JSON("", "")), dst)
		}
		if !isContextGone(err) {
			return o.fail(err, "")
		}
		if err := o.waitChange(p.changedChan(), 50*time.Millisecond); err != nil {
			return o.fail(err, "waiting for the page to finish navigating")
		}
	}
}

// ---- waiting for URLs -------------------------------------------------------

// urlMatcher compiles a wait_for_url pattern: exact, a glob with * (not
// crossing /) and ** (anything), or /regex/flags.
func urlMatcher(pattern string) (func(string) bool, error) {
	if len(pattern) > 2 && pattern[0] == '/' {
		if end := strings.LastIndexByte(pattern, '/'); end > 0 {
			flags := pattern[end+1:]
			if strings.Trim(flags, "gimsuy") == "" {
				prefix := ""
				if strings.Contains(flags, "i") {
					prefix += "(?i)"
				}
				if strings.Contains(flags, "s") {
					prefix += "(?s)"
				}
				if strings.Contains(flags, "m") {
					prefix += "(?m)"
				}
				re, err := regexp.Compile(prefix + pattern[1:end])
				if err != nil {
					return nil, newErr(ErrInvalidParams, "url regex %s: %v (the driver matches with Go's RE2 syntax: no lookarounds or backreferences)", pattern, err)
				}
				return re.MatchString, nil
			}
		}
	}
	if !strings.Contains(pattern, "*") {
		return func(u string) bool { return u == pattern }, nil
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(pattern); i++ {
		switch {
		case strings.HasPrefix(pattern[i:], "**"):
			b.WriteString(".*")
			i++
		case pattern[i] == '*':
			b.WriteString("[^/]*")
		default:
			b.WriteString(regexp.QuoteMeta(pattern[i : i+1]))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, newErr(ErrInvalidParams, "url glob %q: %v", pattern, err)
	}
	return re.MatchString, nil
}

// WaitForURL waits until the page's URL matches pattern, then for the
// waitUntil state of that document.
func (p *Page) WaitForURL(ctx context.Context, pattern string, waitUntil WaitUntil, timeout time.Duration) (string, error) {
	match, err := urlMatcher(pattern)
	if err != nil {
		return "", err
	}
	ev, err := waitUntil.event()
	if err != nil {
		return "", err
	}
	if err := p.closedErr(); err != nil {
		return "", err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	for {
		p.mu.Lock()
		u, ch := p.url, p.changed
		p.mu.Unlock()
		if match(u) {
			if err := p.waitLoader(o, "", ev, ""); err != nil {
				return "", o.fail(err, fmt.Sprintf("waiting for the %s event of %s", ev, u))
			}
			return u, nil
		}
		if err := o.waitChange(ch, time.Second); err != nil {
			return "", o.fail(err, fmt.Sprintf("waiting for the URL to match %q (it is %s)", pattern, u))
		}
	}
}

// ---- logs --------------------------------------------------------------------

// ConsoleMessages returns the console messages since the page opened or the
// last clear.
func (p *Page) ConsoleMessages(clear bool) []ConsoleMessage {
	return takeLog(&p.mu, &p.console, clear)
}

// PageErrors returns the uncaught exceptions since the page opened or the
// last clear.
func (p *Page) PageErrors(clear bool) []PageError {
	return takeLog(&p.mu, &p.errors, clear)
}

// Dialogs returns the dialogs since the page opened or the last clear.
func (p *Page) Dialogs(clear bool) []Dialog {
	return takeLog(&p.mu, &p.dialogs, clear)
}

// takeLog copies a page's log under its lock, emptying it when clear is set.
func takeLog[T any](mu *sync.Mutex, log *[]T, clear bool) []T {
	mu.Lock()
	defer mu.Unlock()
	out := append([]T{}, *log...)
	if clear {
		*log = nil
	}
	return out
}

// ---- page-level actions -------------------------------------------------------

// SetViewportSize resizes the page's viewport.
func (p *Page) SetViewportSize(ctx context.Context, width, height int) error {
	if width <= 0 || height <= 0 {
		return newErr(ErrInvalidParams, "viewport width and height must be positive, got %dx%d", width, height)
	}
	o := p.begin(ctx, 0)
	defer o.end()
	if err := callCDP(o.rodPage(), proto.EmulationSetDeviceMetricsOverride{Width: width, Height: height, DeviceScaleFactor: 1}); err != nil {
		return o.fail(err, "resizing the viewport")
	}
	return nil
}

// BringToFront activates the tab.
func (p *Page) BringToFront(ctx context.Context) error {
	o := p.begin(ctx, 0)
	defer o.end()
	if err := callCDP(o.rodPage(), proto.PageBringToFront{}); err != nil {
		return o.fail(err, "bringing the page to front")
	}
	return nil
}

// Close closes the tab without running beforeunload handlers.
func (p *Page) Close(ctx context.Context) error {
	if err := p.closedErr(); err != nil {
		if p.b.Err() != nil {
			return err
		}
		return nil // closing twice is fine
	}
	ctx, cancel := p.b.opContext(ctx, 0)
	defer cancel()
	if err := callCDP(p.b.rod.Context(ctx), proto.TargetCloseTarget{TargetID: p.rod.TargetID}); err != nil {
		return p.targetErr(err)
	}
	// Wait for the target to go, so browser.pages no longer lists it.
	for !p.isClosed() {
		select {
		case <-p.changedChan():
		case <-ctx.Done():
			p.markClosed("the page was closed")
		}
	}
	return nil
}
