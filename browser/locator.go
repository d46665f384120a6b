package browser

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"wright/browser/selector"
	"wright/internal/pause"
)

// startsAtHandle reports whether the locator is an element handle's
// (its chain starts with handle=).
func (l *Locator) startsAtHandle() bool {
	return len(l.parts) > 0 && l.parts[0].Engine == "handle"
}

// Locator is a page and a selector. It holds no element: every call
// resolves the selector again, so it survives re-renders and navigations.
type Locator struct {
	p        *Page
	selector string
	parts    []selector.Part
}

// Page is the page the locator searches.
func (l *Locator) Page() *Page { return l.p }

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
	// a navigation it starts to commit (navigation.go, navWatches).
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
	var inMain bool
	pt, err := l.pointerReady(o, action{name: name, force: opts.Force, visible: true, stable: true, enabled: true, pointer: true, position: opts.Position, steps: opts.Steps, noScroll: opts.NoScroll, inMain: &inMain})
	if err != nil {
		return err
	}
	mark, err := l.p.markInput(o)
	if err != nil {
		return o.fail(err, "")
	}
	unchanged := false
	err = l.p.waitNavigationsAfter(o, opts.NoWaitAfter, func() error {
		if err := l.p.mouse.clickWith(o, pt, opts, mods); err != nil {
			return o.fail(err, "clicking "+l.selector)
		}
		return nil
	}, func() { unchanged = l.p.submissionBarrier(o, mark, inMain) })
	if err != nil {
		return err
	}
	if !unchanged {
		// The URL may have moved within the document (a #fragment link):
		// settleURL reads it and waits for the events to agree.
		l.p.settleURL(o, mark.Href)
	}
	return nil
}

// inputMark is what the main frame's document says right before an input
// action (engine.js, inputMark). ok is false when it could not be asked:
// then Href was read on its own and Submissions is unknown.
type inputMark struct {
	Hidden      bool   `json:"hidden"`
	Href        string `json:"href"`
	Submissions int    `json:"submissions"`
	ok          bool
}

// markInput is beforeInput and documentURL in one call into the page: it
// brings a hidden tab to the front, waits slow_mo and returns the mark.
func (p *Page) markInput(o *op) (inputMark, error) {
	var m inputMark
	ec, err := p.main(o)
	if err == nil {
		err = p.callValue(o, ec, "inputMark", &m)
	}
	if err != nil {
		// Navigating, or a page that broke the engine's world: the calls
		// one by one, as every other action makes them.
		if err := p.beforeInput(o); err != nil {
			return inputMark{}, err
		}
		return inputMark{Href: p.documentURL(o)}, nil
	}
	m.ok = true
	if m.Hidden {
		if err := callCDP(o.rodPage(), proto.PageBringToFront{}); err != nil {
			return inputMark{}, err
		}
	}
	return m, pause.For(o.ctx, p.b.opts.SlowMo)
}

// submissionBarrier lets a form submission the action queued run before
// the action looks for the navigations it started. Links and scripts
// start theirs while the input is handled, but a submission is a task the
// page runs afterwards. The barrier is a task of the page's own, which
// waits behind whatever the page does after the input, often until its
// next frame: it is paid only when the main frame's document counted a
// submission since before (one quick call), or when that cannot be told
// (no mark; the element is in a frame, whose submissions are not counted).
// unchanged reports that the document's URL, read after the action in the
// same call, is still the one before it, so there is nothing for
// settleURL to wait for.
func (p *Page) submissionBarrier(o *op, before inputMark, inMain bool) (unchanged bool) {
	if before.ok && inMain {
		var after inputMark
		ec, err := p.main(o)
		if err == nil {
			err = p.callValue(o, ec, "inputMark", &after)
		}
		if err != nil {
			// The document is gone: the navigation has started, and its
			// events say when it commits.
			return false
		}
		if after.Submissions == before.Submissions {
			return after.Href == before.Href
		}
	}
	if ec, err := p.main(o); err == nil {
		_, _ = proto.RuntimeEvaluate{Expression: "new Promise(r => setTimeout(r, 0))", AwaitPromise: true, ContextID: ec.id}.Call(o.rodPage())
	}
	return false
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
	err = l.p.mouse.moveTo(o, pt.X, pt.Y, 0)
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
			err = l.p.keyboard.pressCombo(o, "Delete", 0)
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
		if err := l.p.keyboard.pressCombo(o, key, 0); err != nil {
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
	h, _, err := l.actionable(o, action{name: "scroll into view", rendered: true, stable: true})
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
	if err := l.p.mouse.clickAt(o, pt.X, pt.Y, "left", 1, 0, 0); err != nil {
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
