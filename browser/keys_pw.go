package browser

import (
	"fmt"

	"github.com/go-rod/rod/lib/proto"
)

// Playwright's key names beyond the US keyboard's characters: the left and
// right modifiers, the numeric keypad, and every key by its code
// (Backquote, Minus, ...).
func init() {
	for _, side := range []struct {
		name     string
		location int
	}{{"Left", 1}, {"Right", 2}} {
		for _, m := range []struct {
			key     string
			keyCode int
		}{{"Shift", 16}, {"Control", 17}, {"Alt", 18}, {"Meta", 91}} {
			code := m.key + side.name
			kc := m.keyCode
			if m.key == "Meta" && side.name == "Right" {
				kc = 92
			}
			keyTable[code] = keyDef{key: m.key, code: code, keyCode: kc, location: side.location}
		}
	}
	for i := 0; i <= 9; i++ {
		d := fmt.Sprint(i)
		keyTable["Numpad"+d] = keyDef{key: d, code: "Numpad" + d, keyCode: 96 + i, text: d, location: 3}
	}
	for _, n := range []struct {
		code, key string
		keyCode   int
	}{{"NumpadAdd", "+", 107}, {"NumpadSubtract", "-", 109}, {"NumpadMultiply", "*", 106},
		{"NumpadDivide", "/", 111}, {"NumpadDecimal", ".", 110}} {
		keyTable[n.code] = keyDef{key: n.key, code: n.code, keyCode: n.keyCode, text: n.key, location: 3}
	}
	keyTable["NumpadEnter"] = keyDef{key: "Enter", code: "NumpadEnter", keyCode: 13, text: "\r", location: 3}
	// Every code names its unshifted key (Backquote is `), and the shifted
	// key of each code is known for Shift+Digit3 (#) and the like.
	for name, def := range keyTable {
		if def.code == "" || def.location != 0 {
			continue
		}
		if _, ok := keyTable[def.code]; !ok && isUnshifted(name, def) {
			keyTable[def.code] = def
		}
		if name != def.key || def.text == "" {
			continue
		}
		if isUnshifted(name, def) {
			unshiftedByCode[def.code] = def
		} else {
			shiftedByCode[def.code] = def
		}
	}
}

var (
	shiftedByCode   = map[string]keyDef{}
	unshiftedByCode = map[string]keyDef{}
)

// isUnshifted tells the key a code types without Shift: digits, lower-case
// letters and the unshifted punctuation.
func isUnshifted(name string, def keyDef) bool {
	if len(name) != 1 {
		return def.text == "" || len(def.text) != 1
	}
	c := name[0]
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == ' ' || contains("-=[]\\;',./`", c) || c == '\r' || c == '\t' || c == '\n'
}

func contains(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// withShift is the key a code types while Shift is held (Digit3 types #).
func withShift(k keyDef, bits int) keyDef {
	if bits&modShift == 0 || k.location != 0 {
		return k
	}
	if sh, ok := shiftedByCode[k.code]; ok && unshiftedByCode[k.code].key == k.key {
		return sh
	}
	return k
}

// trackRepeat marks a key down event of a key already down as a repeat, as
// holding a key does, and a keypad key as one (CDP's location only says
// left or right). The caller holds inputMu.
func (p *Page) trackRepeat(ev *proto.InputDispatchKeyEvent) {
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
