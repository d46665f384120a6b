package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod"
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
