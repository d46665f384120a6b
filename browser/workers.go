package browser

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// A page's dedicated web workers (Playwright's page.workers). The page's own
// session auto-attaches to the workers its documents start, held until their
// session is set up so that nothing a worker does first (its console, its
// fetches) is missed. Each worker is evaluated in on its own session; a
// handle on one of its objects is recognised by the prefix of its object id
// (the isolate's), so every js.call on that handle runs in the worker.

// Worker is one dedicated worker of a page.
type Worker struct {
	ID  string // the worker's target id
	URL string

	p      *Page
	rod    *workerSession // the worker's CDP session (not a page's: only Runtime and Network)
	ctx    context.Context
	cancel context.CancelFunc
	ready  chan struct{} // closed once global and prefix are known (or the worker failed to start)
	parsed chan struct{} // closed when its first script is parsed (Debugger.scriptParsed)
	once   sync.Once
	global proto.RuntimeRemoteObjectID
	prefix string // the isolate part of the worker's object ids, "123456789."
	err    error  // why the worker could not be set up
}

// WorkerEvent: the page started a dedicated worker.
type WorkerEvent struct {
	PageEvent
	Worker string `json:"worker"`
	URL    string `json:"url"`
}

// WorkerClosedEvent: the worker ended (terminated, or its document went away).
type WorkerClosedEvent struct {
	PageEvent
	Worker string `json:"worker"`
}

// workerAutoAttach asks for the page's dedicated workers, held at their start.
func workerAutoAttach() proto.Request {
	return proto.TargetSetAutoAttach{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: true,
		Filter: proto.TargetTargetFilter{{Type: "worker"}}}
}

// onWorkerAttached sets a newly attached worker up on its own session and
// lets it run. It runs on a goroutine of its own: the page's pump goes on.
func (p *Page) onWorkerAttached(e *proto.TargetAttachedToTarget) {
	if e.TargetInfo == nil || e.TargetInfo.Type != "worker" {
		return
	}
	ctx, cancel := context.WithCancel(p.ctx)
	w := &Worker{ID: string(e.TargetInfo.TargetID), URL: e.TargetInfo.URL, p: p, ctx: ctx, cancel: cancel,
		ready: make(chan struct{}), parsed: make(chan struct{})}
	w.rod = &workerSession{b: p.b.rod, session: e.SessionID, ctx: ctx}
	// Subscribed before Runtime.enable, so its first console messages are
	// seen. A page made from a session has no event stream of its own: the
	// browser's is read, for this session's messages.
	events := p.b.rod.Context(ctx).Event()
	p.mu.Lock()
	if p.workers == nil {
		p.workers = map[string]*Worker{}
	}
	p.workers[w.ID] = w
	p.mu.Unlock()
	p.emit(&WorkerEvent{Worker: w.ID, URL: w.URL})
	p.b.wg.Add(2)
	go func() {
		defer p.b.wg.Done()
		w.pump(events)
	}()
	go func() {
		defer p.b.wg.Done()
		w.start()
	}()
}

func (w *Worker) start() {
	defer close(w.ready)
	ctx, cancel := context.WithTimeout(w.ctx, 30*time.Second)
	defer cancel()
	r := w.rod.Context(ctx)
	_ = callCDP(r, proto.NetworkEnable{}) // a worker without a network (a blob's) still runs
	if err := callCDP(r, proto.RuntimeEnable{}); err != nil {
		w.err = wrapErr(ErrBrowser, err, "set up worker %s: %s", w.URL, cdpMessage(err))
	}
	// The worker's global scope exists before its script is fetched and
	// run: an evaluation would find none of the script's functions. The
	// debugger reports the script's parse, and what is sent to the worker
	// after that runs once the script's first run is over.
	debugging := callCDP(r, proto.DebuggerEnable{}) == nil
	if err := callCDP(r, proto.RuntimeRunIfWaitingForDebugger{}); err != nil && w.err == nil {
		w.err = wrapErr(ErrBrowser, err, "start worker %s: %s", w.URL, cdpMessage(err))
	}
	if w.err != nil {
		return
	}
	if debugging {
		select {
		case <-w.parsed:
		case <-time.After(5 * time.Second): // a script that never loads: evaluate in the bare scope
		case <-ctx.Done():
		}
		_ = callCDP(r, proto.DebuggerDisable{})
	}
	res, err := proto.RuntimeEvaluate{Expression: "globalThis"}.Call(r)
	if err != nil || res.Result == nil || res.Result.ObjectID == "" {
		w.err = newErr(ErrTargetClosed, "worker %s: its global scope is gone", w.URL)
		return
	}
	w.global = res.Result.ObjectID
	w.prefix = objectIsolate(w.global)
}

// objectIsolate is the isolate part of a CDP object id ("isolate.context.n").
func objectIsolate(id proto.RuntimeRemoteObjectID) string {
	s := string(id)
	if i := strings.IndexByte(s, '.'); i > 0 {
		return s[:i+1]
	}
	return ""
}

// pump turns the worker's console messages, errors and requests into the
// page's events, until the worker's session ends.
func (w *Worker) pump(events <-chan *rod.Message) {
	p := w.p
	for msg := range events {
		if msg.SessionID != w.rod.session {
			continue
		}
		switch msg.Method {
		case "Debugger.scriptParsed":
			w.once.Do(func() { close(w.parsed) })
		case "Runtime.consoleAPICalled":
			var e proto.RuntimeConsoleAPICalled
			if msg.Load(&e) && p.b.hasSubscribers() {
				p.emitConsoleOf(&e, w.ID)
			}
		case "Runtime.exceptionThrown":
			var e proto.RuntimeExceptionThrown
			if msg.Load(&e) && e.ExceptionDetails != nil && p.b.hasSubscribers() {
				p.emitPageError(e.ExceptionDetails)
			}
		case "Network.requestWillBeSent", "Network.responseReceived", "Network.loadingFinished", "Network.loadingFailed",
			"Network.requestWillBeSentExtraInfo", "Network.responseReceivedExtraInfo":
			if p.b.hasSubscribers() {
				p.observeNetwork(msg)
			}
		}
	}
}

// onWorkerDetached ends the worker whose session ended.
func (p *Page) onWorkerDetached(e *proto.TargetDetachedFromTarget) {
	id := string(e.TargetID) //nolint:staticcheck // Chromium still sends the target's id
	p.mu.Lock()
	w := p.workers[id]
	if w == nil {
		for _, x := range p.workers {
			if x.rod.session == e.SessionID {
				w = x
			}
		}
	}
	p.mu.Unlock()
	if w != nil {
		p.closeWorker(w)
	}
}

// closeWorkers ends every worker of the page: its main frame got a new
// document, and its workers went with the old one (Chromium's detach may
// come later than the navigation's end).
func (p *Page) closeWorkers() {
	p.mu.Lock()
	ws := make([]*Worker, 0, len(p.workers))
	for _, w := range p.workers {
		ws = append(ws, w)
	}
	p.mu.Unlock()
	for _, w := range ws {
		p.closeWorker(w)
	}
}

func (p *Page) closeWorker(w *Worker) {
	p.mu.Lock()
	_, ours := p.workers[w.ID]
	delete(p.workers, w.ID)
	p.mu.Unlock()
	if !ours {
		return
	}
	select {
	case <-w.ready:
		if w.prefix != "" {
			p.mu.Lock()
			if p.goneWorkers == nil {
				p.goneWorkers = map[string]bool{}
			}
			p.goneWorkers[w.prefix] = true
			p.mu.Unlock()
		}
	default:
	}
	w.cancel()
	p.emit(&WorkerClosedEvent{Worker: w.ID})
}

// Workers are the page's running dedicated workers.
func (p *Page) Workers() []*Worker {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*Worker, 0, len(p.workers))
	for _, w := range p.workers {
		out = append(out, w)
	}
	return out
}

// worker finds a running worker by id.
func (p *Page) worker(id string) (*Worker, error) {
	p.mu.Lock()
	w := p.workers[id]
	p.mu.Unlock()
	if w == nil {
		return nil, newErr(ErrTargetClosed, "Target page, context or browser has been closed (worker %s is gone)", id)
	}
	return w, nil
}

// workerOfObject is the worker an object id belongs to, or nil (a page's own).
func (p *Page) workerOfObject(id string) *Worker {
	if id == "" {
		return nil
	}
	prefix := objectIsolate(proto.RuntimeRemoteObjectID(id))
	if prefix == "" {
		return nil
	}
	p.mu.Lock()
	var starting []*Worker
	for _, w := range p.workers {
		select {
		case <-w.ready:
			if w.prefix == prefix {
				p.mu.Unlock()
				return w
			}
		default:
			starting = append(starting, w)
		}
	}
	p.mu.Unlock()
	// A worker still starting may hold it already (a handle from its first
	// console message): its prefix is known once it is set up.
	for _, w := range starting {
		select {
		case <-w.ready:
		case <-w.ctx.Done():
		case <-time.After(10 * time.Second):
		}
		select {
		case <-w.ready: // prefix is written before ready is closed
			if w.prefix == prefix {
				return w
			}
		default:
		}
	}
	return nil
}

// workerFor is the worker a js.call runs in: the one it names, or the one
// that holds the handles it is given.
func (p *Page) workerFor(c JSCall) (*Worker, error) {
	if c.Worker != "" {
		return p.worker(c.Worker)
	}
	for _, id := range append([]string{c.Element, c.Context}, c.Handles...) {
		if w := p.workerOfObject(id); w != nil {
			return w, nil
		}
		if id != "" {
			p.mu.Lock()
			gone := p.goneWorkers[objectIsolate(proto.RuntimeRemoteObjectID(id))]
			p.mu.Unlock()
			if gone {
				return nil, newErr(ErrTargetClosed, "Target page, context or browser has been closed (the handle's worker ended)")
			}
		}
	}
	return nil, nil
}

// call runs c in the worker: its function (or expression) on the worker's
// global scope, with Playwright's value transfer as in a page.
func (w *Worker) call(o *op, c JSCall) (*JSResult, error) {
	select {
	case <-w.ready:
	case <-o.ctx.Done():
		return nil, o.fail(o.ctx.Err(), "waiting for the worker to start")
	}
	if w.err != nil {
		return nil, w.err
	}
	r := w.rod.Context(o.ctx)
	target := proto.RuntimeRemoteObjectID(c.Element)
	if target == "" {
		target = w.global
	}
	fn := trimSource(c.Source)
	if !isFunctionSource(c.Source) {
		fn = "async function () { return (\n" + c.Source + "\n); }"
	}
	args, err := callArguments(&proto.RuntimeCallArgument{}, c, target) // no compiler of the page's in a worker
	if err != nil {
		return nil, err
	}
	res, err := proto.RuntimeCallFunctionOn{
		ObjectID: target, FunctionDeclaration: callDeclaration(fn, c), Arguments: args,
		ReturnByValue: !c.ReturnHandle, AwaitPromise: !c.NoAwait, UserGesture: true, ObjectGroup: handleGroup,
	}.Call(r)
	if err != nil {
		if w.ctx.Err() != nil || strings.Contains(err.Error(), "Could not find object") {
			return nil, newErr(ErrTargetClosed, "Target page, context or browser has been closed (the worker %s ended)", w.URL)
		}
		return nil, o.fail(err, "the worker's evaluation")
	}
	if res.ExceptionDetails != nil {
		return nil, evalErr(res.ExceptionDetails)
	}
	if !c.ReturnHandle {
		return &JSResult{Value: evalResult(res.Result)}, nil
	}
	out := &JSResult{Type: string(res.Result.Type), Subtype: string(res.Result.Subtype), Description: res.Result.Description}
	if res.Result.ObjectID == "" {
		enc, err := encodePrimitive(w.global, res.Result).Call(r)
		if err != nil {
			return nil, o.fail(err, "the worker's evaluation")
		}
		out.Value = evalResult(enc.Result)
		return out, nil
	}
	out.Handle = string(res.Result.ObjectID)
	return out, nil
}

// release drops a worker's object (handle.dispose).
func (w *Worker) release(ctx context.Context, id string) {
	_ = proto.RuntimeReleaseObject{ObjectID: proto.RuntimeRemoteObjectID(id)}.Call(w.rod.Context(ctx))
}

// observeWorkers follows the page's workers on the page's session: attached,
// detached, and gone with the document a main-frame navigation replaced.
func (p *Page) observeWorkers(msg *rod.Message) {
	switch msg.Method {
	case "Target.attachedToTarget":
		var e proto.TargetAttachedToTarget
		if msg.Load(&e) {
			p.onWorkerAttached(&e)
		}
	case "Target.detachedFromTarget":
		var e proto.TargetDetachedFromTarget
		if msg.Load(&e) {
			p.onWorkerDetached(&e)
		}
	case "Page.frameNavigated":
		var e proto.PageFrameNavigated
		if msg.Load(&e) && e.Frame != nil && e.Frame.ParentID == "" {
			p.closeWorkers()
		}
	}
}

// workerSession is a proto.Client on a worker's session of the browser's
// connection (rod's pages made from a bare session lack the state its
// methods need).
type workerSession struct {
	b       *rod.Browser
	session proto.TargetSessionID
	ctx     context.Context
}

// Context is the session bound to ctx.
func (s *workerSession) Context(ctx context.Context) *workerSession {
	c := *s
	c.ctx = ctx
	return &c
}

// Call sends one CDP request on the worker's session.
func (s *workerSession) Call(ctx context.Context, _, method string, params any) ([]byte, error) {
	return s.b.Call(ctx, string(s.session), method, params)
}

// GetContext is the context of the session's calls (proto.Contextable).
func (s *workerSession) GetContext() context.Context { return s.ctx }

// GetSessionID is the worker's session (proto.Sessionable).
func (s *workerSession) GetSessionID() proto.TargetSessionID { return s.session }
