package browser

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// frameLoads records the lifecycle events and document statuses of one
// frame's documents while a navigation of it is waited for.
type frameLoads struct {
	mu      sync.Mutex
	events  map[proto.NetworkLoaderID]map[string]bool
	status  map[proto.NetworkLoaderID]int
	gone    bool // the frame was detached: its navigation can never end
	changed chan struct{}
}

func (f *frameLoads) detached() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.gone = true
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *frameLoads) note(loader proto.NetworkLoaderID, event string, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if event != "" {
		if f.events[loader] == nil {
			f.events[loader] = map[string]bool{}
		}
		f.events[loader][event] = true
	}
	if status != 0 {
		f.status[loader] = status
	}
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *frameLoads) seen(loader proto.NetworkLoaderID, event string) (ok bool, status int, gone bool, changed <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.events[loader][event], f.status[loader], f.gone, f.changed
}

// Goto navigates the frame (Playwright's frame.goto of a child frame) and
// waits for waitUntil of the document it loads. It follows that frame's
// document alone: Page.Goto is the main frame's navigation, which also keeps
// the page's state (its URL, its document's status, the navigations the URL
// policy refused), so the page does not go through this one.
func (f *Frame) Goto(ctx context.Context, url, referer string, waitUntil WaitUntil, timeout time.Duration) (GotoResult, error) {
	p := f.p
	url, ev, err := p.gotoTarget(url, waitUntil)
	if err != nil {
		return GotoResult{}, err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	loads := &frameLoads{events: map[proto.NetworkLoaderID]map[string]bool{}, status: map[proto.NetworkLoaderID]int{}, changed: make(chan struct{})}
	fid := f.id
	// Listen before navigating: the events of the new document may come
	// before Page.navigate answers.
	wait := o.rodPage().EachEvent(func(e *proto.PageLifecycleEvent) {
		if e.FrameID == fid {
			loads.note(e.LoaderID, string(e.Name), 0)
		}
	}, func(e *proto.NetworkResponseReceived) {
		if e.FrameID == fid && e.Type == proto.NetworkResourceTypeDocument {
			loads.note(e.LoaderID, "", e.Response.Status)
		}
	}, func(e *proto.PageFrameDetached) {
		if e.FrameID == fid && e.Reason != proto.PageFrameDetachedReasonSwap {
			loads.detached() // removed from its parent: a swap to another process is the same frame
		}
	})
	listening := make(chan struct{})
	go func() {
		defer close(listening)
		wait() // ends with the op's context
	}()
	defer func() {
		o.cancel()
		<-listening
	}()
	nav := proto.PageNavigate{URL: url, FrameID: fid, Referrer: referer}
	if referer != "" {
		// A referer the caller names is sent as given: the page's default
		// policy would trim or drop one from another origin.
		nav.ReferrerPolicy = proto.PageReferrerPolicyUnsafeURL
	}
	res, err := nav.Call(o.rodPage())
	if err != nil {
		return GotoResult{}, o.fail(p.jsErr(err), fmt.Sprintf("navigating frame to %s", url))
	}
	if res.ErrorText != "" && res.ErrorText != "net::ERR_HTTP_RESPONSE_CODE_FAILURE" {
		if _, _, gone, _ := loads.seen(res.LoaderID, ev); gone || !p.hasFrame(o, fid) {
			// Aborted because the frame went, not by the network.
			return GotoResult{}, newErr(ErrNavigation, "Navigating frame was detached! (navigating to %s: the frame was removed from its page; %s)", url, res.ErrorText)
		}
		res.ErrorText = p.tunnelError(o.ctx, url, res.ErrorText)
		return GotoResult{}, newErr(ErrNavigation, "navigation to %s failed: %s", url, res.ErrorText)
	}
	if res.LoaderID == "" { // same-document navigation
		return GotoResult{URL: url}, nil
	}
	for {
		ok, status, gone, ch := loads.seen(res.LoaderID, ev)
		if ok {
			return GotoResult{URL: url, Status: status}, nil
		}
		if gone {
			return GotoResult{}, newErr(ErrNavigation, "Navigating frame was detached! (navigating to %s: the frame was removed from its page)", url)
		}
		if err := o.waitChange(ch, time.Second); err != nil {
			return GotoResult{}, o.fail(err, fmt.Sprintf("navigating frame to %q, waiting until %q", url, strings.ToLower(ev)))
		}
		if err := p.closedErr(); err != nil {
			return GotoResult{}, err
		}
	}
}

// hasFrame says whether the page still has the frame (true when it cannot
// tell): a navigation that failed as the frame went reports the detach.
func (p *Page) hasFrame(o *op, fid proto.PageFrameID) bool {
	tree, err := proto.PageGetFrameTree{}.Call(o.rodPage())
	return err != nil || frameIn(tree.FrameTree, fid)
}

// name is the load state as Playwright spells it ("load" when unset).
func (w WaitUntil) name() string {
	if w == "" {
		return string(Load)
	}
	return string(w)
}

type blockedNav struct {
	url string
	err error
	at  time.Time
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
	return p.GotoReferer(ctx, url, "", waitUntil, timeout)
}

// GotoReferer is Goto with the Referer header of the navigation's request
// ("" for none).
func (p *Page) GotoReferer(ctx context.Context, url, referer string, waitUntil WaitUntil, timeout time.Duration) (GotoResult, error) {
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
	nav := proto.PageNavigate{URL: url, Referrer: referer}
	if referer != "" {
		nav.ReferrerPolicy = proto.PageReferrerPolicyUnsafeURL // as given (see Frame.Goto)
	}
	res, err := nav.Call(o.rodPage())
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

// localHost matches a URL written without its scheme that names this
// machine: "localhost:8000/x", "127.0.0.1/x", "[::1]:3000". Parsed as it
// is, "localhost:8000/x" has the scheme "localhost"; people (and models)
// mean http.
var localHost = regexp.MustCompile(`(?i)^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?([/?#]|$)`)

// completeURL adds http:// to a scheme-less URL of this machine, as
// Playwright's goto does; every other URL is left as it is.
func completeURL(u string) string {
	if localHost.MatchString(u) {
		return "http://" + u
	}
	return u
}

// trackNavigation keeps the page's URL, loader and load events and its
// documents' statuses current from its CDP events (Page.pump).
func (p *Page) trackNavigation(msg *rod.Message) {
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
	}
}

// ---- actions that wait for the navigation they start ----------------------

// An action that starts a navigation (a click on a submit button or a
// link, Enter in a form) returns only once that navigation has committed,
// as Playwright's actions do: otherwise the script's next call (a goto, a
// read of the page) races a navigation that has not happened yet, and a
// late form submission overtakes the goto that followed it. no_wait_after
// keeps the old behaviour. Navigations into a new tab or window are not
// waited for.

// navWatches are the actions waiting for the navigations they start.
type navWatches struct {
	mu   sync.Mutex
	list map[*navWatch]bool
}

// navWatch is one action's view: the frames whose requested navigation has
// neither committed nor stopped.
type navWatch struct {
	pending map[proto.PageFrameID]bool
	changed chan struct{}
}

// noteNavigation is the page pump's hook: it keeps each watching action's
// pending frames.
func (p *Page) noteNavigation(msg *rod.Message) {
	var frame proto.PageFrameID
	add := false
	switch msg.Method {
	case "Page.frameRequestedNavigation":
		var e proto.PageFrameRequestedNavigation
		if !msg.Load(&e) || e.Disposition != proto.PageClientNavigationDispositionCurrentTab {
			return
		}
		frame, add = e.FrameID, true
	case "Page.frameNavigated":
		var e proto.PageFrameNavigated
		if !msg.Load(&e) {
			return
		}
		frame = e.Frame.ID
	case "Page.frameStoppedLoading":
		var e proto.PageFrameStoppedLoading
		if !msg.Load(&e) {
			return
		}
		frame = e.FrameID
	case "Page.navigatedWithinDocument":
		var e proto.PageNavigatedWithinDocument
		if !msg.Load(&e) {
			return
		}
		frame = e.FrameID
	case "Page.frameDetached":
		var e proto.PageFrameDetached
		if !msg.Load(&e) {
			return
		}
		frame = e.FrameID
	case "Page.downloadWillBegin": // the navigation became a download
		var e proto.PageDownloadWillBegin
		if !msg.Load(&e) {
			return
		}
		frame = e.FrameID
	default:
		return
	}
	p.navs.mu.Lock()
	defer p.navs.mu.Unlock()
	for w := range p.navs.list {
		if add {
			w.pending[frame] = true
		} else {
			delete(w.pending, frame)
		}
		close(w.changed)
		w.changed = make(chan struct{})
	}
}

// waitNavigationsOf runs act and then, unless noWait, waits until every
// navigation it started in this page has committed (or stopped).
func (p *Page) waitNavigationsOf(o *op, noWait bool, what string, act func() error) error {
	return p.waitNavigationsAfter(o, noWait, act, func() {
		// A form's submission is a task the input queued: let the page's
		// main thread run it before looking. An error (the page navigated
		// away) says as much.
		if ec, err := p.main(o); err == nil {
			_, _ = proto.RuntimeEvaluate{Expression: "new Promise(r => setTimeout(r, 0))", AwaitPromise: true, ContextID: ec.id}.Call(o.rodPage())
		}
	})
}

// waitNavigationsAfter runs act and then, unless noWait, barrier, and
// waits until every navigation act started in this page has committed (or
// stopped).
func (p *Page) waitNavigationsAfter(o *op, noWait bool, act func() error, barrier func()) error {
	if noWait {
		return act()
	}
	w := &navWatch{pending: map[proto.PageFrameID]bool{}, changed: make(chan struct{})}
	p.navs.mu.Lock()
	if p.navs.list == nil {
		p.navs.list = map[*navWatch]bool{}
	}
	p.navs.list[w] = true
	p.navs.mu.Unlock()
	defer func() {
		p.navs.mu.Lock()
		delete(p.navs.list, w)
		p.navs.mu.Unlock()
	}()
	if err := act(); err != nil {
		return err
	}
	barrier()
	for {
		p.navs.mu.Lock()
		n, ch := len(w.pending), w.changed
		p.navs.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-o.ctx.Done():
			if err := p.closedErr(); err != nil {
				return err
			}
			// The action was done; a navigation that did not commit in
			// the action's time is not its failure.
			return nil
		}
	}
}
