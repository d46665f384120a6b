package browser

import (
	"fmt"
	"strings"
	"wright/pause"

	"github.com/go-rod/rod/lib/proto"
)

// Playwright's action details: the call log an action's timeout carries,
// positions relative to the padding box, points scrolled into view.

// checksPhrase names the action's checks as Playwright's call log does
// ("visible, enabled and stable").
func (a action) checksPhrase() string {
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

// connected reports whether the element is still in its document (true
// when that cannot be told).
func (p *Page) connected(o *op, h handle) bool {
	res, err := proto.RuntimeCallFunctionOn{ObjectID: h.obj, FunctionDeclaration: "function () { return this.isConnected; }", ReturnByValue: true}.Call(o.rodPage())
	if err != nil || res.ExceptionDetails != nil || res.Result == nil {
		return true
	}
	return res.Result.Value.Bool()
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

// clickWith clicks at pt (where pointerReady moved the mouse, in Steps
// moves) with exactly opts.Modifiers when they are given: an empty list
// releases the modifiers keyboard.down holds, for this click.
func (p *Page) clickWith(o *op, pt Point, opts ClickOptions, mods int) error {
	if opts.Modifiers == nil {
		return p.pressAt(o, pt.X, pt.Y, opts.Button, opts.ClickCount, opts.Delay, mods)
	}
	btn, bit, err := opts.Button.proto()
	if err != nil {
		return err
	}
	count := max(opts.ClickCount, 1)
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	if opts.Modifiers == nil {
		mods |= p.held
	}
	if err := p.stepsTo(o, pt, opts.Steps, mods); err != nil {
		return err
	}
	for i := 1; i <= count; i++ {
		if err := p.mouseEvent(o, proto.InputDispatchMouseEventTypeMousePressed, pt.X, pt.Y, btn, bit, i, mods); err != nil {
			return err
		}
		if err := pause.For(o.ctx, opts.Delay); err != nil {
			return err
		}
		if err := p.mouseEvent(o, proto.InputDispatchMouseEventTypeMouseReleased, pt.X, pt.Y, btn, 0, i, mods); err != nil {
			return err
		}
	}
	return nil
}

// moveInSteps moves the mouse to pt in steps moves (at least one).
func (p *Page) moveInSteps(o *op, pt Point, steps int) error {
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	if steps <= 1 {
		return p.moveTo(o, pt.X, pt.Y, p.held)
	}
	return p.stepsTo(o, pt, steps, p.held)
}

// stepsTo moves the mouse from where it is to pt in steps moves; none when
// it is there already. The caller holds inputMu.
func (p *Page) stepsTo(o *op, pt Point, steps int, mods int) error {
	if p.mouseX == pt.X && p.mouseY == pt.Y {
		return nil
	}
	steps = max(steps, 1)
	fx, fy := p.mouseX, p.mouseY
	for i := 1; i <= steps; i++ {
		if err := p.moveTo(o, fx+(pt.X-fx)*float64(i)/float64(steps), fy+(pt.Y-fy)*float64(i)/float64(steps), mods); err != nil {
			return err
		}
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
