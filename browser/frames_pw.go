package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// observeFrames turns a page's frame tree changes into client events
// (page.frameattached, page.framedetached), so that Playwright's frame and
// context events can be delivered. A frame that is swapped for an
// out-of-process one is not reported as detached: it goes on.
func (p *Page) observeFrames(msg *rod.Message) {
	switch msg.Method {
	case "Page.frameAttached":
		var e proto.PageFrameAttached
		if msg.Load(&e) {
			p.emit("page.frameattached", map[string]any{"frame": string(e.FrameID), "parent": string(e.ParentFrameID),
				"parent_main": e.ParentFrameID == p.mainFrame()})
		}
	case "Page.frameDetached":
		var e proto.PageFrameDetached
		if msg.Load(&e) && e.Reason != proto.PageFrameDetachedReasonSwap {
			p.emit("page.framedetached", map[string]any{"frame": string(e.FrameID)})
		}
	}
}

// FrameOwner keeps a handle on the <iframe> or <frame> element that holds
// the frame with the given CDP frame id (as page.frameattached names it).
func (p *Page) FrameOwner(ctx context.Context, frameID string) (string, error) {
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	owner, err := proto.DOMGetFrameOwner{FrameID: proto.PageFrameID(frameID)}.Call(o.rodPage())
	if err != nil {
		return "", newErr(ErrTargetClosed, "frame %s has no owner element (it was detached): %s", frameID, cdpMessage(err))
	}
	kept, err := proto.DOMResolveNode{BackendNodeID: owner.BackendNodeID, ObjectGroup: handleGroup}.Call(o.rodPage())
	if err != nil {
		return "", newErr(ErrTargetClosed, "frame %s: its owner element is gone: %s", frameID, cdpMessage(err))
	}
	return string(kept.Object.ObjectID), nil
}

// startsAtHandle reports whether the locator is an element handle's
// (its chain starts with handle=).
func (l *Locator) startsAtHandle() bool {
	return len(l.parts) > 0 && l.parts[0].Engine == "handle"
}

// AddInitScriptID is AddInitScript that also returns the script's id, for
// RemoveInitScript (Playwright's disposable add_init_script).
func (p *Page) AddInitScriptID(ctx context.Context, source string) (string, error) {
	if err := p.closedErr(); err != nil {
		return "", err
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	res, err := proto.PageAddScriptToEvaluateOnNewDocument{Source: source}.Call(o.rodPage())
	if err != nil {
		return "", o.fail(p.jsErr(err), "")
	}
	return string(res.Identifier), nil
}

// RemoveInitScript stops an init script from running in the documents
// loaded from now on; an unknown id is fine.
func (p *Page) RemoveInitScript(ctx context.Context, id string) error {
	if err := p.closedErr(); err != nil {
		return nil
	}
	o := p.begin(ctx, 10*time.Second)
	defer o.end()
	_ = proto.PageRemoveScriptToEvaluateOnNewDocument{Identifier: proto.PageScriptIdentifier(id)}.Call(o.rodPage())
	return nil
}
