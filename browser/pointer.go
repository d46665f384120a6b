package browser

import (
	"errors"
	"fmt"
	"math"

	"wright/pause"
)

// pointerReady waits for the element to be actionable, moves the mouse to
// the action's point and checks that the element still receives pointer
// events there: moving onto an element can show an overlay (a menu, an
// interstitial) that would take the click instead. When something else is
// hit after the move, the action goes back to waiting, and the locator
// handlers get their turn, as in Playwright.
func (l *Locator) pointerReady(o *op, a action) (Point, error) {
	last := ""
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if err := pause.For(o.ctx, backoff[min(attempt, len(backoff)-1)]); err != nil {
				return Point{}, l.timeoutErr(o, a.waitingFor(), last)
			}
		}
		h, pt, err := l.actionable(o, a)
		if err != nil || a.force || !a.pointer {
			return pt, err
		}
		err = l.p.moveInSteps(o, pt, a.steps)
		if err != nil {
			return Point{}, o.fail(err, "moving the mouse to "+l.selector)
		}
		state, err := l.hitAfterMove(o, h, a.position, pt)
		switch {
		case errors.Is(err, errRetry):
			last = "the page was navigating"
		case err != nil:
			if e := l.p.closedErr(); e != nil {
				return Point{}, e
			}
			if o.ctx.Err() != nil {
				return Point{}, l.timeoutErr(o, a.waitingFor(), last)
			}
			return Point{}, asError(err)
		case state == "":
			return pt, nil
		default:
			last = state
		}
	}
}

// hitAfterMove says, after the mouse moved to pt, why the element would not
// get the click there ("" when it would).
func (l *Locator) hitAfterMove(o *op, h handle, position *Point, pt Point) (string, error) {
	now, box, origin, err := l.p.clickPointOrigin(o, h, l.p.paddingPosition(o, h, position))
	if err != nil {
		return "", err
	}
	if box == nil {
		return "element is not visible: " + l.one(o, h) + " has no box on the page (zero size or not rendered)", nil
	}
	if math.Abs(now.X-pt.X) > 1 || math.Abs(now.Y-pt.Y) > 1 {
		return "element is not stable: " + l.one(o, h) + " moved when the mouse reached it", nil
	}
	var hit struct {
		OK    bool   `json:"ok"`
		Other string `json:"other"`
	}
	if err := l.p.callValue(o, h.ec, "hitTargetAt", &hit, objArg(h.obj), valArg(pt.X), valArg(pt.Y), valArg(origin.X), valArg(origin.Y)); err != nil {
		return "", err
	}
	if !hit.OK {
		return fmt.Sprintf("%s intercepts pointer events at (%.0f, %.0f) instead of %s once the mouse is over it; wait for it to go away, close it, or pass force: true", hit.Other, pt.X, pt.Y, l.one(o, h)), nil
	}
	return "", nil
}
