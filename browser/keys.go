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
