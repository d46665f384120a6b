package browser

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
)

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
	if info.OpenerID != "" && !info.CanAccessOpener {
		// A popup without access to its opener (noopener, or a link's
		// target=_blank) has no renderer until its first navigation is let
		// go: Page.enable would wait for a resume that never comes. It
		// runs at once and is adopted as before, its settings late.
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
