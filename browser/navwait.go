package browser

import (
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

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
	// A form's submission is a task the input queued: let the page's main
	// thread run it before looking. An error (the page navigated away)
	// says as much.
	if ec, err := p.main(o); err == nil {
		_, _ = proto.RuntimeEvaluate{Expression: "new Promise(r => setTimeout(r, 0))", AwaitPromise: true, ContextID: ec.id}.Call(o.rodPage())
	}
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
			// The action itself was done; a navigation that never
			// committed in the action's time is not its failure.
			return nil
		}
	}
}
