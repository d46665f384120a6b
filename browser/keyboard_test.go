package browser

import (
	"reflect"
	"strings"
	"testing"
)

func TestKeyboard(t *testing.T) {
	p := open(t, "/form.html")
	name := loc(t, p, "#name")
	if err := name.PressSequentially(bg, "Hello wörld", 0, 0); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"Shift+ArrowLeft", "Shift+ArrowLeft", "Backspace", "End", "!"} {
		if err := name.Press(bg, k, 0); err != nil {
			t.Fatalf("press %s: %v", k, err)
		}
	}
	if v, _ := name.InputValue(bg, 0); v != "Hello wör!" {
		t.Errorf("after typing and editing: %q", v)
	}
	if err := name.Press(bg, "Control+A", 0); err != nil {
		t.Fatal(err)
	}
	if err := p.Keyboard().Type(bg, "Grace", 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := name.InputValue(bg, 0); v != "Grace" {
		t.Errorf("after Control+A and typing: %q", v)
	}
	if err := p.Keyboard().Press(bg, "Tab"); err != nil {
		t.Fatal(err)
	}
	if id := eval[string](t, p, "document.activeElement.id"); id != "email" {
		t.Errorf("Tab moved focus to %q, want email", id)
	}
	// Enter in a form field submits it.
	if err := loc(t, p, "#email").Press(bg, "Enter", 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text(t, p, "#out"), `"name":"Grace"`) {
		t.Errorf("Enter did not submit: %s", text(t, p, "#out"))
	}
	wantType(t, p.Keyboard().Press(bg, "Hyper+x"), ErrInvalidParams, "Hyper")
	wantType(t, p.Keyboard().Press(bg, "NoSuchKey"), ErrInvalidParams, "NoSuchKey")
	wantType(t, p.Keyboard().Press(bg, ""), ErrInvalidParams)
}

func TestPlaywrightKeys(t *testing.T) {
	p := testPage(t)
	call(t, p, JSCall{Source: `() => { document.body.innerHTML = '<textarea id=t></textarea>'; window.keys = [];
		document.addEventListener('keydown', e => keys.push([e.key, e.code, e.location, e.repeat, e.shiftKey]));
		document.querySelector('#t').focus(); }`})
	steps := []func() error{
		func() error { return p.Keyboard().Press(bg, "ControlRight") },
		func() error { return p.Keyboard().Press(bg, "NumpadEnter") },
		func() error { return p.Keyboard().Press(bg, "Shift+Digit3") },
		func() error { return p.Keyboard().Down(bg, "a") },
		func() error { return p.Keyboard().Down(bg, "a") },
		func() error { return p.Keyboard().Up(bg, "a") },
		func() error { return p.Keyboard().Down(bg, "Shift") },
		func() error { return p.Keyboard().Type(bg, "~", 0) },
		func() error { return p.Keyboard().Up(bg, "Shift") },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	got := eval[[][]any](t, p, "keys")
	want := [][]any{
		{"Control", "ControlRight", 2.0, false, false},
		{"Enter", "NumpadEnter", 3.0, false, false},
		{"Shift", "ShiftLeft", 1.0, false, true},
		{"#", "Digit3", 0.0, false, true},
		{"a", "KeyA", 0.0, false, false},
		{"a", "KeyA", 0.0, true, false}, // a second down of a held key repeats
		{"Shift", "ShiftLeft", 1.0, false, true},
		{"~", "Backquote", 0.0, false, true}, // typed with Shift held
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("keydown events\n got %v\nwant %v", got, want)
	}
}

func TestHeldKeys(t *testing.T) {
	p := testPage(t)
	call(t, p, JSCall{Source: "() => { document.body.innerHTML = '<input id=t>'; document.querySelector('#t').focus(); }"})
	for _, step := range []func() error{
		func() error { return p.Keyboard().Down(bg, "Shift") },
		func() error { return p.Keyboard().Press(bg, "KeyA") },
		func() error { return p.Keyboard().Up(bg, "Shift") },
		func() error { return p.Keyboard().Press(bg, "b") },
		func() error { return p.Keyboard().InsertText(bg, "é") },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	if v := eval[string](t, p, "document.querySelector('#t').value"); v != "Abé" {
		t.Fatalf("typed %q", v)
	}
}
