package browser

import (
	"errors"
	"fmt"
	"strings"
	"time"

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
	var origin Point
	a.origin = &origin
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if err := pause.For(o.ctx, backoff[min(attempt, len(backoff)-1)]); err != nil {
				return Point{}, l.timeoutErr(o, a.waitingFor(), last)
			}
		}
		h, pt, err := l.actionable(o, a)
		if err != nil && last != "" && o.ctx.Err() != nil && !strings.Contains(err.Error(), "last state:") {
			// The time ran out at once in this attempt: what the last one saw says more.
			return Point{}, l.timeoutErr(o, a.waitingFor(), last)
		}
		if err != nil || a.force || !a.pointer {
			return pt, err
		}
		err = l.p.moveInSteps(o, pt, a.steps)
		if err != nil {
			return Point{}, o.fail(err, "moving the mouse to "+l.selector)
		}
		state, err := l.hitAfterMove(o, h, pt, origin)
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
// get the click there ("" when it would). origin is the element's top-left
// as measured before the move.
func (l *Locator) hitAfterMove(o *op, h handle, pt, origin Point) (string, error) {
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

// pressAt clicks count times where the mouse already is (pointerReady
// moved it there), moving only if it is not.
func (p *Page) pressAt(o *op, x, y float64, button MouseButton, count int, delay time.Duration, mods int) error {
	return p.press(o, x, y, button, count, delay, mods, false)
}
