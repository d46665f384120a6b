package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
	"wright/browser/keys"
	"wright/internal/pause"
)

// modifierMask turns modifier names into CDP bits.
func modifierMask(mods []string) (int, error) {
	bits := 0
	for _, m := range mods {
		if m == "ControlOrMeta" {
			m = "Control"
		}
		b, ok := keys.Modifier(m)
		if !ok {
			return 0, newErr(ErrInvalidParams, "unknown modifier %q: use Alt, Control, Meta or Shift", m)
		}
		bits |= b
	}
	return bits, nil
}

// clickWith clicks at pt (where pointerReady moved the mouse, in Steps
// moves) with exactly opts.Modifiers when they are given: an empty list
// releases the modifiers keyboard.down holds, for this click.
func (m *Mouse) clickWith(o *op, pt Point, opts ClickOptions, mods int) error {
	p := m.p
	if opts.Modifiers == nil {
		return m.pressAt(o, pt.X, pt.Y, opts.Button, opts.ClickCount, opts.Delay, mods)
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
	if err := m.stepsTo(o, pt, opts.Steps, mods); err != nil {
		return err
	}
	for i := 1; i <= count; i++ {
		if err := m.mouseEvent(o, proto.InputDispatchMouseEventTypeMousePressed, pt.X, pt.Y, btn, bit, i, mods); err != nil {
			return err
		}
		if err := pause.For(o.ctx, opts.Delay); err != nil {
			return err
		}
		if err := m.mouseEvent(o, proto.InputDispatchMouseEventTypeMouseReleased, pt.X, pt.Y, btn, 0, i, mods); err != nil {
			return err
		}
	}
	return nil
}

// moveInSteps moves the mouse to pt in steps moves (at least one).
func (m *Mouse) moveInSteps(o *op, pt Point, steps int) error {
	p := m.p
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	if steps <= 1 {
		return m.moveTo(o, pt.X, pt.Y, p.held)
	}
	return m.stepsTo(o, pt, steps, p.held)
}

// moveUnlessAt is moveInSteps unless the mouse is at pt already and the
// document under it saw it moved there (at, from hitTargetAt, is pt's
// mouseAtKey): a mouse that stays put sends no mousemove. It reports
// whether it moved.
func (m *Mouse) moveUnlessAt(o *op, pt Point, steps int, at string) (bool, error) {
	p := m.p
	p.inputMu.Lock()
	here := p.mouseX == pt.X && p.mouseY == pt.Y
	p.inputMu.Unlock()
	if here && at != "" && at == mouseAtKey(pt) {
		return false, nil
	}
	return true, m.moveInSteps(o, pt, steps)
}

// stepsTo moves the mouse from where it is to pt in steps moves; none when
// it is there already. The caller holds inputMu.
func (m *Mouse) stepsTo(o *op, pt Point, steps int, mods int) error {
	p := m.p
	if p.mouseX == pt.X && p.mouseY == pt.Y {
		return nil
	}
	steps = max(steps, 1)
	fx, fy := p.mouseX, p.mouseY
	for i := 1; i <= steps; i++ {
		if err := m.moveTo(o, fx+(pt.X-fx)*float64(i)/float64(steps), fy+(pt.Y-fy)*float64(i)/float64(steps), mods); err != nil {
			return err
		}
	}
	return nil
}

// HTML5 drag and drop. A headless Chromium starts no drag of its own when
// the mouse moves with a button held over a draggable element: the page
// would see mousedown and mousemove but never dragstart or drop. So a move
// with the left button held asks Chromium to hand the drag over
// (Input.setInterceptDrags); when the page starts one, the drag's data
// comes back in Input.dragIntercepted, later moves become dragOver events
// and the release a drop. Moves that start no drag stay plain mouse moves.

// dragProbe arms, in wright's world of the main frame, a check of
// whether the next mouse move starts a drag: a dragstart right after the
// move that the page did not cancel. __wrightDragCheck answers it (false
// when no mousemove came).
const dragProbe = `(() => {
	let started = null, drag = null;
	const onDrag = (e) => { drag = e; };
	const onMove = () => {
		addEventListener('dragstart', onDrag, { once: true, capture: true });
		started = new Promise((resolve) => setTimeout(() => {
			removeEventListener('dragstart', onDrag, { capture: true });
			resolve(!!drag && !drag.defaultPrevented);
		}, 0));
	};
	addEventListener('mousemove', onMove, { once: true, capture: true });
	globalThis.__wrightDragCheck = async () => {
		removeEventListener('mousemove', onMove, { capture: true });
		delete globalThis.__wrightDragCheck;
		return started ? await started : false;
	};
})()`

// heldMove moves the mouse to (x, y) while buttons are held: an ongoing
// drag gets a dragOver, a move with the left button held may start one.
// The caller holds inputMu.
func (m *Mouse) heldMove(o *op, x, y float64, btn proto.InputMouseButton) error {
	p := m.p
	if p.drag != nil {
		p.mouseX, p.mouseY = x, y
		return m.dragEvent(o, proto.InputDispatchDragEventTypeDragOver, x, y)
	}
	if p.buttons&1 == 0 {
		if err := m.mouseEvent(o, proto.InputDispatchMouseEventTypeMouseMoved, x, y, btn, p.buttons, 0, p.held); err != nil {
			return err
		}
		p.mouseX, p.mouseY = x, y
		return nil
	}
	data, err := m.interceptDrag(o, func() error {
		return m.mouseEvent(o, proto.InputDispatchMouseEventTypeMouseMoved, x, y, btn, p.buttons, 0, p.held)
	})
	if err != nil {
		return err
	}
	p.mouseX, p.mouseY = x, y
	if data == nil {
		return nil
	}
	p.drag = data
	if err := m.dragEvent(o, proto.InputDispatchDragEventTypeDragEnter, x, y); err != nil {
		return err
	}
	return m.dragEvent(o, proto.InputDispatchDragEventTypeDragOver, x, y)
}

// interceptDrag runs move with drag interception on and returns the drag
// it started, or nil.
func (m *Mouse) interceptDrag(o *op, move func() error) (*proto.InputDragData, error) {
	p := m.p
	subCtx, stop := context.WithCancel(o.ctx)
	defer stop()
	events := p.rod.Context(subCtx).Event() // before the move, so the event is not missed
	got := make(chan *proto.InputDragData, 1)
	go func() {
		for msg := range events {
			var e proto.InputDragIntercepted
			if msg.Method == "Input.dragIntercepted" && msg.Load(&e) {
				got <- e.Data
				return
			}
		}
	}()
	if err := callCDP(o.rodPage(), proto.InputSetInterceptDrags{Enabled: true}); err != nil {
		return nil, err
	}
	defer func() {
		ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
		defer cancel()
		_ = callCDP(p.rod.Context(ctx), proto.InputSetInterceptDrags{Enabled: false})
	}()
	ec, ecErr := p.main(o)
	if ecErr == nil {
		_, ecErr = proto.RuntimeEvaluate{Expression: dragProbe, ContextID: ec.id}.Call(o.rodPage())
	}
	if err := move(); err != nil {
		return nil, err
	}
	expect := false
	if ecErr == nil {
		res, err := proto.RuntimeEvaluate{Expression: "globalThis.__wrightDragCheck ? __wrightDragCheck() : false",
			ContextID: ec.id, AwaitPromise: true, ReturnByValue: true}.Call(o.rodPage())
		expect = err == nil && res.Result != nil && res.Result.Value.Bool()
	}
	if !expect {
		// No drag in the main frame (or no way to tell): take one only if
		// Chromium already reported it (a drag in a child frame).
		select {
		case d := <-got:
			return d, nil
		default:
			return nil, nil
		}
	}
	select {
	case d := <-got:
		return d, nil
	case <-o.ctx.Done():
		return nil, o.ctx.Err()
	}
}

func (m *Mouse) dragEvent(o *op, typ proto.InputDispatchDragEventType, x, y float64) error {
	p := m.p
	return callCDP(o.rodPage(), proto.InputDispatchDragEvent{Type: typ, X: x, Y: y, Data: p.drag, Modifiers: p.held})
}

// drop ends an ongoing drag at the mouse position; ok is false when there
// is none. The caller holds inputMu.
func (m *Mouse) drop(o *op) (ok bool, err error) {
	p := m.p
	if p.drag == nil {
		return false, nil
	}
	err = m.dragEvent(o, proto.InputDispatchDragEventTypeDrop, p.mouseX, p.mouseY)
	p.drag = nil
	return true, err
}

// DragOptions are drag_to's and drag_and_drop's options.
type DragOptions struct {
	SourcePosition *Point // relative to the source's top-left; default its centre
	TargetPosition *Point // relative to the target's top-left; default its centre
	Force          bool
	Trial          bool // check actionability only, do not drag
	Steps          int  // mouse moves from source to target (default 1)
	Timeout        time.Duration
}

// DragTo drags the locator's element onto target's: it moves the mouse
// over the source, presses the left button, moves over the target in
// steps and releases the button there, as a person does. HTML5 drag and
// drop (draggable elements, dragstart/drop handlers) works too.
func (l *Locator) DragTo(ctx context.Context, target *Locator, opts DragOptions) error {
	if target == nil {
		return newErr(ErrInvalidParams, "drag_to needs a target locator")
	}
	if target.p != l.p {
		return newErr(ErrInvalidParams, "drag_to: the target must be on the same page as the source")
	}
	o := l.p.begin(ctx, opts.Timeout)
	defer o.end()
	_, from, err := l.actionable(o, action{name: "drag_to", force: opts.Force, visible: true, stable: true, pointer: true, position: opts.SourcePosition})
	if err != nil {
		return err
	}
	if opts.Trial {
		_, _, err := target.actionable(o, action{name: "drag_to", force: opts.Force, visible: true, stable: true, pointer: true, position: opts.TargetPosition})
		return err
	}
	if err := l.p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	p := l.p
	p.inputMu.Lock()
	err = p.mouse.moveTo(o, from.X, from.Y, p.held)
	if err == nil {
		p.buttons |= 1
		err = p.mouse.mouseEvent(o, proto.InputDispatchMouseEventTypeMousePressed, from.X, from.Y, proto.InputMouseButtonLeft, p.buttons, 1, p.held)
	}
	p.inputMu.Unlock()
	if err != nil {
		return o.fail(err, "pressing the mouse on "+l.selector)
	}
	// Whatever happens next, the button does not stay held.
	released := false
	defer func() {
		if !released {
			p.mouse.release(o)
		}
	}()
	_, to, err := target.actionable(o, action{name: "drag_to", force: opts.Force, visible: true, stable: true, pointer: true, position: opts.TargetPosition})
	if err != nil {
		return err
	}
	steps := opts.Steps
	if steps <= 0 {
		steps = 1
	}
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	fx, fy := p.mouseX, p.mouseY
	for i := 1; i <= steps; i++ {
		x := fx + (to.X-fx)*float64(i)/float64(steps)
		y := fy + (to.Y-fy)*float64(i)/float64(steps)
		if err := p.mouse.heldMove(o, x, y, proto.InputMouseButtonLeft); err != nil {
			return o.fail(err, "dragging to "+target.selector)
		}
	}
	released = true
	if err := p.mouse.releaseLocked(o); err != nil {
		return o.fail(err, "dropping on "+target.selector)
	}
	return nil
}

// release lets go of the left button after a failed drag.
func (m *Mouse) release(o *op) {
	p := m.p
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	o2 := &op{p: p, ctx: ctx, cancel: cancel, timeout: 5 * time.Second}
	_ = m.releaseLocked(o2)
}

// releaseLocked drops an ongoing drag, or releases the left button.
func (m *Mouse) releaseLocked(o *op) error {
	p := m.p
	dropped, err := m.drop(o)
	p.buttons &^= 1
	if dropped || err != nil {
		return err
	}
	return m.mouseEvent(o, proto.InputDispatchMouseEventTypeMouseReleased, p.mouseX, p.mouseY, proto.InputMouseButtonLeft, p.buttons, 1, p.held)
}

// MouseButton is left, right or middle.
type MouseButton string

func (b MouseButton) proto() (proto.InputMouseButton, int, error) {
	switch b {
	case "", "left":
		return proto.InputMouseButtonLeft, 1, nil
	case "right":
		return proto.InputMouseButtonRight, 2, nil
	case "middle":
		return proto.InputMouseButtonMiddle, 4, nil
	}
	return "", 0, newErr(ErrInvalidParams, "button must be left, right or middle, not %q", string(b))
}

// ---- mouse -------------------------------------------------------------------

func (m *Mouse) mouseEvent(o *op, typ proto.InputDispatchMouseEventType, x, y float64, button proto.InputMouseButton, buttons, clicks, mods int) error {
	return callCDP(o.rodPage(), proto.InputDispatchMouseEvent{
		Type: typ, X: x, Y: y, Button: button, Buttons: gson.Int(buttons), ClickCount: clicks, Modifiers: mods,
	})
}

func (m *Mouse) moveTo(o *op, x, y float64, mods int) error {
	p := m.p
	if err := m.mouseEvent(o, proto.InputDispatchMouseEventTypeMouseMoved, x, y, proto.InputMouseButtonNone, 0, 0, mods); err != nil {
		return err
	}
	p.mouseX, p.mouseY = x, y
	return nil
}

// clickAt moves to (x, y) and clicks count times (a double click is two
// clicks, the second with clickCount 2, as a real mouse sends them).
func (m *Mouse) clickAt(o *op, x, y float64, button MouseButton, count int, delay time.Duration, mods int) error {
	return m.press(o, x, y, button, count, delay, mods, true)
}

// press clicks count times at (x, y); the mouse moves there first when
// alwaysMove is set or it is elsewhere.
func (m *Mouse) press(o *op, x, y float64, button MouseButton, count int, delay time.Duration, mods int, alwaysMove bool) error {
	p := m.p
	btn, bit, err := button.proto()
	if err != nil {
		return err
	}
	if count <= 0 {
		count = 1
	}
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	mods |= p.held
	if alwaysMove || p.mouseX != x || p.mouseY != y {
		if err := m.moveTo(o, x, y, mods); err != nil {
			return err
		}
	}
	for i := 1; i <= count; i++ {
		if err := m.mouseEvent(o, proto.InputDispatchMouseEventTypeMousePressed, x, y, btn, bit, i, mods); err != nil {
			return err
		}
		if err := pause.For(o.ctx, delay); err != nil {
			return err
		}
		if err := m.mouseEvent(o, proto.InputDispatchMouseEventTypeMouseReleased, x, y, btn, 0, i, mods); err != nil {
			return err
		}
	}
	return nil
}

// Click clicks at a point of the viewport.
func (m *Mouse) Click(ctx context.Context, x, y float64, button MouseButton, count int) error {
	p := m.p
	if _, _, err := button.proto(); err != nil {
		return err
	}
	o := p.begin(ctx, 0)
	defer o.end()
	if err := p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	if err := m.clickAt(o, x, y, button, count, 0, 0); err != nil {
		return o.fail(err, "clicking")
	}
	return nil
}

// Move moves the mouse to a point of the viewport.
func (m *Mouse) Move(ctx context.Context, x, y float64) error {
	p := m.p
	o := p.begin(ctx, 0)
	defer o.end()
	if err := p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	p.inputMu.Lock()
	err := m.moveTo(o, x, y, 0)
	p.inputMu.Unlock()
	if err != nil {
		return o.fail(err, "moving the mouse")
	}
	return nil
}

// Wheel scrolls by (dx, dy) at the mouse position.
func (m *Mouse) Wheel(ctx context.Context, dx, dy float64) error {
	p := m.p
	o := p.begin(ctx, 0)
	defer o.end()
	if err := p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	p.inputMu.Lock()
	err := callCDP(o.rodPage(), proto.InputDispatchMouseEvent{
		Type: proto.InputDispatchMouseEventTypeMouseWheel, X: p.mouseX, Y: p.mouseY, DeltaX: dx, DeltaY: dy,
	})
	p.inputMu.Unlock()
	if err != nil {
		return o.fail(err, "scrolling")
	}
	return nil
}

// Button presses (down) or releases a mouse button where the
// mouse is (mouse.down / mouse.up).
func (m *Mouse) Button(ctx context.Context, button MouseButton, clicks int, down bool) error {
	p := m.p
	btn, bit, err := button.proto()
	if err != nil {
		return err
	}
	if clicks <= 0 {
		clicks = 1
	}
	o := p.begin(ctx, 0)
	defer o.end()
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	typ := proto.InputDispatchMouseEventTypeMouseReleased
	if down {
		p.buttons |= bit
		typ = proto.InputDispatchMouseEventTypeMousePressed
	} else {
		p.buttons &^= bit
		if dropped, err := m.drop(o); dropped || err != nil { // an HTML5 drag ends in a drop
			if err != nil {
				return o.fail(err, "dropping")
			}
			return nil
		}
	}
	if err := m.mouseEvent(o, typ, p.mouseX, p.mouseY, btn, p.buttons, clicks, p.held); err != nil {
		return o.fail(err, "mouse button")
	}
	return nil
}

// MoveSteps moves the mouse to (x, y) in steps, with the buttons and
// modifiers held (drags).
func (m *Mouse) MoveSteps(ctx context.Context, x, y float64, steps int) error {
	p := m.p
	if steps <= 0 {
		steps = 1
	}
	o := p.begin(ctx, 0)
	defer o.end()
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	fx, fy := p.mouseX, p.mouseY
	btn := proto.InputMouseButtonNone
	if p.buttons&1 != 0 {
		btn = proto.InputMouseButtonLeft
	}
	for i := 1; i <= steps; i++ {
		nx := fx + (x-fx)*float64(i)/float64(steps)
		ny := fy + (y-fy)*float64(i)/float64(steps)
		if err := m.heldMove(o, nx, ny, btn); err != nil {
			return o.fail(err, "moving the mouse")
		}
	}
	return nil
}

// pressAt clicks count times where the mouse already is (pointerReady
// moved it there), moving only if it is not.
func (m *Mouse) pressAt(o *op, x, y float64, button MouseButton, count int, delay time.Duration, mods int) error {
	return m.press(o, x, y, button, count, delay, mods, false)
}

// Mouse is a page's mouse (Playwright's page.mouse): its position and held
// buttons live on the Page, which the keyboard's modifiers share.
type Mouse struct{ p *Page }

// ---- touch -------------------------------------------------------------------

// TapOptions shape a tap (Playwright's tap: no button, no count, no delay).
type TapOptions struct {
	Force       bool
	Modifiers   []string
	Position    *Point
	Timeout     time.Duration
	NoWaitAfter bool
}

// Tap waits for the element to be actionable and taps it: one touch that
// starts and ends at its point, from which Chromium makes the pointer,
// touch and compatibility mouse events of a real tap. The page must
// emulate touch (a context with has_touch); Chromium ignores touches
// otherwise.
func (l *Locator) Tap(ctx context.Context, opts TapOptions) error {
	mods, err := modifierMask(opts.Modifiers)
	if err != nil {
		return err
	}
	o := l.p.begin(ctx, opts.Timeout)
	defer o.end()
	pt, err := l.pointerReady(o, action{name: "tap", force: opts.Force, visible: true, stable: true, enabled: true, pointer: true, position: opts.Position, touch: true})
	if err != nil {
		return err
	}
	if err := l.p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	before := l.p.documentURL(o)
	err = l.p.waitNavigationsOf(o, opts.NoWaitAfter, "the tap", func() error {
		if err := touch(l.p, o, pt.X, pt.Y, mods); err != nil {
			return o.fail(err, "tapping "+l.selector)
		}
		return nil
	})
	if err != nil {
		return err
	}
	l.p.settleURL(o, before)
	return nil
}

// Touchscreen is a page's touch input (Playwright's page.touchscreen).
type Touchscreen struct{ p *Page }

// Tap taps a point of the viewport.
func (t Touchscreen) Tap(ctx context.Context, x, y float64) error {
	p := t.p
	o := p.begin(ctx, 0)
	defer o.end()
	if err := p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	if err := touch(p, o, x, y, 0); err != nil {
		return o.fail(err, "tapping")
	}
	return nil
}

// touch sends one touch point down and up at (x, y), with the keyboard's
// held modifiers added to mods.
func touch(p *Page, o *op, x, y float64, mods int) error {
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	mods |= p.held
	start := proto.InputDispatchTouchEvent{Type: proto.InputDispatchTouchEventTypeTouchStart,
		TouchPoints: []*proto.InputTouchPoint{{X: x, Y: y}}, Modifiers: mods}
	if err := callCDP(o.rodPage(), start); err != nil {
		return err
	}
	end := proto.InputDispatchTouchEvent{Type: proto.InputDispatchTouchEventTypeTouchEnd,
		TouchPoints: []*proto.InputTouchPoint{}, Modifiers: mods}
	return callCDP(o.rodPage(), end)
}
