package keys

import (
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	for _, c := range []struct {
		name string
		want Def
	}{
		{"a", Def{Key: "a", Code: "KeyA", KeyCode: 65, Text: "a"}},
		{"KeyA", Def{Key: "a", Code: "KeyA", KeyCode: 65, Text: "a"}},
		{"Digit3", Def{Key: "3", Code: "Digit3", KeyCode: 51, Text: "3"}},
		{"#", Def{Key: "#", Code: "Digit3", KeyCode: 51, Text: "#"}},
		{"Backquote", Def{Key: "`", Code: "Backquote", KeyCode: 192, Text: "`"}},
		{"Minus", Def{Key: "-", Code: "Minus", KeyCode: 189, Text: "-"}},
		{"ControlRight", Def{Key: "Control", Code: "ControlRight", KeyCode: 17, Location: 2}},
		{"MetaRight", Def{Key: "Meta", Code: "MetaRight", KeyCode: 92, Location: 2}},
		{"Numpad5", Def{Key: "5", Code: "Numpad5", KeyCode: 101, Text: "5", Location: 3}},
		{"NumpadEnter", Def{Key: "Enter", Code: "NumpadEnter", KeyCode: 13, Text: "\r", Location: 3}},
		{"\n", Def{Key: "Enter", Code: "Enter", KeyCode: 13, Text: "\r"}},
		{"F12", Def{Key: "F12", Code: "F12", KeyCode: 123}},
	} {
		got, ok := Lookup(c.name)
		if !ok || got != c.want {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", c.name, got, ok, c.want)
		}
	}
	if _, ok := Lookup("Hyper"); ok {
		t.Error("Lookup(Hyper) found a key")
	}
}

// The table is the same every time it is built: nothing depends on the
// order a map is walked in.
func TestBuildIsDeterministic(t *testing.T) {
	first := build()
	for i := 0; i < 20; i++ {
		again := build()
		if len(again.byName) != len(first.byName) || len(again.shifted) != len(first.shifted) || len(again.unshifted) != len(first.unshifted) {
			t.Fatalf("build %d: sizes differ", i)
		}
		for name, def := range first.byName {
			if again.byName[name] != def {
				t.Fatalf("build %d: %q is %+v, was %+v", i, name, again.byName[name], def)
			}
		}
	}
}

func TestParseCombo(t *testing.T) {
	mods, key, err := ParseCombo("Control+Shift+A")
	if err != nil || len(mods) != 2 || mods[0].Key != "Control" || mods[1].Key != "Shift" || key.Code != "KeyA" {
		t.Fatalf("Control+Shift+A: %+v %+v %v", mods, key, err)
	}
	if mods, key, err := ParseCombo("Shift++"); err != nil || len(mods) != 1 || key.Key != "+" {
		t.Fatalf("Shift++: %+v %+v %v", mods, key, err)
	}
	if _, key, err := ParseCombo("ControlOrMeta"); err != nil || key.Key != "Control" {
		t.Fatalf("ControlOrMeta: %+v %v", key, err)
	}
	if _, key, err := ParseCombo("é"); err != nil || key.Text != "é" || key.Code != "" {
		t.Fatalf("é: %+v %v", key, err)
	}
	for _, c := range []struct{ in, want string }{
		{"", "empty key"}, {"Hyper+x", `unknown key "Hyper"`}, {"a+b", `"a" in "a+b" is not a modifier`},
	} {
		if _, _, err := ParseCombo(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseCombo(%q) = %v, want %q", c.in, err, c.want)
		}
	}
}

func TestWithShift(t *testing.T) {
	three, _ := Lookup("3")
	if got := WithShift(three, Shift); got.Key != "#" {
		t.Errorf("Shift+3 types %q, want #", got.Key)
	}
	if got := WithShift(three, Control); got.Key != "3" {
		t.Errorf("Control+3 types %q, want 3", got.Key)
	}
	np, _ := Lookup("Numpad3")
	if got := WithShift(np, Shift); got != np {
		t.Errorf("Shift+Numpad3 = %+v, want the keypad key", got)
	}
	if b, ok := Modifier("Shift"); !ok || b != Shift {
		t.Errorf("Modifier(Shift) = %d %v", b, ok)
	}
	if _, ok := Modifier("a"); ok {
		t.Error("Modifier(a) is a modifier")
	}
}
