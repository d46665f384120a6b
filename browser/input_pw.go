package browser

import (
	"context"
	"strings"
	"unicode"

	"github.com/go-rod/rod/lib/proto"
)

// KeyDown presses a single key and holds it (keyboard.down): a held
// modifier applies to the keys and clicks that follow until KeyUp.
func (p *Page) KeyDown(ctx context.Context, key string) error {
	return p.keyHold(ctx, key, true)
}

// KeyUp releases a key pressed by KeyDown.
func (p *Page) KeyUp(ctx context.Context, key string) error {
	return p.keyHold(ctx, key, false)
}

func (p *Page) keyHold(ctx context.Context, key string, down bool) error {
	mods, k, err := parseKeyCombo(key)
	if err != nil {
		return err
	}
	if len(mods) > 0 {
		return newErr(ErrInvalidParams, "keyboard.down/up take one key, not the combination %q", key)
	}
	o := p.begin(ctx, 0)
	defer o.end()
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	bit, isMod := modifierBits[k.key]
	if !down {
		if isMod {
			p.held &^= bit
		}
		if err := p.keyEvent(o, proto.InputDispatchKeyEventTypeKeyUp, k, p.held, false); err != nil {
			return o.fail(err, "releasing "+key)
		}
		return nil
	}
	if isMod {
		p.held |= bit
	}
	if p.held&modShift != 0 && len(k.text) == 1 && unicode.IsLower(rune(k.text[0])) {
		up := strings.ToUpper(k.text)
		k.key, k.text = up, up
	}
	k = withShift(k, p.held)
	withText := k.text != "" && p.held&^modShift == 0
	typ := proto.InputDispatchKeyEventTypeRawKeyDown
	if withText {
		typ = proto.InputDispatchKeyEventTypeKeyDown
	}
	if err := p.keyEvent(o, typ, k, p.held, withText); err != nil {
		return o.fail(err, "pressing "+key)
	}
	return nil
}

// InsertText inserts text as an input method would: no key events.
func (p *Page) InsertText(ctx context.Context, text string) error {
	o := p.begin(ctx, 0)
	defer o.end()
	if err := callCDP(o.rodPage(), proto.InputInsertText{Text: text}); err != nil {
		return o.fail(err, "inserting text")
	}
	return nil
}

// MouseButtonHold presses (down) or releases a mouse button where the
// mouse is (mouse.down / mouse.up).
func (p *Page) MouseButtonHold(ctx context.Context, button MouseButton, clicks int, down bool) error {
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
		if dropped, err := p.drop(o); dropped || err != nil { // an HTML5 drag ends in a drop
			if err != nil {
				return o.fail(err, "dropping")
			}
			return nil
		}
	}
	if err := p.mouseEvent(o, typ, p.mouseX, p.mouseY, btn, p.buttons, clicks, p.held); err != nil {
		return o.fail(err, "mouse button")
	}
	return nil
}

// MouseMoveSteps moves the mouse to (x, y) in steps, with the buttons and
// modifiers held (drags).
func (p *Page) MouseMoveSteps(ctx context.Context, x, y float64, steps int) error {
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
		if err := p.heldMove(o, nx, ny, btn); err != nil {
			return o.fail(err, "moving the mouse")
		}
	}
	return nil
}

// Playwright also names keys by their code: KeyA..KeyZ, Digit0..Digit9.
func init() {
	for c := 'a'; c <= 'z'; c++ {
		if def, ok := keyTable[string(c)]; ok {
			keyTable["Key"+strings.ToUpper(string(c))] = def
		}
	}
	for c := '0'; c <= '9'; c++ {
		if def, ok := keyTable[string(c)]; ok {
			keyTable["Digit"+string(c)] = def
		}
	}
}
