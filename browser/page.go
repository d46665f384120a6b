package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"wright/browser/aria"
	"wright/browser/screencast"
	"wright/browser/video"
)

// CloseRunningBeforeUnload asks the page to close the way a user closing
// its tab does: its beforeunload handlers run first, and one that asks to
// stay opens a "beforeunload" dialog. The page closes when that dialog is
// accepted (or when there is none); the client learns of it from
// page.close. It returns without waiting for either.
func (p *Page) CloseRunningBeforeUnload(ctx context.Context) error {
	if done, err := p.closing(); done {
		return err
	}
	ctx, cancel := p.b.opContext(ctx, 0)
	defer cancel()
	if err := callCDP(p.rod.Context(ctx), proto.PageClose{}); err != nil {
		return p.targetErr(err)
	}
	return nil
}

// closing tells whether the page is closed already; err is set only when
// the whole browser is gone (closing a page twice is fine).
func (p *Page) closing() (done bool, err error) {
	if e := p.closedErr(); e != nil {
		if p.b.Err() != nil {
			return true, e
		}
		return true, nil
	}
	return false, nil
}

// ContextID is the client's context the page belongs to ("" the default
// one, or a tab that was never ours).
func (p *Page) ContextID() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.context
}

// Context is the browser context the page belongs to (the default one for a
// tab that was never ours).
func (p *Page) Context() *Context { return p.b.Context(p.ContextID()) }

func (p *Page) setContextID(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.context = id
}

// browserContext is the id of the page's browser context ("" when unknown).
func (p *Page) browserContext() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	info, err := proto.TargetGetTargetInfo{TargetID: p.rod.TargetID}.Call(p.b.rod.Context(ctx))
	if err != nil {
		return ""
	}
	return string(info.TargetInfo.BrowserContextID)
}

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

	// windowOpens are the features of this page's window.open calls whose
	// popups are not adopted yet (windowfeatures.go); guarded by mu.
	windowOpens []windowOpen

	aria *aria.Registry

	navs navWatches // actions waiting for the navigations they start (navigation.go)

	groupSeq atomic.Int64 // object groups, one per operation

	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every state change
	closed  string        // why the page is closed; "" while open
	// gone is closed once the page's close event has gone to every
	// subscriber: Close answers after it, so a client's "close" listener
	// has run when close() returns, as in Playwright.
	gone chan struct{}

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
	held    int // modifier bits of keys held down by Keyboard.Down
	buttons int // mouse buttons held down by MouseDown

	drag     *proto.InputDragData // an intercepted HTML5 drag in progress (mouse.go)
	keysDown map[string]bool      // keys down now, by code: a second down is a repeat (keyboard.go)
	flush    flusher              // the event barrier (events.go)
	context  string               // the client's context id (contexts.go)
	named    map[string]string    // CDP ids of the context's named init scripts, by name (contexts.go)

	keyboard      Keyboard
	router        Router
	mouse         Mouse
	handlers      LocatorHandlers // Playwright's locator handlers (locator_handlers.go)
	ignoreCertErr atomic.Bool     // the context ignores certificate errors, request.fetch too (emulation.go)

	workers     map[string]*Worker // its running dedicated workers, by target id; under mu (workers.go)
	sockets     webSockets         // its open WebSockets (websockets.go)
	goneWorkers map[string]bool    // the object-id prefixes of its ended workers; under mu

	cast         *screencast.Caster // the page's screencast (screenshot.go)
	videos       []*video.Recorder  // its recordings, the client's last; under mu
	videoCancels []func()           // end the recordings' subscriptions; under mu
}

func newPage(b *Browser, rp *rod.Page, id, opener string) *Page {
	ctx, cancel := context.WithCancel(b.ctx)
	p := &Page{
		b: b, rod: rp, id: id, opener: opener,
		ctx: ctx, cancel: cancel,
		aria:     aria.NewRegistry(),
		changed:  make(chan struct{}),
		gone:     make(chan struct{}),
		events:   map[proto.NetworkLoaderID]map[string]bool{},
		status:   map[proto.NetworkLoaderID]int{},
		contexts: map[proto.RuntimeRemoteObjectID]*execCtx{},
		frameCtx: map[proto.DOMBackendNodeID]*execCtx{},
	}
	p.keyboard.p, p.mouse.p, p.router.p, p.handlers.p = p, p, p, p
	p.cast = screencast.New(pageSession{p})
	return p
}

// Keyboard is the page's keyboard.
func (p *Page) Keyboard() *Keyboard { return &p.keyboard }

// Router is the page's request routing.
func (p *Page) Router() *Router { return &p.router }

// LocatorHandlers are the page's locator handlers.
func (p *Page) LocatorHandlers() *LocatorHandlers { return &p.handlers }

// Mouse is the page's mouse.
func (p *Page) Mouse() *Mouse { return &p.mouse }

// Touchscreen is the page's touch input; its taps need a context with touch.
func (p *Page) Touchscreen() Touchscreen { return Touchscreen{p} }

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
		workerAutoAttach(),
	}
	if emulate {
		vp := p.b.opts.viewport()
		calls = append(calls, proto.EmulationSetDeviceMetricsOverride{Width: vp.Width, Height: vp.Height, DeviceScaleFactor: 1})
		// Every page behaves as the focused one, as Playwright's do: focus and
		// blur events fire, document.hasFocus() holds, in background tabs too.
		calls = append(calls, proto.EmulationSetFocusEmulationEnabled{Enabled: true})
	}
	if pats := p.router.patterns(); pats != nil {
		calls = append(calls, p.router.fetchEnable(pats))
	}
	// The calls are independent of each other, so they go out together and
	// the page pays one round trip instead of one per call: a new tab's
	// first answer waits for its renderer to start, and the others queue
	// behind it on the session (Chromium answers a session's calls in the
	// order they came, whatever order that is).
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() { errs[i] = callCDP(r, c) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return wrapErr(ErrBrowser, err, "set up page %s: %s: %s", p.id, calls[i].ProtoReq(), cdpMessage(err))
		}
	}
	// The document's state is read once the lifecycle events are on, so an
	// event is either seen or inferred from that state, never missed. The
	// frame tree and the ready state are read side by side.
	var (
		tree    *proto.PageGetFrameTreeResult
		treeErr error
		ready   string
	)
	wg.Go(func() { tree, treeErr = proto.PageGetFrameTree{}.Call(r) })
	if v, err := (proto.RuntimeEvaluate{Expression: "document.readyState", ReturnByValue: true}).Call(r); err == nil && v.Result != nil {
		ready = v.Result.Value.Str()
	}
	wg.Wait()
	if treeErr != nil {
		return wrapErr(ErrBrowser, treeErr, "set up page %s: %s", p.id, cdpMessage(treeErr))
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

// pump records what the page does: navigations, lifecycle, console, errors
// and dialogs. It ends when the page's session ends.
func (p *Page) pump(events <-chan *rod.Message) {
	for msg := range events {
		p.cast.Handle(msg)
		p.observeWorkers(msg)
		p.observe(msg)
		p.trackNavigation(msg)
		p.noteNavigation(msg)
		p.recordLog(msg)
		p.noteWindowOpen(msg)
		switch msg.Method {
		case "Runtime.executionContextsCleared", "Runtime.executionContextDestroyed":
			p.mu.Lock()
			p.forgetContextsLocked()
			p.mu.Unlock()
		case "Runtime.bindingCalled":
			p.flushed(msg)
		case "Fetch.requestPaused":
			var e proto.FetchRequestPaused
			if msg.Load(&e) {
				p.router.decide(&e)
			}
		case "Fetch.authRequired":
			var e proto.FetchAuthRequired
			if msg.Load(&e) {
				p.router.answerAuth(&e)
			}
		case "Inspector.targetCrashed":
			p.markClosed("the page crashed")
		}
	}
	p.markClosed("the page was closed")
}

func (p *Page) mainFrame() proto.PageFrameID { return proto.PageFrameID(p.rod.TargetID) }

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
		p.b.wg.Add(1)
		go func() {
			defer p.b.wg.Done()
			p.endScreencast()
		}()
		p.closeWebSockets()
		p.emit(&PageClosedEvent{Reason: reason})
		close(p.gone)
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

	customMain bool // custom selector engines run in the page's main world (resolve.go)
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

func (p *Page) targetErr(err error) error {
	p.b.settle(err)
	if e := p.closedErr(); e != nil {
		return e
	}
	return asError(err)
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
	if done, err := p.closing(); done {
		return err
	}
	outer := ctx
	ctx, cancel := p.b.opContext(ctx, 0)
	defer cancel()
	if err := callCDP(p.b.rod.Context(ctx), proto.TargetCloseTarget{TargetID: p.rod.TargetID}); err != nil {
		return p.targetErr(err)
	}
	// Wait for the target to go, so browser.pages no longer lists it and
	// the close event went out before the answer. When the wait runs out
	// the page counts as closed; a markClosed under way elsewhere finishes
	// its emit first.
	select {
	case <-p.gone:
	case <-ctx.Done():
		p.markClosed("the page was closed")
		<-p.gone
	}
	// A recorded page is closed once its video file is finished, as in
	// Playwright: the file is whole when close returns. A video that could
	// not be finished does not fail the close; the video's calls say why.
	// The encoder may need longer than an operation's timeout to catch up.
	_ = p.waitVideo(outer)
	return nil
}
