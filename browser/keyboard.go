package browser

import (
	"context"
	"strings"
	"time"
	"unicode"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
	"wright/browser/keys"
	"wright/internal/pause"
)

// parseKeyCombo is keys.ParseCombo with its error as the protocol's.
func parseKeyCombo(s string) (mods []keys.Def, key keys.Def, err error) {
	mods, key, err = keys.ParseCombo(s)
	if err != nil {
		return nil, keys.Def{}, newErr(ErrInvalidParams, "%s", err)
	}
	return mods, key, nil
}

// modBit is a modifier key's bit, 0 for any other key.
func modBit(key string) int {
	bit, _ := keys.Modifier(key)
	return bit
}

// ---- keyboard ----------------------------------------------------------------

func (kb *Keyboard) keyEvent(o *op, typ proto.InputDispatchKeyEventType, k keys.Def, mods int, withText bool) error {
	ev := proto.InputDispatchKeyEvent{
		Type:                  typ,
		Modifiers:             mods,
		Key:                   k.Key,
		Code:                  k.Code,
		WindowsVirtualKeyCode: k.KeyCode,
		NativeVirtualKeyCode:  k.KeyCode,
		Location:              gson.Int(k.Location),
	}
	if withText {
		ev.Text = k.Text
		ev.UnmodifiedText = k.Text
	}
	kb.trackRepeat(&ev)
	return callCDP(o.rodPage(), ev)
}

// pressCombo presses a key combination such as "Control+A".
func (kb *Keyboard) pressCombo(o *op, combo string, hold time.Duration) error {
	p := kb.p
	mods, key, err := parseKeyCombo(combo)
	if err != nil {
		return err
	}
	p.inputMu.Lock()
	defer p.inputMu.Unlock()
	bits := p.held // modifiers held by Keyboard.Down apply too
	for _, m := range mods {
		bits |= modBit(m.Key)
		if err := kb.keyEvent(o, proto.InputDispatchKeyEventTypeRawKeyDown, m, bits, false); err != nil {
			return err
		}
	}
	if bits&keys.Shift != 0 && len(key.Text) == 1 && unicode.IsLower(rune(key.Text[0])) {
		up := strings.ToUpper(key.Text)
		key.Key, key.Text = up, up
	}
	key = keys.WithShift(key, bits)
	if mk, isMod := keys.Modifier(key.Key); isMod {
		bits |= mk
	}
	// Text is produced only without Control/Alt/Meta, as on a real keyboard,
	// so Control+A selects instead of typing "a".
	withText := key.Text != "" && bits&^keys.Shift == 0
	down := proto.InputDispatchKeyEventTypeRawKeyDown
	if withText {
		down = proto.InputDispatchKeyEventTypeKeyDown
	}
	if err := kb.keyEvent(o, down, key, bits, withText); err != nil {
		return err
	}
	if err := pause.For(o.ctx, hold); err != nil {
		return err
	}
	if err := kb.keyEvent(o, proto.InputDispatchKeyEventTypeKeyUp, key, bits, false); err != nil {
		return err
	}
	for i := len(mods) - 1; i >= 0; i-- {
		bits &^= modBit(mods[i].Key)
		if err := kb.keyEvent(o, proto.InputDispatchKeyEventTypeKeyUp, mods[i], bits, false); err != nil {
			return err
		}
	}
	return nil
}

// typeText types text one character at a time: characters of a US keyboard
// as key presses, anything else as inserted text.
func (kb *Keyboard) typeText(o *op, text string, delay time.Duration) error {
	p := kb.p
	for i, r := range text {
		if i > 0 {
			if err := pause.For(o.ctx, delay); err != nil {
				return err
			}
		}
		if def, ok := keys.Lookup(string(r)); ok && def.Text != "" {
			p.inputMu.Lock()
			err := kb.keyEvent(o, proto.InputDispatchKeyEventTypeKeyDown, def, p.held, true)
			if err == nil {
				err = kb.keyEvent(o, proto.InputDispatchKeyEventTypeKeyUp, def, p.held, false)
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
func (kb *Keyboard) Press(ctx context.Context, key string) error {
	p := kb.p
	if _, _, err := parseKeyCombo(key); err != nil {
		return err
	}
	o := p.begin(ctx, 0)
	defer o.end()
	if err := p.beforeInput(o); err != nil {
		return o.fail(err, "")
	}
	if err := kb.pressCombo(o, key, 0); err != nil {
		return o.fail(err, "pressing "+key)
	}
	return nil
}

// Type types text into whatever has focus.
func (kb *Keyboard) Type(ctx context.Context, text string, delay time.Duration) error {
	p := kb.p
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

// Down presses a single key and holds it (keyboard.down): a held
// modifier applies to the keys and clicks that follow until Up.
func (kb *Keyboard) Down(ctx context.Context, key string) error {
	return kb.hold(ctx, key, true)
}

// Up releases a key pressed by Down.
func (kb *Keyboard) Up(ctx context.Context, key string) error {
	return kb.hold(ctx, key, false)
}

func (kb *Keyboard) hold(ctx context.Context, key string, down bool) error {
	p := kb.p
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
	bit, isMod := keys.Modifier(k.Key)
	if !down {
		if isMod {
			p.held &^= bit
		}
		if err := kb.keyEvent(o, proto.InputDispatchKeyEventTypeKeyUp, k, p.held, false); err != nil {
			return o.fail(err, "releasing "+key)
		}
		return nil
	}
	if isMod {
		p.held |= bit
	}
	if p.held&keys.Shift != 0 && len(k.Text) == 1 && unicode.IsLower(rune(k.Text[0])) {
		up := strings.ToUpper(k.Text)
		k.Key, k.Text = up, up
	}
	k = keys.WithShift(k, p.held)
	withText := k.Text != "" && p.held&^keys.Shift == 0
	typ := proto.InputDispatchKeyEventTypeRawKeyDown
	if withText {
		typ = proto.InputDispatchKeyEventTypeKeyDown
	}
	if err := kb.keyEvent(o, typ, k, p.held, withText); err != nil {
		return o.fail(err, "pressing "+key)
	}
	return nil
}

// InsertText inserts text as an input method would: no key events.
func (kb *Keyboard) InsertText(ctx context.Context, text string) error {
	p := kb.p
	o := p.begin(ctx, 0)
	defer o.end()
	if err := callCDP(o.rodPage(), proto.InputInsertText{Text: text}); err != nil {
		return o.fail(err, "inserting text")
	}
	return nil
}

// trackRepeat marks a key down event of a key already down as a repeat, as
// holding a key does, and a keypad key as one (CDP's location only says
// left or right). The caller holds inputMu.
func (kb *Keyboard) trackRepeat(ev *proto.InputDispatchKeyEvent) {
	p := kb.p
	if ev.Location != nil && *ev.Location == 3 {
		ev.IsKeypad, ev.Location = true, nil
	}
	if p.keysDown == nil {
		p.keysDown = map[string]bool{}
	}
	id := ev.Code
	if id == "" {
		id = ev.Key
	}
	switch ev.Type {
	case proto.InputDispatchKeyEventTypeKeyDown, proto.InputDispatchKeyEventTypeRawKeyDown:
		ev.AutoRepeat = p.keysDown[id]
		p.keysDown[id] = true
	case proto.InputDispatchKeyEventTypeKeyUp:
		delete(p.keysDown, id)
	}
}

// Keyboard is a page's keyboard (Playwright's page.keyboard). Its state
// (keys held, keys down) lives on the Page, which the mouse shares: a
// held Shift modifies a click.
type Keyboard struct{ p *Page }
