package browser

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"wright/pause"
)

// Locator is a page and a selector. It holds no element: every call
// resolves the selector again, so it survives re-renders and navigations.
type Locator struct {
	p        *Page
	selector string
	parts    []part
}

// Page is the page the locator searches.
func (l *Locator) Page() *Page { return l.p }

// Locator parses selector (see PROTOCOL.md, "Selectors") for use on p.
// A malformed selector is an InvalidSelector error here, not later.
func (p *Page) Locator(selector string) (*Locator, error) {
	parts, err := parseSelector(selector, p.b.hasCustomEngine)
	if err != nil {
		return nil, err
	}
	return &Locator{p: p, selector: selector, parts: parts}, nil
}

// Selector is the locator's selector.
func (l *Locator) Selector() string { return l.selector }

// Point is a position in CSS pixels.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Box is an element's bounding box relative to the main frame's viewport.
type Box struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// ElementState is what locator.wait_for and page.wait_for_selector wait for.
type ElementState string

// The element states.
const (
	stateAttached ElementState = "attached"
	stateDetached ElementState = "detached"
	stateVisible  ElementState = "visible"
	stateHidden   ElementState = "hidden"
)

func (s ElementState) valid() (ElementState, error) {
	switch s {
	case "":
		return stateVisible, nil
	case stateAttached, stateDetached, stateVisible, stateHidden:
		return s, nil
	}
	return "", newErr(ErrInvalidParams, "state must be attached, detached, visible or hidden, not %q", string(s))
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
	stable   bool
	enabled  bool
	editable bool
	pointer  bool // hit-test at the click point
	position *Point
	steps    int    // mouse moves to the point (click's steps)
	origin   *Point // if set, receives the element's top-left in page coordinates (pointer actions)
	noScroll bool   // leave the page's scroll position alone (scroll: "none")
}

func (a action) waitingFor() string {
	var c []string
	if a.visible {
		c = append(c, "visible")
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
			if state, err := l.p.handlerCheckpoint(o); state != "" || err != nil {
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
		if a.force && !l.p.connected(o, h) {
			return false, "", newErr(ErrBrowser, "Element is not attached to the DOM: %s was removed from the page", l.selector)
		}
		if !a.force {
			var st struct {
				State string `json:"state"`
			}
			checks := map[string]bool{"visible": a.visible, "stable": a.stable, "enabled": a.enabled, "editable": a.editable}
			if err := l.p.callValue(o, h.ec, "check", &st, objArg(h.obj), valArg(checks)); err != nil {
				return false, "", err
			}
			switch st.State {
			case "ok":
			case "detached":
				if l.startsAtHandle() {
					// An element handle cannot come back: no point waiting.
					return false, "", newErr(ErrBrowser, "Element is not attached to the DOM: the element handle's node was removed from the page")
				}
				return false, "the element was removed from the page", nil
			case "hidden":
				return false, "element is not visible: " + l.one(o, h), nil
			case "disabled":
				return false, "element is not enabled: " + l.one(o, h) + " is disabled", nil
			case "readonly":
				return false, "element is not editable: " + l.one(o, h) + " is readonly", nil
			case "unstable":
				return false, "element is not stable: " + l.one(o, h) + " is still moving (animating)", nil
			default:
				return false, "unexpected state " + st.State, nil
			}
		}
		if !a.pointer && a.position == nil {
			return true, "", nil
		}
		if !a.noScroll {
			if err := l.p.scrollToPoint(o, h, a.position); err != nil {
				return false, "", err
			}
		}
		p, b, origin, err := l.p.clickPointOrigin(o, h, l.p.paddingPosition(o, h, a.position))
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
		var hit struct {
			OK    bool   `json:"ok"`
			Other string `json:"other"`
		}
		if err := l.p.callValue(o, h.ec, "hitTargetAt", &hit, objArg(h.obj), valArg(pt.X), valArg(pt.Y), valArg(origin.X), valArg(origin.Y)); err != nil {
			return false, "", err
		}
		if !hit.OK {
			return false, fmt.Sprintf("%s intercepts pointer events at (%.0f, %.0f) instead of %s; wait for it to go away, close it, or pass force: true", hit.Other, pt.X, pt.Y, l.one(o, h)), nil
		}
		return true, "", nil
	})
	return h, pt, box, err
}

// clickPoint returns the point to click (the centre of the element's
// visible part, or position from its top-left) and its box, both in page
// coordinates; box is nil when the element has no layout.
func (p *Page) clickPoint(o *op, h handle, position *Point) (Point, *Box, error) {
	pt, box, _, err := p.clickPointOrigin(o, h, position)
	return pt, box, err
}

// clickPointOrigin is clickPoint that also returns the top-left of all the
// element's boxes together (its bounding client rect in page coordinates),
// which maps page points into the element's frame: an inline element that
// wraps has one box per line, and the first one's corner is not its rect's.
func (p *Page) clickPointOrigin(o *op, h handle, position *Point) (Point, *Box, Point, error) {
	q, err := proto.DOMGetContentQuads{ObjectID: h.obj}.Call(o.rodPage())
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
	if m, err := (proto.PageGetLayoutMetrics{}).Call(o.rodPage()); err == nil && m.CSSLayoutViewport != nil {
		vw, vh := float64(m.CSSLayoutViewport.ClientWidth), float64(m.CSSLayoutViewport.ClientHeight)
		x0, y0 = math.Max(x0, 0), math.Max(y0, 0)
		x1, y1 = math.Min(x1, vw), math.Min(y1, vh)
		if x1 <= x0 || y1 <= y0 {
			x0, y0, x1, y1 = box.X, box.Y, box.X+box.Width, box.Y+box.Height
		}
	}
	return Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, box, origin, nil
}

// ClickOptions shape a click.
type ClickOptions struct {
	Button     MouseButton
	ClickCount int
	Delay      time.Duration // between press and release
	Force      bool          // skip the actionability checks
	Modifiers  []string      // Alt, Control, Meta, Shift held during the click
	Position   *Point        // relative to the element's padding box top-left; default its centre
	Steps      int           // mouse moves to the point (default 1)
	Timeout    time.Duration
	NoScroll   bool // never scroll: wait until the point is in the viewport where the element already is
	// NoWaitAfter returns as soon as the click is sent, without waiting for
	// a navigation it starts to commit (navwait.go).
	NoWaitAfter bool
}

// Click waits for the element to be actionable and clicks it.
func (l *Locator) Click(ctx context.Context, opts ClickOptions) error {
	return l.click(ctx, "click", opts)
}

// DblClick double-clicks the element.
func (l *Locator) DblClick(ctx context.Context, opts ClickOptions) error {
	opts.ClickCount = 2
	return l.click(ctx, "dblclick", opts)
}

func (l *Locator) click(ctx context.Context, name string, opts ClickOptions) error {
	mods, err := modifierMask(opts.Modifiers)
	if err != nil {
		return err
	}
	if _, _, err := opts.Button.proto(); err != nil {
		return err
	}
	o := l.p.begin(ctx, opts.Timeout)
	defer o.end()
	pt, err := l.pointerReady(o, action{name: name, force: opts.Force, visible: true, stable: true, enabled: true, pointer: true, position: opts.Position, steps: opts.Steps, noScroll: opts.NoScroll})
	if err != nil {
		return err
	}
	if err := l.p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	before := l.p.documentURL(o)
	err = l.p.waitNavigationsOf(o, opts.NoWaitAfter, "the click", func() error {
		if err := l.p.clickWith(o, pt, opts, mods); err != nil {
			return o.fail(err, "clicking "+l.selector)
		}
		return nil
	})
	if err != nil {
		return err
	}
	l.p.settleURL(o, before)
	return nil
}

// Hover moves the mouse over the element.
func (l *Locator) Hover(ctx context.Context, force bool, timeout time.Duration) error {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	pt, err := l.pointerReady(o, action{name: "hover", force: force, visible: true, stable: true, pointer: true})
	if err != nil {
		return err
	}
	if err := l.p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	l.p.inputMu.Lock()
	err = l.p.moveTo(o, pt.X, pt.Y, 0)
	l.p.inputMu.Unlock()
	if err != nil {
		return o.fail(err, "hovering "+l.selector)
	}
	return nil
}

// Fill replaces the value of an input, textarea or contenteditable element,
// firing input and change events.
func (l *Locator) Fill(ctx context.Context, value string, force bool, timeout time.Duration) error {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	h, _, err := l.actionable(o, action{name: "fill", force: force, visible: true, enabled: true, editable: true})
	if err != nil {
		return err
	}
	pieces, secret, err := l.p.secretPieces(value)
	if err != nil {
		return o.fail(err, "")
	}
	if secret {
		// The element's own document first: prepareFill sets some inputs'
		// values itself.
		if err := l.p.mayFill(o, h.ec.frame, pieces); err != nil {
			return o.fail(err, "")
		}
		value = joinPieces(pieces)
	}
	if err := l.p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	var mode string
	if err := l.p.callValue(o, h.ec, "prepareFill", &mode, objArg(h.obj), valArg(value)); err != nil {
		return o.fail(err, "")
	}
	if mode == "type" {
		if secret {
			// The text goes wherever the focus is now: prepareFill's focus
			// may have run a page handler that moved it.
			if err := l.p.mayFill(o, "", pieces); err != nil {
				return o.fail(err, "")
			}
		}
		if value == "" {
			err = l.p.pressCombo(o, "Delete", 0)
		} else {
			err = callCDP(o.rodPage(), proto.InputInsertText{Text: value})
		}
		if err != nil {
			return o.fail(err, "filling "+l.selector)
		}
		if value == "" {
			if err := l.p.callValue(o, h.ec, "clearSelection", nil, objArg(h.obj)); err != nil {
				return o.fail(err, "")
			}
		}
		if err := l.p.callValue(o, h.ec, "finishFill", nil, objArg(h.obj), valArg(value)); err != nil {
			return o.fail(err, "")
		}
	}
	return nil
}

// focusOne waits for the element and focuses it.
func (l *Locator) focusOne(o *op) error {
	h, err := l.waitOne(o, stateAttached, "")
	if err != nil {
		return err
	}
	if err := l.p.callValue(o, h.ec, "focus", nil, objArg(h.obj)); err != nil {
		return o.fail(err, "")
	}
	return nil
}

// Press focuses the element and presses a key combination, waiting for a
// navigation it starts (Enter in a form) to commit.
func (l *Locator) Press(ctx context.Context, key string, timeout time.Duration) error {
	return l.PressWith(ctx, key, timeout, false)
}

// PressWith is Press; noWaitAfter returns without waiting for a navigation.
func (l *Locator) PressWith(ctx context.Context, key string, timeout time.Duration, noWaitAfter bool) error {
	if _, _, err := parseKeyCombo(key); err != nil {
		return err
	}
	o := l.p.begin(ctx, timeout)
	defer o.end()
	if err := l.focusOne(o); err != nil {
		return err
	}
	if err := l.p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	before := l.p.documentURL(o)
	err := l.p.waitNavigationsOf(o, noWaitAfter, "the key press", func() error {
		if err := l.p.pressCombo(o, key, 0); err != nil {
			return o.fail(err, "pressing "+key)
		}
		return nil
	})
	if err != nil {
		return err
	}
	l.p.settleURL(o, before)
	return nil
}

// PressSequentially focuses the element and types text key by key.
func (l *Locator) PressSequentially(ctx context.Context, text string, delay, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = l.p.inputTimeout(len(text), delay)
	}
	o := l.p.begin(ctx, timeout)
	defer o.end()
	if err := l.focusOne(o); err != nil {
		return err
	}
	if err := l.p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	pieces, _, err := l.p.secretPieces(text)
	if err != nil {
		return o.fail(err, "")
	}
	if err := l.p.typePieces(o, pieces, delay); err != nil {
		return o.fail(err, "typing into "+l.selector)
	}
	return nil
}

// Focus focuses the element.
func (l *Locator) Focus(ctx context.Context, timeout time.Duration) error {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	return l.focusOne(o)
}

// ScrollIntoViewIfNeeded scrolls the element into view.
func (l *Locator) ScrollIntoViewIfNeeded(ctx context.Context, timeout time.Duration) error {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	h, _, err := l.actionable(o, action{name: "scroll into view", visible: true, stable: true})
	if err != nil {
		return err
	}
	if err := l.p.callValue(o, h.ec, "scrollIntoView", nil, objArg(h.obj)); err != nil {
		return o.fail(err, "")
	}
	return nil
}

// SetChecked checks or unchecks a checkbox or radio (native or ARIA),
// clicking it when its state differs; it fails if the click did not change
// the state.
func (l *Locator) SetChecked(ctx context.Context, checked, force bool, timeout time.Duration) error {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	type state struct {
		Checked any    `json:"checked"`
		Radio   bool   `json:"radio"`
		Error   string `json:"error"`
	}
	read := func() (state, error) {
		h, err := l.waitOne(o, stateAttached, "")
		if err != nil {
			return state{}, err
		}
		var st state
		if err := l.p.callValue(o, h.ec, "checkedState", &st, objArg(h.obj)); err != nil {
			return state{}, o.fail(err, "")
		}
		if st.Error != "" {
			return state{}, newErr(ErrBrowser, "%s", st.Error)
		}
		return st, nil
	}
	st, err := read()
	if err != nil {
		return err
	}
	if st.Checked == checked {
		return nil
	}
	if !checked && st.Radio {
		return newErr(ErrBrowser, "cannot uncheck radio button %s: check another radio of its group instead", l.selector)
	}
	_, pt, err := l.actionable(o, action{name: "check", force: force, visible: true, stable: true, enabled: true, pointer: true})
	if err != nil {
		return err
	}
	if err := l.p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	if err := l.p.clickAt(o, pt.X, pt.Y, "left", 1, 0, 0); err != nil {
		return o.fail(err, "clicking "+l.selector)
	}
	after, err := read()
	if err != nil {
		return err
	}
	if after.Checked != checked {
		want := "checked"
		if !checked {
			want = "unchecked"
		}
		return newErr(ErrBrowser, "clicking %s did not make it %s (the page may handle the click itself, or another element took it); check the page's state and try clicking its label", l.selector, want)
	}
	return nil
}

// SelectOptions names options to select by value, label or index; an option
// matching any of them is selected.
type SelectOptions struct {
	Values  []string
	Labels  []string
	Indexes []int
}

// SelectOption selects options of a <select> and returns the selected values.
func (l *Locator) SelectOption(ctx context.Context, want SelectOptions, force bool, timeout time.Duration) ([]string, error) {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	var values []string
	w := map[string]any{"value": want.Values, "label": want.Labels, "index": want.Indexes}
	h, _, err := l.actionable(o, action{name: "select_option", force: force, visible: true, enabled: true})
	if err != nil {
		return nil, err
	}
	if err := l.p.beforeInput(o); err != nil {
		return nil, o.fail(err, "")
	}
	err = l.poll(o, "to have the options to select", func() (bool, string, error) {
		var res struct {
			Retry  string   `json:"retry"`
			Values []string `json:"values"`
		}
		if err := l.p.callValue(o, h.ec, "selectOptions", &res, objArg(h.obj), valArg(w)); err != nil {
			return false, "", err
		}
		if res.Retry != "" {
			return false, res.Retry, nil
		}
		values = res.Values
		return true, "", nil
	})
	if values == nil && err == nil {
		values = []string{}
	}
	return values, err
}

// text reads one string property of the one matching element.
func (l *Locator) text(ctx context.Context, what string, timeout time.Duration) (string, error) {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	h, err := l.waitOne(o, stateAttached, "")
	if err != nil {
		return "", err
	}
	var out []string
	if err := l.p.callValue(o, h.ec, "texts", &out, valArg(what), objArg(h.obj)); err != nil {
		return "", o.fail(err, "")
	}
	if len(out) == 0 {
		return "", nil
	}
	return out[0], nil
}

// InnerText is the element's rendered text.
func (l *Locator) InnerText(ctx context.Context, timeout time.Duration) (string, error) {
	return l.text(ctx, "inner_text", timeout)
}

// TextContent is the element's textContent.
func (l *Locator) TextContent(ctx context.Context, timeout time.Duration) (string, error) {
	return l.text(ctx, "text_content", timeout)
}

// InnerHTML is the element's innerHTML.
func (l *Locator) InnerHTML(ctx context.Context, timeout time.Duration) (string, error) {
	return l.text(ctx, "inner_html", timeout)
}

// InputValue is the value of an input, textarea or select.
func (l *Locator) InputValue(ctx context.Context, timeout time.Duration) (string, error) {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	h, err := l.waitOne(o, stateAttached, "")
	if err != nil {
		return "", err
	}
	var v string
	if err := l.p.callValue(o, h.ec, "inputValue", &v, objArg(h.obj)); err != nil {
		return "", o.fail(err, "")
	}
	return v, nil
}

// GetAttribute returns an attribute of the element, nil when it is absent.
func (l *Locator) GetAttribute(ctx context.Context, name string, timeout time.Duration) (*string, error) {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	h, err := l.waitOne(o, stateAttached, "")
	if err != nil {
		return nil, err
	}
	var v *string
	if err := l.p.callValue(o, h.ec, "attribute", &v, objArg(h.obj), valArg(name)); err != nil {
		return nil, o.fail(err, "")
	}
	return v, nil
}

// resolveNow resolves once, retrying only while the page navigates.
func (l *Locator) resolveNow(o *op) ([]handle, error) {
	for {
		hs, err := l.p.resolve(o, l.parts)
		if !errors.Is(err, errRetry) {
			if err != nil {
				return nil, o.fail(err, "")
			}
			return hs, nil
		}
		if err := pause.For(o.ctx, 50*time.Millisecond); err != nil {
			return nil, o.fail(err, "waiting for the page to finish navigating")
		}
	}
}

// Is reports a state of the one match without waiting: visible, hidden,
// enabled, disabled, editable or checked. With no match every state is
// false except hidden; several matches are a strict-mode violation.
func (l *Locator) Is(ctx context.Context, state string) (bool, error) {
	switch state {
	case "visible", "hidden", "enabled", "disabled", "editable", "checked":
	default:
		return false, newErr(ErrInvalidParams, "unknown state %q", state)
	}
	o := l.p.begin(ctx, 0)
	defer o.end()
	hs, err := l.resolveNow(o)
	if err != nil {
		return false, err
	}
	if len(hs) == 0 {
		return state == "hidden", nil
	}
	if len(hs) > 1 {
		// Which of several elements the answer is about would be a guess.
		return false, strictError(l.selector, len(hs), l.p.describe(o, hs, 5))
	}
	var v bool
	if err := l.p.callValue(o, hs[0].ec, "state", &v, objArg(hs[0].obj), valArg(state)); err != nil {
		if errors.Is(err, errRetry) {
			return state == "hidden", nil
		}
		return false, o.fail(err, "")
	}
	return v, nil
}

// Count is the number of matches now.
func (l *Locator) Count(ctx context.Context) (int, error) {
	o := l.p.begin(ctx, 0)
	defer o.end()
	hs, err := l.resolveNow(o)
	return len(hs), err
}

// AllTexts returns inner_text or text_content of every match, without
// waiting.
func (l *Locator) AllTexts(ctx context.Context, what string) ([]string, error) {
	o := l.p.begin(ctx, 0)
	defer o.end()
	hs, err := l.resolveNow(o)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(hs))
	for _, h := range hs {
		var t []string
		if err := l.p.callValue(o, h.ec, "texts", &t, valArg(what), objArg(h.obj)); err != nil {
			return nil, o.fail(err, "")
		}
		out = append(out, t...)
	}
	return out, nil
}

// WaitFor waits for the element to be attached, detached, visible or hidden
// (visible by default). attached and visible are strict.
func (l *Locator) WaitFor(ctx context.Context, state ElementState, timeout time.Duration) error {
	state, err := state.valid()
	if err != nil {
		return err
	}
	o := l.p.begin(ctx, timeout)
	defer o.end()
	switch state {
	case stateAttached, stateVisible:
		_, err := l.waitOne(o, state, "")
		return err
	}
	return l.poll(o, "to be "+string(state), func() (bool, string, error) {
		hs, err := l.p.resolve(o, l.parts)
		if err != nil {
			return false, "", err
		}
		if len(hs) == 0 {
			return true, "", nil
		}
		if state == stateDetached {
			return false, fmt.Sprintf("%d element(s) still match, e.g. %s", len(hs), l.one(o, hs[0])), nil
		}
		for _, h := range hs {
			var vis bool
			if err := l.p.callValue(o, h.ec, "state", &vis, objArg(h.obj), valArg("visible")); err != nil {
				return false, "", err
			}
			if vis {
				return false, l.one(o, h) + " is still visible", nil
			}
		}
		return true, "", nil
	})
}

// WaitForSelector waits on the page for any match of selector to be in state
// (not strict: one matching element is enough).
func (p *Page) WaitForSelector(ctx context.Context, selector string, state ElementState, timeout time.Duration) error {
	l, err := p.Locator(selector)
	if err != nil {
		return err
	}
	state, err = state.valid()
	if err != nil {
		return err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	return l.poll(o, "to be "+string(state), func() (bool, string, error) {
		hs, err := p.resolve(o, l.parts)
		if err != nil {
			return false, "", err
		}
		switch state {
		case stateAttached:
			return len(hs) > 0, noMatch, nil
		case stateDetached:
			return len(hs) == 0, fmt.Sprintf("%d element(s) still match", len(hs)), nil
		}
		anyVisible := false
		for _, h := range hs {
			var vis bool
			if err := p.callValue(o, h.ec, "state", &vis, objArg(h.obj), valArg("visible")); err != nil {
				return false, "", err
			}
			if vis {
				anyVisible = true
				break
			}
		}
		if state == stateVisible {
			if len(hs) == 0 {
				return false, noMatch, nil
			}
			return anyVisible, fmt.Sprintf("%d element(s) match but none is visible", len(hs)), nil
		}
		return !anyVisible, "a matching element is still visible", nil
	})
}

// BoundingBox is the element's box relative to the main frame's viewport,
// nil when it is not rendered.
func (l *Locator) BoundingBox(ctx context.Context, timeout time.Duration) (*Box, error) {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	h, err := l.waitOne(o, stateAttached, "")
	if err != nil {
		return nil, err
	}
	box, err := l.p.unionBox(o, h)
	if err != nil {
		return nil, o.fail(err, "")
	}
	return box, nil
}
