package browser

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"wright/internal/pause"
)

// Locator handlers (Playwright's page.add_locator_handler): an overlay that
// may show up at any time (a cookie banner, a newsletter popup) is handled
// by the client's callback whenever it is visible before an action's
// checks. The driver checks the handlers' locators at each attempt of an
// action (and when the client asks, from expect()); when one is visible it
// sends page.locator_handler and waits until the client answers with
// page.resolve_locator_handler, then, unless noWaitAfter, waits for the
// locator to be hidden before it goes on with the action.

type locatorHandler struct {
	uid         int
	loc         *Locator
	desc        string // how error messages name the locator
	noWaitAfter bool
	done        chan bool // non-nil while the client runs the handler; receives "remove"
}

// LocatorHandlers are a page's locator handlers (Playwright's
// page.add_locator_handler).
type LocatorHandlers struct {
	p    *Page
	mu   sync.Mutex
	next int
	byID map[int]*locatorHandler
	// running counts handlers the client runs now: actions they make
	// themselves skip the checkpoint, as in Playwright.
	running atomic.Int32
}

// Add registers a handler for selector and returns its uid.
// desc names the locator in error messages (the client's own spelling).
func (hs *LocatorHandlers) Add(selector, desc string, noWaitAfter bool) (int, error) {
	p := hs.p
	l, err := p.Locator(selector)
	if err != nil {
		return 0, err
	}
	if desc == "" {
		desc = selector
	}
	hs.mu.Lock()
	defer hs.mu.Unlock()
	if hs.byID == nil {
		hs.byID = map[int]*locatorHandler{}
	}
	hs.next++
	hs.byID[hs.next] = &locatorHandler{uid: hs.next, loc: l, desc: desc, noWaitAfter: noWaitAfter}
	return hs.next, nil
}

// Remove forgets a handler; an unknown uid is not an error.
func (hs *LocatorHandlers) Remove(uid int) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	delete(hs.byID, uid)
}

// Resolve is the client's answer: the handler has run (and,
// with remove, is not to run again).
func (hs *LocatorHandlers) Resolve(uid int, remove bool) {
	hs.mu.Lock()
	h := hs.byID[uid]
	var done chan bool
	if h != nil {
		done, h.done = h.done, nil
		if remove {
			delete(hs.byID, uid)
		}
	}
	hs.mu.Unlock()
	if done != nil {
		done <- remove
	}
}

// pending lists the handlers that may run now, in the order they were added.
func (hs *LocatorHandlers) pending() []*locatorHandler {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	out := make([]*locatorHandler, 0, len(hs.byID))
	for _, h := range hs.byID {
		if h.done == nil {
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].uid < out[j].uid })
	return out
}

// Run is the checkpoint on its own, for the client's
// retrying assertions: it runs the handlers whose locator is visible now.
func (hs *LocatorHandlers) Run(ctx context.Context, timeout time.Duration) error {
	p := hs.p
	o := p.begin(ctx, timeout)
	defer o.end()
	state, err := hs.checkpoint(o)
	if err != nil {
		return err
	}
	if state != "" && o.ctx.Err() != nil {
		if e := p.closedErr(); e != nil {
			return e
		}
		return newErr(ErrTimeout, "Timeout %dms exceeded.\n%s", o.timeout.Milliseconds(), state)
	}
	return nil
}

// checkpoint runs, one after the other, the handlers whose locator
// is visible. It returns a state for the action's timeout message when the
// op's time ran out while it waited, and an error only when the page went
// away.
func (hs *LocatorHandlers) checkpoint(o *op) (string, error) {
	p := hs.p
	if hs.running.Load() > 0 || !p.b.hasSubscribers() {
		return "", nil
	}
	for _, h := range hs.pending() {
		if !hs.visible(o, h.loc) {
			continue
		}
		if state, err := hs.run(o, h); state != "" || err != nil {
			return state, err
		}
	}
	return "", nil
}

func (hs *LocatorHandlers) visible(o *op, l *Locator) bool {
	p := hs.p
	found, err := l.p.resolve(o, l.parts)
	if err != nil {
		return false
	}
	for _, h := range found {
		var vis bool
		if err := p.callValue(o, h.ec, "state", &vis, objArg(h.obj), valArg("visible")); err == nil && vis {
			return true
		}
	}
	return false
}

func (hs *LocatorHandlers) run(o *op, h *locatorHandler) (string, error) {
	p := hs.p
	done := make(chan bool, 1)
	hs.mu.Lock()
	if h.done != nil || hs.byID[h.uid] != h {
		hs.mu.Unlock()
		return "", nil
	}
	h.done = done
	hs.mu.Unlock()
	hs.running.Add(1)
	p.emit(&LocatorHandlerEvent{UID: h.uid})
	waiting := "waiting for the locator handler of " + h.desc + " to finish"
	select {
	case <-done:
		hs.running.Add(-1)
	case <-o.ctx.Done():
		// The client still runs it; the handler counts as running until it answers.
		go func() {
			select {
			case <-done:
			case <-p.ctx.Done():
			}
			hs.running.Add(-1)
		}()
		if e := p.closedErr(); e != nil {
			return "", e
		}
		return waiting, nil
	}
	if h.noWaitAfter {
		return "", nil
	}
	for attempt := 0; hs.visible(o, h.loc); attempt++ {
		if err := pause.For(o.ctx, backoff[min(attempt+1, len(backoff)-1)]); err != nil {
			if e := p.closedErr(); e != nil {
				return "", e
			}
			return "locator handler has finished, waiting for " + h.desc + " to be hidden", nil
		}
	}
	return "", nil
}
