package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"wright/internal/pause"
)

// Playwright's action details: the call log an action's timeout carries,
// positions relative to the padding box, points scrolled into view.

// checks are the states the action waits for, in Playwright's order.
func (a action) checks() []string {
	var c []string
	if a.visible {
		c = append(c, "visible")
	}
	if a.rendered {
		c = append(c, "rendered")
	}
	if a.enabled {
		c = append(c, "enabled")
	}
	if a.editable {
		c = append(c, "editable")
	}
	if a.stable {
		c = append(c, "stable")
	}
	return c
}

// checksPhrase names the action's checks as Playwright's call log does
// ("visible, enabled and stable").
func (a action) checksPhrase() string {
	c := a.checks()
	switch len(c) {
	case 0:
		return "attached"
	case 1:
		return c[0]
	}
	return strings.Join(c[:len(c)-1], ", ") + " and " + c[len(c)-1]
}

// callLog adds to an action's timeout what was attempted, in the shape of
// Playwright's call log, which scripts and models read and match on.
func (a action) callLog(err error, tries int) error {
	if err == nil || TypeOf(err) != ErrTimeout {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nCall log:\n  - attempting %s action\n", AsError(err).Message, a.name)
	if !a.force {
		fmt.Fprintf(&b, "  -   waiting for element to be %s\n", a.checksPhrase())
	}
	if tries > 1 {
		fmt.Fprintf(&b, "  - retrying %s action (%d attempts)", a.name, tries)
	}
	return newErr(ErrTimeout, "%s", strings.TrimRight(b.String(), "\n"))
}

// paddingPosition turns a position relative to the element's padding box
// (Playwright's) into one relative to its border box.
func (p *Page) paddingPosition(o *op, h handle, pos *Point) *Point {
	if pos == nil {
		return nil
	}
	res, err := proto.RuntimeCallFunctionOn{ObjectID: h.obj, ReturnByValue: true,
		FunctionDeclaration: "function () { return [this.clientLeft || 0, this.clientTop || 0]; }"}.Call(o.rodPage())
	if err != nil || res.ExceptionDetails != nil || res.Result == nil {
		return pos
	}
	arr := res.Result.Value.Arr()
	if len(arr) != 2 {
		return pos
	}
	return &Point{X: pos.X + arr[0].Num(), Y: pos.Y + arr[1].Num()}
}

// scrollToPoint scrolls the element into view, or with a position the
// point of it that will be acted on (a point of a large element may lie
// outside the viewport while its centre is in).
func (p *Page) scrollToPoint(o *op, h handle, pos *Point) error {
	if pos == nil {
		return p.callValue(o, h.ec, "scrollIntoView", nil, objArg(h.obj))
	}
	at := p.paddingPosition(o, h, pos)
	err := callCDP(o.rodPage(), proto.DOMScrollIntoViewIfNeeded{ObjectID: h.obj, Rect: &proto.DOMRect{X: at.X, Y: at.Y, Width: 1, Height: 1}})
	if err != nil {
		return p.callValue(o, h.ec, "scrollIntoView", nil, objArg(h.obj))
	}
	return nil
}

// inViewport reports whether a point in page coordinates lies inside the
// layout viewport (true when the viewport cannot be measured).
func (p *Page) inViewport(o *op, pt Point) bool {
	m, err := (proto.PageGetLayoutMetrics{}).Call(o.rodPage())
	if err != nil || m.CSSLayoutViewport == nil {
		return true
	}
	vw, vh := float64(m.CSSLayoutViewport.ClientWidth), float64(m.CSSLayoutViewport.ClientHeight)
	return pt.X >= 0 && pt.Y >= 0 && pt.X < vw && pt.Y < vh
}

// backoff is how long to wait before each retry of a condition: quick at
// first, then a steady poll.
var backoff = []time.Duration{0, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond, 250 * time.Millisecond}

// poll retries try until it reports done, fails for good, or the op times
// out; the timeout error says what was waited for and the last state seen.
func (l *Locator) poll(o *op, what string, try func() (done bool, state string, err error)) error {
	last := ""
	for attempt := 0; ; attempt++ {
		d := backoff[min(attempt, len(backoff)-1)]
		if attempt > 0 {
			if err := pause.For(o.ctx, d); err != nil {
				return l.timeoutErr(o, what, last)
			}
		}
		done, state, err := try()
		if errors.Is(err, errRetry) {
			last = "the page was navigating"
			continue
		}
		if err != nil {
			o.p.b.settle(err)
			if e := o.p.closedErr(); e != nil {
				return e
			}
			if o.ctx.Err() != nil {
				return l.timeoutErr(o, what, last)
			}
			return asError(err)
		}
		if done {
			return nil
		}
		last = state
	}
}

func (l *Locator) timeoutErr(o *op, what, last string) error {
	if e := o.p.closedErr(); e != nil {
		return e
	}
	if !errors.Is(context.Cause(o.ctx), context.DeadlineExceeded) {
		return o.fail(o.ctx.Err(), "")
	}
	msg := fmt.Sprintf("Timeout %dms exceeded.\nwaiting for %s %s", o.timeout.Milliseconds(), l.selector, what)
	if last != "" {
		msg += "\n  last state: " + last
	}
	return newErr(ErrTimeout, "%s", msg)
}

const noMatch = "no element matches the selector yet"

// waitOne waits for exactly one match in state (attached or visible);
// several matches are a strict-mode violation at once.
func (l *Locator) waitOne(o *op, state ElementState, what string) (handle, error) {
	var found handle
	if what == "" {
		what = "to be " + string(state)
	}
	err := l.poll(o, what, func() (bool, string, error) {
		hs, wait, err := l.strict(o)
		if wait != "" || err != nil {
			return false, wait, err
		}
		if state == stateVisible {
			var vis bool
			if err := l.p.callValue(o, hs[0].ec, "state", &vis, objArg(hs[0].obj), valArg("visible")); err != nil {
				return false, "", err
			}
			if !vis {
				return false, l.one(o, hs[0]) + " is not visible", nil
			}
		}
		found = hs[0]
		return true, "", nil
	})
	return found, err
}

// strict resolves the locator for an action, which needs exactly one
// element: none yet is a reason to keep waiting, several an error.
func (l *Locator) strict(o *op) (hs []handle, wait string, err error) {
	hs, err = l.p.resolve(o, l.parts)
	switch {
	case err != nil:
		return nil, "", err
	case len(hs) == 0:
		return nil, noMatch, nil
	case len(hs) > 1:
		return nil, "", strictError(l.selector, len(hs), l.p.describe(o, hs, 5))
	}
	return hs, "", nil
}

func (l *Locator) one(o *op, h handle) string {
	d := l.p.describe(o, []handle{h}, 1)
	if len(d) == 0 {
		return "the element"
	}
	return d[0]
}

// action says which checks an action needs before it acts.
type action struct {
	name     string
	force    bool
	visible  bool
	rendered bool // laid out, hidden or of no size included (what scrolling to it needs)
	stable   bool
	enabled  bool
	editable bool
	pointer  bool // hit-test at the click point
	position *Point
	steps    int     // mouse moves to the point (click's steps)
	origin   *Point  // if set, receives the element's top-left in page coordinates (pointer actions)
	mouseAt  *string // if set, receives where the element's document last saw the mouse moved to (pointer actions)
	inMain   *bool   // if set, receives whether the element is in the main frame's document
	noScroll bool    // leave the page's scroll position alone (scroll: "none")
	touch    bool    // a touch (tap): the mouse stays where it is, the hit test is made without moving it
}

func (a action) waitingFor() string {
	c := a.checks()
	s := "to be " + strings.Join(c, ", ")
	if a.pointer {
		s += " and to receive pointer events"
	}
	if a.force {
		s = "to be attached"
	}
	return "(" + a.name + ") " + s
}

// actionable waits until the one element the selector matches passes the
// action's checks, and returns it with the page point to act at.
func (l *Locator) actionable(o *op, a action) (handle, Point, error) {
	h, pt, _, err := l.actionableBox(o, a)
	return h, pt, err
}

// actionableBox is actionable that also returns the element's box (nil
// unless the action needs a point).
func (l *Locator) actionableBox(o *op, a action) (_ handle, _ Point, _ *Box, err error) {
	var h handle
	var pt Point
	var box *Box
	tries := 0
	defer func() { err = a.callLog(err, tries) }()
	err = l.poll(o, a.waitingFor(), func() (bool, string, error) {
		tries++
		if !a.force {
			if state, err := l.p.handlers.checkpoint(o); state != "" || err != nil {
				return false, state, err
			}
		}
		hs, wait, err := l.strict(o)
		if wait != "" || err != nil {
			return false, wait, err
		}
		h = hs[0]
		if strings.Contains(l.selector, "handle=") {
			// Only a client's handle can hold a text node; selectors find elements.
			h = l.p.elementOf(o, h)
		}
		if a.inMain != nil {
			ec, err := l.p.main(o)
			*a.inMain = err == nil && ec == h.ec
		}
		if a.force && !l.p.connected(o, h) {
			return false, "", newErr(ErrBrowser, "Element is not attached to the DOM: %s was removed from the page", l.selector)
		}
		// The checks scroll the element into view themselves when the
		// action scrolls to its centre: one round trip, and the layout is
		// fresh for the boxes read next.
		scrolled := !a.force && a.pointer && a.position == nil && !a.noScroll
		if !a.force {
			if wait, err := l.stateWait(o, h, a, scrolled); wait != "" || err != nil {
				return false, wait, err
			}
		}
		if !a.pointer && a.position == nil {
			return true, "", nil
		}
		if !a.noScroll && !scrolled {
			if err := l.p.scrollToPoint(o, h, a.position); err != nil {
				return false, "", err
			}
		}
		p, b, origin, err := l.p.clickPointOrigin(o, h, l.p.paddingPosition(o, h, a.position), scrolled)
		if err != nil {
			return false, "", err
		}
		box = b
		if a.origin != nil {
			*a.origin = origin
		}
		if box == nil && a.force {
			// Nothing to wait for: a forced action does not wait to be visible.
			if rendered, _ := l.p.unionBox(o, h); rendered != nil {
				// Laid out, but with no area to act on (a <br>): no point of it is in the viewport.
				return false, "", newErr(ErrBrowser, "Element is outside of the viewport: %s has no area to act on (zero width or height)", l.one(o, h))
			}
			return false, "", newErr(ErrBrowser, "Element is not visible: %s has no box on the page (zero size or not rendered)", l.one(o, h))
		}
		if box == nil {
			return false, "element is not visible: " + l.one(o, h) + " has no box on the page (zero size or not rendered)", nil
		}
		pt = p
		if a.noScroll && !l.p.inViewport(o, pt) {
			if a.force {
				return false, "", newErr(ErrBrowser, "element is outside of the viewport: %s is not in view and scroll: \"none\" forbids scrolling to it", l.one(o, h))
			}
			return false, "element is outside of the viewport (scroll: \"none\" does not scroll to it)", nil
		}
		if a.force || !a.pointer {
			return true, "", nil
		}
		wait, at, err := l.hitAt(o, h, pt, origin, "", false)
		if wait != "" || err != nil {
			return false, wait, err
		}
		if a.mouseAt != nil {
			*a.mouseAt = at
		}
		return true, "", nil
	})
	return h, pt, box, err
}

// stateWait runs the page's checks of the action's states (visible,
// stable, enabled, editable) on h, and with scroll scrolls h into view when
// it passes them. It returns why the action must wait, "" when h passes
// them all, or an error when waiting cannot help.
func (l *Locator) stateWait(o *op, h handle, a action, scroll bool) (string, error) {
	var st struct {
		State string `json:"state"`
	}
	checks := map[string]bool{"visible": a.visible, "rendered": a.rendered, "stable": a.stable, "enabled": a.enabled, "editable": a.editable}
	if err := l.p.callValue(o, h.ec, "check", &st, objArg(h.obj), valArg(checks), valArg(scroll)); err != nil {
		return "", err
	}
	switch st.State {
	case "ok":
		return "", nil
	case "detached":
		if l.startsAtHandle() {
			// An element handle cannot come back: no point waiting.
			return "", newErr(ErrBrowser, "Element is not attached to the DOM: the element handle's node was removed from the page")
		}
		return "the element was removed from the page", nil
	case "hidden":
		return "element is not visible: " + l.one(o, h), nil
	case "disabled":
		return "element is not enabled: " + l.one(o, h) + " is disabled", nil
	case "readonly":
		return "element is not editable: " + l.one(o, h) + " is readonly", nil
	case "unstable":
		return "element is not stable: " + l.one(o, h) + " is still moving (animating)", nil
	default:
		return "unexpected state " + st.State, nil
	}
}

// hitAt asks the page whether pointer events at pt would reach h, or
// another element is on top of it there; when they would not, the message
// names what is on top, with when added after the point ("" when they
// would). origin is h's top-left in page coordinates. moved tells the
// page that the mouse was just moved to pt; at is the point h's document
// last saw the mouse moved to (mouseAtKey), "" for none.
func (l *Locator) hitAt(o *op, h handle, pt, origin Point, when string, moved bool) (wait, at string, err error) {
	var hit struct {
		OK    bool   `json:"ok"`
		Other string `json:"other"`
		At    string `json:"at"`
	}
	if err := l.p.callValue(o, h.ec, "hitTargetAt", &hit, objArg(h.obj), valArg(pt.X), valArg(pt.Y), valArg(origin.X), valArg(origin.Y), valArg(moved)); err != nil {
		return "", "", err
	}
	if !hit.OK {
		return fmt.Sprintf("%s intercepts pointer events at (%.0f, %.0f) instead of %s%s; wait for it to go away, close it, or pass force: true", hit.Other, pt.X, pt.Y, l.one(o, h), when), hit.At, nil
	}
	return "", hit.At, nil
}

// mouseAtKey is how engine.js's hitTargetAt records a point the mouse was
// moved to: JavaScript's own number to string, which Go's shortest 'g'
// formatting matches for the coordinates CDP gives.
func mouseAtKey(pt Point) string {
	return strconv.FormatFloat(pt.X, 'f', -1, 64) + "," + strconv.FormatFloat(pt.Y, 'f', -1, 64)
}

// clickPoint returns the point to click (the centre of the element's
// visible part, or position from its top-left) and its box, both in page
// coordinates; box is nil when the element has no layout.
func (p *Page) clickPoint(o *op, h handle, position *Point) (Point, *Box, error) {
	pt, box, _, err := p.clickPointOrigin(o, h, position, false)
	return pt, box, err
}

// clickPointOrigin is clickPoint that also returns the top-left of all the
// element's boxes together (its bounding client rect in page coordinates),
// which maps page points into the element's frame: an inline element that
// wraps has one box per line, and the first one's corner is not its rect's.
// fresh says the page laid itself out for h just now (a scroll into view),
// so the quads need no layout of their own. The layout viewport is asked
// for beside the quads, not after them: it only matters without a position.
func (p *Page) clickPointOrigin(o *op, h handle, position *Point, fresh bool) (Point, *Box, Point, error) {
	var metrics chan *proto.PageGetLayoutMetricsResult
	if position == nil {
		metrics = make(chan *proto.PageGetLayoutMetricsResult, 1)
		go func() {
			m, err := (proto.PageGetLayoutMetrics{}).Call(o.rodPage())
			if err != nil {
				m = nil
			}
			metrics <- m
		}()
	}
	// Every return below waits for the viewport's answer: the goroutine
	// ends with the call, and the op's context bounds that.
	viewport := func() *proto.PageGetLayoutMetricsResult {
		if metrics == nil {
			return nil
		}
		m := <-metrics
		metrics = nil
		return m
	}
	defer viewport()
	q, err := p.quads(o, h, fresh)
	if err != nil {
		if strings.Contains(err.Error(), "Could not compute content quads") {
			return Point{}, nil, Point{}, nil
		}
		return Point{}, nil, Point{}, p.jsErr(err)
	}
	origin := Point{X: math.Inf(1), Y: math.Inf(1)}
	for _, quad := range q.Quads {
		for i := 0; i+1 < len(quad); i += 2 {
			origin.X, origin.Y = math.Min(origin.X, quad[i]), math.Min(origin.Y, quad[i+1])
		}
	}
	var box *Box
	for _, quad := range q.Quads {
		if len(quad) != 8 {
			continue
		}
		minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for i := 0; i < 8; i += 2 {
			minX, maxX = math.Min(minX, quad[i]), math.Max(maxX, quad[i])
			minY, maxY = math.Min(minY, quad[i+1]), math.Max(maxY, quad[i+1])
		}
		if maxX-minX >= 1 && maxY-minY >= 1 {
			box = &Box{X: minX, Y: minY, Width: maxX - minX, Height: maxY - minY}
			break
		}
	}
	if box == nil {
		return Point{}, nil, Point{}, nil
	}
	if position != nil {
		return Point{X: box.X + position.X, Y: box.Y + position.Y}, box, origin, nil
	}
	// The centre of the part inside the viewport, so elements larger than
	// the viewport are clicked where they can be seen.
	x0, y0, x1, y1 := box.X, box.Y, box.X+box.Width, box.Y+box.Height
	if m := viewport(); m != nil && m.CSSLayoutViewport != nil {
		vw, vh := float64(m.CSSLayoutViewport.ClientWidth), float64(m.CSSLayoutViewport.ClientHeight)
		x0, y0 = math.Max(x0, 0), math.Max(y0, 0)
		x1, y1 = math.Min(x1, vw), math.Min(y1, vh)
		if x1 <= x0 || y1 <= y0 {
			x0, y0, x1, y1 = box.X, box.Y, box.X+box.Width, box.Y+box.Height
		}
	}
	return Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, box, origin, nil
}

// pointerReady waits for the element to be actionable, moves the mouse to
// the action's point and checks that the element still receives pointer
// events there: moving onto an element can show an overlay (a menu, an
// interstitial) that would take the click instead. When something else is
// hit after the move, the action goes back to waiting, and the locator
// handlers get their turn, as in Playwright.
//
// A mouse that is over the point already, in this same document (the last
// click was here), is not moved again, as a hand that stays put sends no
// mousemove; the hit test made just before stands for the one after the
// move. Chromium dispatches a mouse move at the next frame, so a repeated
// click saves that frame.
func (l *Locator) pointerReady(o *op, a action) (Point, error) {
	last := ""
	var origin Point
	var at string
	a.origin, a.mouseAt = &origin, &at
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
		if !a.touch {
			moved, err := l.p.mouse.moveUnlessAt(o, pt, a.steps, at)
			if err != nil {
				return Point{}, o.fail(err, "moving the mouse to "+l.selector)
			}
			if !moved {
				return pt, nil
			}
		}
		state, err := l.hitAfterMove(o, h, pt, origin, !a.touch)
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
// as measured before the move; moved records the move in the document (a
// tap leaves the mouse where it is).
func (l *Locator) hitAfterMove(o *op, h handle, pt, origin Point, moved bool) (string, error) {
	wait, _, err := l.hitAt(o, h, pt, origin, " once the mouse is over it", moved)
	return wait, err
}

// elementOf is the element an action on h acts on: h itself, or the parent
// element of a text node (an element handle can hold one: evaluate_handle of
// a node's firstChild), as Playwright retargets it. h is returned unchanged
// when it is not a text node or the question cannot be answered.
func (p *Page) elementOf(o *op, h handle) handle {
	res, err := proto.RuntimeCallFunctionOn{ObjectID: h.obj, ObjectGroup: o.objectGroup(),
		FunctionDeclaration: "function () { return this.nodeType === Node.TEXT_NODE && this.parentElement ? this.parentElement : this; }",
	}.Call(o.rodPage())
	if err != nil || res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
		return h
	}
	return handle{ec: h.ec, obj: res.Result.ObjectID}
}

// contentQuads are the element's boxes in the page's current layout.
// DOM.getContentQuads reads the layout as the last rendering update left
// it, so a box asked right after a script changed the page was the old one
// (or none, for an element just inserted): three calls in four, measured.
// Reading the element's rect first makes the page lay itself out.
func (p *Page) contentQuads(o *op, h handle) (*proto.DOMGetContentQuadsResult, error) {
	return p.quads(o, h, false)
}

// quads is contentQuads; fresh skips the layout when the caller's last
// call into the page (a scroll into view, which lays the page out) made it.
func (p *Page) quads(o *op, h handle, fresh bool) (*proto.DOMGetContentQuadsResult, error) {
	if !fresh {
		_, _ = proto.RuntimeCallFunctionOn{ObjectID: h.obj, ReturnByValue: true,
			FunctionDeclaration: `function () { const e = this.nodeType === 1 ? this : this.parentElement; if (e) e.getBoundingClientRect(); }`,
		}.Call(o.rodPage())
	}
	return proto.DOMGetContentQuads{ObjectID: h.obj}.Call(o.rodPage())
}

// unionBox is the box around all of an element's content quads (every line
// box of an inline element, as getBoundingClientRect gives it) in main-frame
// viewport coordinates; nil when the element has no layout.
func (p *Page) unionBox(o *op, h handle) (*Box, error) {
	q, err := p.contentQuads(o, h)
	if err != nil {
		if strings.Contains(err.Error(), "Could not compute content quads") {
			return nil, nil
		}
		return nil, p.jsErr(err)
	}
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, quad := range q.Quads {
		for i := 0; i+1 < len(quad); i += 2 {
			minX, maxX = math.Min(minX, quad[i]), math.Max(maxX, quad[i])
			minY, maxY = math.Min(minY, quad[i+1]), math.Max(maxY, quad[i+1])
		}
	}
	if math.IsInf(minX, 1) {
		return nil, nil
	}
	return &Box{X: minX, Y: minY, Width: maxX - minX, Height: maxY - minY}, nil
}

// beforeInput runs before every input action: it waits slow_mo and makes
// sure the page is the visible tab, since Chromium holds input to hidden
// tabs (a popup hides its opener) for seconds.
func (p *Page) beforeInput(o *op) error {
	if err := p.ensureVisible(o); err != nil {
		return err
	}
	return pause.For(o.ctx, p.b.opts.SlowMo)
}

func (p *Page) ensureVisible(o *op) error {
	res, err := proto.RuntimeEvaluate{Expression: "document.visibilityState", ReturnByValue: true}.Call(o.rodPage())
	if err != nil || res.Result == nil || res.Result.Value.Str() != "hidden" {
		return nil // a navigating page is checked again on the next action
	}
	return callCDP(o.rodPage(), proto.PageBringToFront{})
}

// inputTimeout gives slow typing the time it asks for on top of the default.
func (p *Page) inputTimeout(n int, delay time.Duration) time.Duration {
	return p.b.opts.timeout() + time.Duration(n)*delay
}
