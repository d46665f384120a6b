package browser

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// keyDef is what CDP needs to synthesise one key of a US keyboard.
type keyDef struct {
	key      string
	code     string
	keyCode  int
	text     string
	location int
}

// Modifier bits of CDP input events.
const (
	modAlt   = 1
	modCtrl  = 2
	modMeta  = 4
	modShift = 8
)

var keyTable = buildKeyTable()

func buildKeyTable() map[string]keyDef {
	t := map[string]keyDef{
		"Enter":       {key: "Enter", code: "Enter", keyCode: 13, text: "\r"},
		"Tab":         {key: "Tab", code: "Tab", keyCode: 9},
		"Backspace":   {key: "Backspace", code: "Backspace", keyCode: 8},
		"Delete":      {key: "Delete", code: "Delete", keyCode: 46},
		"Escape":      {key: "Escape", code: "Escape", keyCode: 27},
		"Space":       {key: " ", code: "Space", keyCode: 32, text: " "},
		" ":           {key: " ", code: "Space", keyCode: 32, text: " "},
		"ArrowLeft":   {key: "ArrowLeft", code: "ArrowLeft", keyCode: 37},
		"ArrowUp":     {key: "ArrowUp", code: "ArrowUp", keyCode: 38},
		"ArrowRight":  {key: "ArrowRight", code: "ArrowRight", keyCode: 39},
		"ArrowDown":   {key: "ArrowDown", code: "ArrowDown", keyCode: 40},
		"Home":        {key: "Home", code: "Home", keyCode: 36},
		"End":         {key: "End", code: "End", keyCode: 35},
		"PageUp":      {key: "PageUp", code: "PageUp", keyCode: 33},
		"PageDown":    {key: "PageDown", code: "PageDown", keyCode: 34},
		"Insert":      {key: "Insert", code: "Insert", keyCode: 45},
		"CapsLock":    {key: "CapsLock", code: "CapsLock", keyCode: 20},
		"Shift":       {key: "Shift", code: "ShiftLeft", keyCode: 16, location: 1},
		"Control":     {key: "Control", code: "ControlLeft", keyCode: 17, location: 1},
		"Alt":         {key: "Alt", code: "AltLeft", keyCode: 18, location: 1},
		"Meta":        {key: "Meta", code: "MetaLeft", keyCode: 91, location: 1},
		"ContextMenu": {key: "ContextMenu", code: "ContextMenu", keyCode: 93},
	}
	for i := 1; i <= 12; i++ {
		name := fmt.Sprintf("F%d", i)
		t[name] = keyDef{key: name, code: name, keyCode: 111 + i}
	}
	for c := 'a'; c <= 'z'; c++ {
		code := "Key" + strings.ToUpper(string(c))
		kc := int(c - 'a' + 'A')
		t[string(c)] = keyDef{key: string(c), code: code, keyCode: kc, text: string(c)}
		t[strings.ToUpper(string(c))] = keyDef{key: strings.ToUpper(string(c)), code: code, keyCode: kc, text: strings.ToUpper(string(c))}
	}
	digits := ")!@#$%^&*("
	for i := 0; i <= 9; i++ {
		d := fmt.Sprint(i)
		code := "Digit" + d
		t[d] = keyDef{key: d, code: code, keyCode: 48 + i, text: d}
		s := string(digits[i])
		t[s] = keyDef{key: s, code: code, keyCode: 48 + i, text: s}
	}
	punct := []struct {
		plain, shifted, code string
		keyCode              int
	}{
		{"-", "_", "Minus", 189}, {"=", "+", "Equal", 187}, {"[", "{", "BracketLeft", 219},
		{"]", "}", "BracketRight", 221}, {"\\", "|", "Backslash", 220}, {";", ":", "Semicolon", 186},
		{"'", "\"", "Quote", 222}, {",", "<", "Comma", 188}, {".", ">", "Period", 190},
		{"/", "?", "Slash", 191}, {"`", "~", "Backquote", 192},
	}
	for _, p := range punct {
		t[p.plain] = keyDef{key: p.plain, code: p.code, keyCode: p.keyCode, text: p.plain}
		t[p.shifted] = keyDef{key: p.shifted, code: p.code, keyCode: p.keyCode, text: p.shifted}
	}
	t["\n"] = t["Enter"]
	t["\r"] = t["Enter"]
	t["\t"] = t["Tab"]
	return t
}

var modifierBits = map[string]int{"Alt": modAlt, "Control": modCtrl, "Meta": modMeta, "Shift": modShift}

// parseKeyCombo parses Playwright key names such as "Enter", "a",
// "Control+A" or "Shift++": modifiers joined by + and one key last.
func parseKeyCombo(s string) (mods []keyDef, key keyDef, err error) {
	if s == "" {
		return nil, keyDef{}, newErr(ErrInvalidParams, "empty key: use a key name such as Enter, Tab, ArrowDown, a, or Control+A")
	}
	var tokens []string
	if s == "+" {
		tokens = []string{"+"}
	} else {
		tokens = strings.Split(s, "+")
		if strings.HasSuffix(s, "++") {
			tokens = append(tokens[:len(tokens)-2], "+")
		}
	}
	for i, tok := range tokens {
		if tok == "ControlOrMeta" {
			tok = "Control" // Linux
		}
		def, ok := keyTable[tok]
		if !ok && utf8.RuneCountInString(tok) == 1 {
			def, ok = keyDef{key: tok, text: tok}, true
		}
		if !ok {
			return nil, keyDef{}, newErr(ErrInvalidParams, "unknown key %q in %q: use names such as Enter, Tab, Escape, Backspace, Delete, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, F1-F12, a single character, or modifiers Shift, Control, Alt, Meta joined with + (Control+A)", tok, s)
		}
		if i < len(tokens)-1 {
			if _, isMod := modifierBits[def.key]; !isMod {
				return nil, keyDef{}, newErr(ErrInvalidParams, "%q in %q is not a modifier: only Shift, Control, Alt, Meta may come before +", tok, s)
			}
			mods = append(mods, def)
			continue
		}
		key = def
	}
	return mods, key, nil
}

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
