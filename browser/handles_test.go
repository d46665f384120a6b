package browser

import (
	"encoding/json"
	"testing"
	"time"
)

func TestHandles(t *testing.T) {
	p := testPage(t)
	if _, err := p.Call(bg, JSCall{Source: `() => { document.body.innerHTML = "<button id=b onclick='window.n=(window.n||0)+1'>Go</button><iframe srcdoc='<p id=x>inner</p>'></iframe>" }`}, 0); err != nil {
		t.Fatal(err)
	}
	obj := call(t, p, JSCall{Source: "() => ({answer: 41})", ReturnHandle: true})
	if obj.Handle == "" || obj.Subtype == "node" {
		t.Fatalf("object handle: %+v", obj)
	}
	// A handle in the argument is the same object.
	r := call(t, p, JSCall{Source: "o => o.answer + 1", Arg: json.RawMessage(`{"h":0}`), Handles: []string{obj.Handle}})
	if string(r.Value) != "42" {
		t.Fatalf("handle argument: %s", r.Value)
	}
	if err := p.Dispose(bg, obj.Handle); err != nil {
		t.Fatal(err)
	}
	_, err := p.Call(bg, JSCall{Source: "o => o", Element: obj.Handle}, 0)
	wantType(t, err, ErrTargetClosed, "disposed")

	// Element handles drive locators through handle=.
	hs, err := loc(t, p, "#b").ElementHandles(bg, 0)
	if err != nil || len(hs) != 1 {
		t.Fatalf("element handles: %v %v", hs, err)
	}
	if err := loc(t, p, "handle="+hs[0]).Click(bg, ClickOptions{}); err != nil {
		t.Fatalf("click through a handle: %v", err)
	}
	if n := eval[int](t, p, "window.n"); n != 1 {
		t.Fatalf("clicks: %d", n)
	}
	// A handle found inside a frame lives in that frame's world.
	deadline := time.Now().Add(10 * time.Second)
	var inner []string
	for time.Now().Before(deadline) && len(inner) == 0 {
		inner, _ = loc(t, p, "iframe >> #x").ElementHandles(bg, 0)
		time.Sleep(50 * time.Millisecond)
	}
	if len(inner) != 1 {
		t.Fatal("no element in the frame")
	}
	r = call(t, p, JSCall{Source: "() => document.querySelector('#x') !== null", Context: inner[0]})
	if string(r.Value) != "true" {
		t.Fatalf("context of a frame handle: %s", r.Value)
	}
	all, err := loc(t, p, "button, iframe").EvaluateAll(bg, JSCall{Source: "(els, sep) => els.map(e => e.tagName).join(sep)", Arg: json.RawMessage(`"+"`)}, 0)
	if err != nil || string(all.Value) != `"BUTTON+IFRAME"` {
		t.Fatalf("evaluate_all: %s %v", all.Value, err)
	}
}
