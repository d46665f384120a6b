package browser

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"

	"wright/pause"
)

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

// modifierMask turns modifier names into CDP bits.
func modifierMask(mods []string) (int, error) {
	bits := 0
	for _, m := range mods {
		if m == "ControlOrMeta" {
			m = "Control"
		}
		b, ok := modifierBits[m]
		if !ok {
			return 0, newErr(ErrInvalidParams, "unknown modifier %q: use Alt, Control, Meta or Shift", m)
		}
		bits |= b
	}
	return bits, nil
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

// ---- keyboard ----------------------------------------------------------------

func (p *Page) keyEvent(o *op, typ proto.InputDispatchKeyEventType, k keyDef, mods int, withText bool) error {
	ev := proto.InputDispatchKeyEvent{
		Type:                  typ,
		Modifiers:             mods,
		Key:                   k.key,
		Code:                  k.code,
		WindowsVirtualKeyCode: k.keyCode,
		NativeVirtualKeyCode:  k.keyCode,
		Location:              gson.Int(k.location),
	}
	if withText {
		ev.Text = k.text
		ev.UnmodifiedText = k.text
	}
	p.trackRepeat(&ev)
	return callCDP(o.rodPage(), ev)
}

// pressCombo presses a key combination such as "Control+A".
func (p *Page) pressCombo(o *op, combo string, hold time.Duration) error {
	mods, key, err := parseKeyCombo(combo)
	if err != nil {
		return err
	}
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	bits := p.held // modifiers held by KeyDown apply too
	for _, m := range mods {
		bits |= modifierBits[m.key]
		if err := p.keyEvent(o, proto.InputDispatchKeyEventTypeRawKeyDown, m, bits, false); err != nil {
			return err
		}
	}
	if bits&modShift != 0 && len(key.text) == 1 && unicode.IsLower(rune(key.text[0])) {
		up := strings.ToUpper(key.text)
		key.key, key.text = up, up
	}
	key = withShift(key, bits)
	if mk, isMod := modifierBits[key.key]; isMod {
		bits |= mk
	}
	// Text is produced only without Control/Alt/Meta, as on a real keyboard,
	// so Control+A selects instead of typing "a".
	withText := key.text != "" && bits&^modShift == 0
	down := proto.InputDispatchKeyEventTypeRawKeyDown
	if withText {
		down = proto.InputDispatchKeyEventTypeKeyDown
	}
	if err := p.keyEvent(o, down, key, bits, withText); err != nil {
		return err
	}
	if err := pause.For(o.ctx, hold); err != nil {
		return err
	}
	if err := p.keyEvent(o, proto.InputDispatchKeyEventTypeKeyUp, key, bits, false); err != nil {
		return err
	}
	for i := len(mods) - 1; i >= 0; i-- {
		bits &^= modifierBits[mods[i].key]
		if err := p.keyEvent(o, proto.InputDispatchKeyEventTypeKeyUp, mods[i], bits, false); err != nil {
			return err
		}
	}
	return nil
}

// typeText types text one character at a time: characters of a US keyboard
// as key presses, anything else as inserted text.
func (p *Page) typeText(o *op, text string, delay time.Duration) error {
	for i, r := range text {
		if i > 0 {
			if err := pause.For(o.ctx, delay); err != nil {
				return err
			}
		}
		if def, ok := keyTable[string(r)]; ok && def.text != "" {
			p.inputMu.Lock()
			err := p.keyEvent(o, proto.InputDispatchKeyEventTypeKeyDown, def, p.held, true)
			if err == nil {
				err = p.keyEvent(o, proto.InputDispatchKeyEventTypeKeyUp, def, p.held, false)
			}
			p.inputMu.Unlock()
			if err != nil {
				return err
			}
			continue
		}
		if err := callCDP(o.rodPage(), proto.InputInsertText{Text: string(r)}); err != nil {
			return err
		}
	}
	return nil
}

// Press presses a key combination on whatever has focus.
func (p *Page) Press(ctx context.Context, key string) error {
	if _, _, err := parseKeyCombo(key); err != nil {
		return err
	}
	o := p.begin(ctx, 0)
	defer o.end()
	if err := p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	if err := p.pressCombo(o, key, 0); err != nil {
		return o.fail(err, "pressing "+key)
	}
	return nil
}

// Type types text into whatever has focus.
func (p *Page) Type(ctx context.Context, text string, delay time.Duration) error {
	o := p.begin(ctx, p.inputTimeout(len(text), delay))
	defer o.end()
	if err := p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	pieces, _, err := p.secretPieces(text)
	if err != nil {
		return o.fail(err, "")
	}
	if err := p.typePieces(o, pieces, delay); err != nil {
		return o.fail(err, "typing")
	}
	return nil
}

// inputTimeout gives slow typing the time it asks for on top of the default.
func (p *Page) inputTimeout(n int, delay time.Duration) time.Duration {
	return p.b.opts.timeout() + time.Duration(n)*delay
}

// ---- mouse -------------------------------------------------------------------

func (p *Page) mouseEvent(o *op, typ proto.InputDispatchMouseEventType, x, y float64, button proto.InputMouseButton, buttons, clicks, mods int) error {
	return callCDP(o.rodPage(), proto.InputDispatchMouseEvent{
		Type: typ, X: x, Y: y, Button: button, Buttons: gson.Int(buttons), ClickCount: clicks, Modifiers: mods,
	})
}

func (p *Page) moveTo(o *op, x, y float64, mods int) error {
	if err := p.mouseEvent(o, proto.InputDispatchMouseEventTypeMouseMoved, x, y, proto.InputMouseButtonNone, 0, 0, mods); err != nil {
		return err
	}
	p.mouseX, p.mouseY = x, y
	return nil
}

// clickAt moves to (x, y) and clicks count times (a double click is two
// clicks, the second with clickCount 2, as a real mouse sends them).
func (p *Page) clickAt(o *op, x, y float64, button MouseButton, count int, delay time.Duration, mods int) error {
	return p.press(o, x, y, button, count, delay, mods, true)
}

// press clicks count times at (x, y); the mouse moves there first when
// alwaysMove is set or it is elsewhere.
func (p *Page) press(o *op, x, y float64, button MouseButton, count int, delay time.Duration, mods int, alwaysMove bool) error {
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
		if err := p.moveTo(o, x, y, mods); err != nil {
			return err
		}
	}
	for i := 1; i <= count; i++ {
		if err := p.mouseEvent(o, proto.InputDispatchMouseEventTypeMousePressed, x, y, btn, bit, i, mods); err != nil {
			return err
		}
		if err := pause.For(o.ctx, delay); err != nil {
			return err
		}
		if err := p.mouseEvent(o, proto.InputDispatchMouseEventTypeMouseReleased, x, y, btn, 0, i, mods); err != nil {
			return err
		}
	}
	return nil
}

// MouseClick clicks at a point of the viewport.
func (p *Page) MouseClick(ctx context.Context, x, y float64, button MouseButton, count int) error {
	if _, _, err := button.proto(); err != nil {
		return err
	}
	o := p.begin(ctx, 0)
	defer o.end()
	if err := p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	if err := p.clickAt(o, x, y, button, count, 0, 0); err != nil {
		return o.fail(err, "clicking")
	}
	return nil
}

// MouseMove moves the mouse to a point of the viewport.
func (p *Page) MouseMove(ctx context.Context, x, y float64) error {
	o := p.begin(ctx, 0)
	defer o.end()
	if err := p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	p.inputMu.Lock()
	err := p.moveTo(o, x, y, 0)
	p.inputMu.Unlock()
	if err != nil {
		return o.fail(err, "moving the mouse")
	}
	return nil
}

// MouseWheel scrolls by (dx, dy) at the mouse position.
func (p *Page) MouseWheel(ctx context.Context, dx, dy float64) error {
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
