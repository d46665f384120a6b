package browser

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

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
	b.emit("browser.page", map[string]any{"page": p.id, "opener": opener})
	p.markClosed("the page was closed")
}
