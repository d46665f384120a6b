// Package keys is the US keyboard as Chromium's input events need it: each
// of Playwright's key names ("Enter", "a", "KeyA", "ShiftRight",
// "Numpad5", "Backquote", ...) with its key, code, key code, text and
// location, and key combinations such as "Control+A". It imports neither
// rod nor CDP. The table is built once, in one function, when the package
// is initialised; nothing adds to it later.
package keys

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Def is what an input event needs to synthesise one key.
type Def struct {
	Key      string
	Code     string
	KeyCode  int
	Text     string
	Location int // 0 standard, 1 left, 2 right, 3 numpad
}

// Modifier bits of CDP input events.
const (
	Alt     = 1
	Control = 2
	Meta    = 4
	Shift   = 8
)

var modifierBits = map[string]int{"Alt": Alt, "Control": Control, "Meta": Meta, "Shift": Shift}

// keyboard is the whole table: keys by name, and per code the key typed
// with and without Shift (Digit3 types 3, or # with Shift).
type keyboard struct {
	byName    map[string]Def
	shifted   map[string]Def
	unshifted map[string]Def
}

var us = build()

// Lookup is the key a name stands for.
func Lookup(name string) (Def, bool) {
	d, ok := us.byName[name]
	return d, ok
}

// Modifier is the modifier bit of a modifier key's name (Shift, Control,
// Alt, Meta); ok is false for any other key.
func Modifier(key string) (bit int, ok bool) {
	bit, ok = modifierBits[key]
	return bit, ok
}

// ParseCombo parses Playwright key names such as "Enter", "a",
// "Control+A" or "Shift++": modifiers joined by + and one key last. A
// single character not on the table is a key of its own that types itself.
func ParseCombo(s string) (mods []Def, key Def, err error) {
	if s == "" {
		return nil, Def{}, errors.New("empty key: use a key name such as Enter, Tab, ArrowDown, a, or Control+A")
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
		def, ok := us.byName[tok]
		if !ok && utf8.RuneCountInString(tok) == 1 {
			def, ok = Def{Key: tok, Text: tok}, true
		}
		if !ok {
			return nil, Def{}, fmt.Errorf("unknown key %q in %q: use names such as Enter, Tab, Escape, Backspace, Delete, ArrowUp/Down/Left/Right, Home, End, PageUp, PageDown, F1-F12, a single character, or modifiers Shift, Control, Alt, Meta joined with + (Control+A)", tok, s)
		}
		if i < len(tokens)-1 {
			if _, isMod := modifierBits[def.Key]; !isMod {
				return nil, Def{}, fmt.Errorf("%q in %q is not a modifier: only Shift, Control, Alt, Meta may come before +", tok, s)
			}
			mods = append(mods, def)
			continue
		}
		key = def
	}
	return mods, key, nil
}

// WithShift is the key a code types while Shift is held (Digit3 types #).
func WithShift(k Def, bits int) Def {
	if bits&Shift == 0 || k.Location != 0 {
		return k
	}
	if sh, ok := us.shifted[k.Code]; ok && us.unshifted[k.Code].Key == k.Key {
		return sh
	}
	return k
}

// build makes the table in one pass per kind of name: the US keyboard's
// keys and characters, the names by code (KeyA, Digit0), the left and right
// modifiers, the numeric keypad, then every code naming its unshifted key.
func build() keyboard {
	t := usKeys()
	addSidesAndKeypad(t)
	return withCodes(t)
}

// usKeys are the US keyboard's keys and characters, and letters and
// digits by their codes (KeyA, Digit0).
func usKeys() map[string]Def {
	t := map[string]Def{
		"Enter":       {Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"},
		"Tab":         {Key: "Tab", Code: "Tab", KeyCode: 9},
		"Backspace":   {Key: "Backspace", Code: "Backspace", KeyCode: 8},
		"Delete":      {Key: "Delete", Code: "Delete", KeyCode: 46},
		"Escape":      {Key: "Escape", Code: "Escape", KeyCode: 27},
		"Space":       {Key: " ", Code: "Space", KeyCode: 32, Text: " "},
		" ":           {Key: " ", Code: "Space", KeyCode: 32, Text: " "},
		"ArrowLeft":   {Key: "ArrowLeft", Code: "ArrowLeft", KeyCode: 37},
		"ArrowUp":     {Key: "ArrowUp", Code: "ArrowUp", KeyCode: 38},
		"ArrowRight":  {Key: "ArrowRight", Code: "ArrowRight", KeyCode: 39},
		"ArrowDown":   {Key: "ArrowDown", Code: "ArrowDown", KeyCode: 40},
		"Home":        {Key: "Home", Code: "Home", KeyCode: 36},
		"End":         {Key: "End", Code: "End", KeyCode: 35},
		"PageUp":      {Key: "PageUp", Code: "PageUp", KeyCode: 33},
		"PageDown":    {Key: "PageDown", Code: "PageDown", KeyCode: 34},
		"Insert":      {Key: "Insert", Code: "Insert", KeyCode: 45},
		"CapsLock":    {Key: "CapsLock", Code: "CapsLock", KeyCode: 20},
		"Shift":       {Key: "Shift", Code: "ShiftLeft", KeyCode: 16, Location: 1},
		"Control":     {Key: "Control", Code: "ControlLeft", KeyCode: 17, Location: 1},
		"Alt":         {Key: "Alt", Code: "AltLeft", KeyCode: 18, Location: 1},
		"Meta":        {Key: "Meta", Code: "MetaLeft", KeyCode: 91, Location: 1},
		"ContextMenu": {Key: "ContextMenu", Code: "ContextMenu", KeyCode: 93},
	}
	for i := 1; i <= 12; i++ {
		name := fmt.Sprintf("F%d", i)
		t[name] = Def{Key: name, Code: name, KeyCode: 111 + i}
	}
	for c := 'a'; c <= 'z'; c++ {
		lower, upper := string(c), strings.ToUpper(string(c))
		code := "Key" + upper
		kc := int(c - 'a' + 'A')
		t[lower] = Def{Key: lower, Code: code, KeyCode: kc, Text: lower}
		t[upper] = Def{Key: upper, Code: code, KeyCode: kc, Text: upper}
		t[code] = t[lower] // Playwright also names a key by its code
	}
	digits := ")!@#$%^&*("
	for i := 0; i <= 9; i++ {
		d := fmt.Sprint(i)
		code := "Digit" + d
		t[d] = Def{Key: d, Code: code, KeyCode: 48 + i, Text: d}
		s := string(digits[i])
		t[s] = Def{Key: s, Code: code, KeyCode: 48 + i, Text: s}
		t[code] = t[d]
	}
	for _, p := range []struct {
		plain, shifted, code string
		keyCode              int
	}{
		{"-", "_", "Minus", 189}, {"=", "+", "Equal", 187}, {"[", "{", "BracketLeft", 219},
		{"]", "}", "BracketRight", 221}, {"\\", "|", "Backslash", 220}, {";", ":", "Semicolon", 186},
		{"'", "\"", "Quote", 222}, {",", "<", "Comma", 188}, {".", ">", "Period", 190},
		{"/", "?", "Slash", 191}, {"`", "~", "Backquote", 192},
	} {
		t[p.plain] = Def{Key: p.plain, Code: p.code, KeyCode: p.keyCode, Text: p.plain}
		t[p.shifted] = Def{Key: p.shifted, Code: p.code, KeyCode: p.keyCode, Text: p.shifted}
	}
	t["\n"] = t["Enter"]
	t["\r"] = t["Enter"]
	t["\t"] = t["Tab"]
	return t
}

// addSidesAndKeypad adds the left and right modifiers (ShiftRight) and the
// numeric keypad (Numpad5, NumpadEnter).
func addSidesAndKeypad(t map[string]Def) {
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
			t[code] = Def{Key: m.key, Code: code, KeyCode: kc, Location: side.location}
		}
	}
	for i := 0; i <= 9; i++ {
		d := fmt.Sprint(i)
		t["Numpad"+d] = Def{Key: d, Code: "Numpad" + d, KeyCode: 96 + i, Text: d, Location: 3}
	}
	for _, n := range []struct {
		code, key string
		keyCode   int
	}{{"NumpadAdd", "+", 107}, {"NumpadSubtract", "-", 109}, {"NumpadMultiply", "*", 106},
		{"NumpadDivide", "/", 111}, {"NumpadDecimal", ".", 110}} {
		t[n.code] = Def{Key: n.key, Code: n.code, KeyCode: n.keyCode, Text: n.key, Location: 3}
	}
	t["NumpadEnter"] = Def{Key: "Enter", Code: "NumpadEnter", KeyCode: 13, Text: "\r", Location: 3}
}

// withCodes completes the table: every code names its unshifted key, and
// the keys each code types with and without Shift are known.
func withCodes(t map[string]Def) keyboard {
	// Every code names its unshifted key (Backquote is `), and the shifted
	// key of each code is known for Shift+Digit3 (#) and the like. The
	// names are walked in order over a copy, so what is added cannot be
	// walked too.
	names := make([]string, 0, len(t))
	for name := range t {
		names = append(names, name)
	}
	sort.Strings(names)
	kb := keyboard{byName: t, shifted: map[string]Def{}, unshifted: map[string]Def{}}
	byCode := map[string]Def{}
	for _, name := range names {
		def := t[name]
		if def.Code == "" || def.Location != 0 {
			continue
		}
		if _, ok := t[def.Code]; !ok && isUnshifted(name, def) {
			byCode[def.Code] = def
		}
		if name != def.Key || def.Text == "" {
			continue
		}
		if isUnshifted(name, def) {
			kb.unshifted[def.Code] = def
		} else {
			kb.shifted[def.Code] = def
		}
	}
	for code, def := range byCode {
		t[code] = def
	}
	return kb
}

// isUnshifted tells the key a code types without Shift: digits, lower-case
// letters and the unshifted punctuation.
func isUnshifted(name string, def Def) bool {
	if len(name) != 1 {
		return def.Text == "" || len(def.Text) != 1
	}
	c := name[0]
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == ' ' || strings.IndexByte("-=[]\\;',./`", c) >= 0 || c == '\r' || c == '\t' || c == '\n'
}
