package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
)

// attachLimit bounds how long attaching to a new tab may take. A healthy
// tab answers in milliseconds; one whose renderer is blocked never does
// (a popup that shows a prompt() before we could attach: its Page.enable
// is answered only once the dialog closes, and the dialog, opened before
// we listened, is never reported to us).
var attachLimit = 10 * time.Second

// attachTarget attaches rod to a page target without letting a blocked tab
// hold the browser: rod's attach waits for Page.enable with no deadline,
// while the caller holds adoptMu and runs on the browser's event pump, so a
// tab stuck that way used to stop every later tab and page from being
// adopted. Past the limit the tab is closed, which ends the wait (and its
// dialog), and the attach fails.
func (b *Browser) attachTarget(ctx context.Context, id proto.TargetTargetID) (*rod.Page, error) {
	type result struct {
		p   *rod.Page
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := b.rod.Context(b.ctx).PageFromTarget(id)
		done <- result{p, err}
	}()
	limit := time.NewTimer(attachLimit)
	defer limit.Stop()
	select {
	case r := <-done:
		return r.p, r.err
	case <-ctx.Done():
	case <-limit.C:
	}
	cctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	_, _ = proto.TargetCloseTarget{TargetID: id}.Call(b.rod.Context(cctx))
	// Closing ends rod's wait; its page for the closed target is dropped.
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	return nil, newErr(ErrBrowser, "the new tab did not answer within %s (a dialog it opened before wright "+
		"attached blocks it); it was closed", attachLimit)
}

// New tabs start paused, so that a page gets its context's settings
// (viewport, touch, init scripts, bindings, routes) before its first script
// runs. Chromium holds a target created while the browser session
// auto-attaches with waitForDebuggerOnStart (a popup's window.open() does not
// return to the opener's script meanwhile) until
// Runtime.runIfWaitingForDebugger is sent on the session it attached for us.
// That session becomes the page's own: rod's attach to a target that has a
// paused session is answered with it (pausingClient), so the page is set up
// on the very session that holds it, and the pump resumes it once adopted.
//
// Only a browser this package launched pauses its targets: tabs of a browser
// we attached to belong to other clients too, and holding them until we are
// done would stall those clients.

// pausingClient is the CDP client rod talks through. It answers
// Target.attachToTarget for a target that is waiting for us with the session
// Chromium already attached, instead of a second session that could not
// resume it.
type pausingClient struct {
	*cdp.Client
	mu     sync.Mutex
	paused map[proto.TargetTargetID]proto.TargetSessionID
}

func newPausingClient(c *cdp.Client) *pausingClient {
	return &pausingClient{Client: c, paused: map[proto.TargetTargetID]proto.TargetSessionID{}}
}

// Call implements rod.CDPClient.
func (c *pausingClient) Call(ctx context.Context, sessionID, method string, params any) ([]byte, error) {
	if method == "Target.attachToTarget" && sessionID == "" {
		var id proto.TargetTargetID
		switch p := params.(type) {
		case proto.TargetAttachToTarget:
			id = p.TargetID
		case *proto.TargetAttachToTarget:
			id = p.TargetID
		}
		if s, ok := c.take(id); ok {
			return json.Marshal(proto.TargetAttachToTargetResult{SessionID: s})
		}
	}
	return c.Client.Call(ctx, sessionID, method, params)
}

func (c *pausingClient) hold(id proto.TargetTargetID, s proto.TargetSessionID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused[id] = s
}

// take hands out a paused target's session once: to rod's attach, or back to
// the pump when nobody adopted the target.
func (c *pausingClient) take(id proto.TargetTargetID) (proto.TargetSessionID, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.paused[id]
	delete(c.paused, id)
	return s, ok
}

// pauseNewTargets asks Chromium to attach us to every new target and hold it
// until we resume it. Called once the pump listens.
func (b *Browser) pauseNewTargets(ctx context.Context) error {
	err := proto.TargetSetAutoAttach{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: true}.Call(b.rod.Context(ctx))
	if err != nil {
		return wrapErr(ErrBrowser, err, "ask the browser to hold new tabs: %s", cdpMessage(err))
	}
	return nil
}

// onAttached handles a target Chromium attached us to (and may hold): a page
// is adopted on that session, set up, then resumed; any other target (a
// worker, the browser's own UI) is resumed and let go at once.
func (b *Browser) onAttached(msg *rod.Message) {
	var e proto.TargetAttachedToTarget
	if b.paused == nil || msg.SessionID != "" || !msg.Load(&e) || e.TargetInfo == nil {
		return
	}
	// Only a held target is ours to handle: the same event reports every
	// session, those rod opens by attaching explicitly included, and a page
	// that was open before the auto-attach began is not held.
	info := e.TargetInfo
	if !e.WaitingForDebugger {
		return
	}
	if info.Type != proto.TargetTargetInfoTypePage {
		b.release(e.SessionID, true)
		return
	}
	if (info.OpenerID != "" && !info.CanAccessOpener) || (info.OpenerID == "" && info.URL == "") {
		// A popup without access to its opener (noopener, or a link's
		// target=_blank) has no renderer until its first navigation is let
		// go: Page.enable would wait for a resume that never comes. It
		// runs at once and is adopted as before, its settings late. So
		// does a tab a page opened with no opener at all (a shift- or
		// ctrl-click on a link): it has no URL yet, where a tab opened
		// through CDP starts at about:blank.
		b.release(e.SessionID, true)
		b.onTargetCreated(info)
		return
	}
	b.paused.hold(info.TargetID, e.SessionID)
	b.onTargetCreated(info)
	// Nobody took the session (a tab refused by the URL policy, or one
	// adopted on a session of its own): it is let go. Otherwise it is the
	// page's session, kept.
	_, unused := b.paused.take(info.TargetID)
	b.release(e.SessionID, unused)
}

// release resumes a held target and, when detach, drops our session to it.
func (b *Browser) release(s proto.TargetSessionID, detach bool) {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	_, _ = b.rod.Call(ctx, string(s), "Runtime.runIfWaitingForDebugger", proto.RuntimeRunIfWaitingForDebugger{})
	if detach {
		_ = proto.TargetDetachFromTarget{SessionID: s}.Call(b.rod.Context(ctx))
	}
}

// pump follows the browser's targets: new tabs and popups become pages,
// closed or crashed ones are marked so.
func (b *Browser) pump(events <-chan *rod.Message) {
	for msg := range events {
		switch msg.Method {
		case "Target.targetCreated":
			var e proto.TargetTargetCreated
			// A held browser adopts its pages as they are attached (onAttached).
			if b.paused == nil && msg.Load(&e) && e.TargetInfo.Type == proto.TargetTargetInfoTypePage {
				b.onTargetCreated(e.TargetInfo)
			}
		case "Target.attachedToTarget":
			b.onAttached(msg)
		case "Target.targetInfoChanged":
			var e proto.TargetTargetInfoChanged
			if msg.Load(&e) {
				b.onTargetChanged(e.TargetInfo)
			}
		case "Target.targetDestroyed":
			var e proto.TargetTargetDestroyed
			if msg.Load(&e) {
				if p := b.pageByTarget(e.TargetID); p != nil {
					p.markClosed("the page was closed")
				}
			}
		case "Target.targetCrashed":
			var e proto.TargetTargetCrashed
			if msg.Load(&e) {
				if p := b.pageByTarget(e.TargetID); p != nil {
					p.markClosed("the page crashed (" + e.Status + ")")
				}
			}
		case "Browser.downloadWillBegin", "Browser.downloadProgress":
			b.onDownloadEvent(msg)
		case "Target.detachedFromTarget":
			var e proto.TargetDetachedFromTarget
			if msg.Load(&e) {
				var detached []*Page
				b.mu.Lock()
				for _, p := range b.pages {
					if p.rod.SessionID == e.SessionID {
						detached = append(detached, p)
					}
				}
				b.mu.Unlock()
				for _, p := range detached {
					p.markClosed("the page was detached")
				}
			}
		}
	}
	// The connection is gone: the browser closed, crashed, or went away.
	b.markGone("the connection to the browser was lost")
}

func (b *Browser) onTargetCreated(info *proto.TargetTargetInfo) {
	b.adoptMu.Lock()
	defer b.adoptMu.Unlock()
	if !b.started.Load() || b.pageByTarget(info.TargetID) != nil || b.isGone() || !b.visible(info) {
		return
	}
	opener, kind := "", kindForeign
	if info.OpenerID != "" {
		if op := b.pageByTarget(info.OpenerID); op != nil {
			opener, kind = op.id, kindPopup
		}
	} else if b.ownContextOf(info.BrowserContextID) != nil {
		// Opened in one of our contexts without an opener (a shift- or
		// ctrl-click): the context's page, set up as a popup is, with
		// no opener to report.
		kind = kindPopup
	}
	if b.opts.URLPolicy != nil && !isBlankURL(info.URL) {
		if err := b.opts.URLPolicy(info.URL); err != nil {
			b.refusePopup(info, opener, err)
			return
		}
	}
	ctx, cancel := context.WithTimeout(b.ctx, b.opts.timeout())
	defer cancel()
	if _, err := b.adopt(ctx, info.TargetID, opener, kind); err != nil && !b.isGone() {
		if op := b.pageByID(opener); op != nil {
			op.addConsole("error", "wright: could not take over the new tab "+info.URL+": "+err.Error(), "", 0)
		}
	}
}

func (b *Browser) onTargetChanged(info *proto.TargetTargetInfo) {
	p := b.pageByTarget(info.TargetID)
	if p == nil || b.opts.URLPolicy == nil || isBlankURL(info.URL) || !p.popup {
		return
	}
	// A popup's first document may load before we could intercept it.
	if err := b.opts.URLPolicy(info.URL); err != nil {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		defer cancel()
		_, _ = proto.TargetCloseTarget{TargetID: info.TargetID}.Call(b.rod.Context(ctx))
		if op := b.pageByID(p.opener); op != nil {
			op.addConsole("error", "wright: closed a popup at "+info.URL+" blocked by the URL policy: "+err.Error(), "", 0)
		}
	}
}

func (b *Browser) refusePopup(info *proto.TargetTargetInfo, opener string, err error) {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	_, _ = proto.TargetCloseTarget{TargetID: info.TargetID}.Call(b.rod.Context(ctx))
	if op := b.pageByID(opener); op != nil {
		op.addConsole("error", "wright: blocked a new tab at "+info.URL+" by the URL policy: "+err.Error(), "", 0)
		op.recordBlocked(info.URL, err)
	}
}

func isBlankURL(u string) bool {
	return u == "" || u == "about:blank" || strings.HasPrefix(u, "about:blank#")
}

// pageKind says where a page came from.
type pageKind int

const (
	kindCreated pageKind = iota // by NewPage
	kindPopup                   // opened by one of our pages
	kindForeign                 // anything else: tabs that were open before we attached, tabs other clients or the user opened
)

// adopt attaches to a page target and gives it the next page id. The
// caller holds adoptMu.
func (b *Browser) adopt(ctx context.Context, id proto.TargetTargetID, opener string, kind pageKind) (*Page, error) {
	rp, err := b.attachTarget(ctx, id)
	if err != nil && kind == kindPopup && targetGone(err) {
		return b.closedPopup(&rod.Page{TargetID: id}, opener), nil
	}
	if err != nil {
		return nil, b.targetErr(wrapErr(ErrBrowser, err, "attach to the new page: %s", cdpMessage(err)))
	}
	p := newPage(b, rp, fmt.Sprintf("p%d", b.opts.PageIDs.Add(1)), opener)
	p.created, p.popup = kind == kindCreated, kind == kindPopup
	b.mu.Lock()
	b.pages = append(b.pages, p)
	if b.byTarget == nil {
		b.byTarget = map[proto.TargetTargetID]*Page{}
	}
	b.byTarget[id] = p
	b.mu.Unlock()
	// The viewport is ours to set only on our own pages: the ones we
	// created and their popups. A foreign tab belongs to someone else, in
	// a launched browser too: another client attached to it (a second
	// driver, or a test) creates tabs that we adopt here as foreign, and
	// two sessions overriding the device metrics of one tab fight, so the
	// size the tab ends up with would depend on which session's override
	// Chromium applied last.
	setupCtx, gone := ctx, func() bool { return false }
	if kind == kindPopup {
		var stop func()
		setupCtx, gone, stop = b.watchTarget(ctx, id)
		defer stop()
	}
	b.notePageProxy(p) // before setup enables Fetch (proxy.go)
	err = p.setup(setupCtx, kind != kindForeign)
	if err == nil && kind == kindPopup {
		err = b.inheritContext(setupCtx, p)
	}
	if op := b.pageByID(opener); err == nil && op != nil {
		err = b.fromWindowOpen(setupCtx, p, op)
	}
	if err != nil {
		if kind == kindPopup && (gone() || targetGone(err)) {
			b.announceClosed(p, opener)
			return p, nil
		}
		p.markClosed("setting the page up failed")
		return nil, b.targetErr(err)
	}
	p.ready.Store(true)
	if kind != kindForeign {
		p.recordAll(ctx)
	}
	ev := &PageOpenedEvent{Page: p.id, Opener: opener}
	if opener == "" && kind == kindPopup {
		ev.Context = p.ContextID() // a page of ours opened with no opener (a shift-click)
	}
	b.emit(ev)
	return p, nil
}

// NewPage opens a new tab at about:blank in the default context.
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	return b.DefaultContext().NewPage(ctx)
}

// Pages returns the open pages in creation order.
func (b *Browser) Pages() []*Page {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*Page
	for _, p := range b.pages {
		if p.ready.Load() && !p.isClosed() {
			out = append(out, p)
		}
	}
	return out
}

// Page returns the page with the given id, open or closed; nil if there
// never was one.
func (b *Browser) Page(id string) *Page { return b.pageByID(id) }

func (b *Browser) pageByID(id string) *Page {
	if id == "" {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.pages {
		if p.id == id {
			return p
		}
	}
	return nil
}

func (b *Browser) pageByTarget(id proto.TargetTargetID) *Page {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byTarget[id]
}

// pageOfFrame finds the page a frame belongs to: a main frame's id is its
// page's target id; a child frame is looked up in the frame trees.
func (b *Browser) pageOfFrame(frame proto.PageFrameID) *Page {
	if p := b.pageByTarget(proto.TargetTargetID(frame)); p != nil {
		return p
	}
	for _, p := range b.Pages() {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		tree, err := proto.PageGetFrameTree{}.Call(p.rod.Context(ctx))
		cancel()
		if err == nil && frameIn(tree.FrameTree, frame) {
			return p
		}
	}
	return nil
}

func frameIn(t *proto.PageFrameTree, id proto.PageFrameID) bool {
	if t == nil {
		return false
	}
	if t.Frame != nil && t.Frame.ID == id {
		return true
	}
	for _, c := range t.ChildFrames {
		if frameIn(c, id) {
			return true
		}
	}
	return false
}

// targetGone reports whether a CDP error says the target (or its session)
// no longer exists.
func targetGone(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Session with given id not found") || strings.Contains(msg, "No target with given id") ||
		strings.Contains(msg, "Target closed")
}

// watchTarget returns a context that ends when the target does: a popup
// closed at once leaves calls on its session unanswered, and the pump that
// would hear of its end is the one waiting for them. gone reports whether
// that is why the context ended.
func (b *Browser) watchTarget(ctx context.Context, id proto.TargetTargetID) (_ context.Context, gone func() bool, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	var ended atomic.Bool
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			_, err := proto.TargetGetTargetInfo{TargetID: id}.Call(b.rod.Context(ctx))
			if err != nil && ctx.Err() == nil && targetGone(err) {
				ended.Store(true)
				cancel()
				return
			}
		}
	}()
	return ctx, ended.Load, cancel
}

// closedPopup records a popup that closed before we could attach to it
// (rp only names its target) and announces it.
func (b *Browser) closedPopup(rp *rod.Page, opener string) *Page {
	p := newPage(b, rp, fmt.Sprintf("p%d", b.opts.PageIDs.Add(1)), opener)
	p.popup = true
	b.mu.Lock()
	b.pages = append(b.pages, p)
	if b.byTarget == nil {
		b.byTarget = map[proto.TargetTargetID]*Page{}
	}
	b.byTarget[rp.TargetID] = p
	b.mu.Unlock()
	b.announceClosed(p, opener)
	return p
}

// announceClosed reports a popup the page closed at once
// (window.open(...).close()): still a popup its opener saw open, then
// close.
func (b *Browser) announceClosed(p *Page, opener string) {
	b.emit(&PageOpenedEvent{Page: p.id, Opener: opener})
	p.markClosed("the page was closed")
}
