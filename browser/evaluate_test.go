package browser

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestEvaluate(t *testing.T) {
	p := open(t, "/buttons.html")
	tests := []struct {
		src, arg, want string
	}{
		{"1 + 2", "", "3"},
		{"document.title", "", `"Products"`},
		{"(a) => a.n * 2", `{"n": 21}`, "42"},
		{"x => x", `null`, "null"},
		{"function (a, b) { return [a, typeof b] }", `"s"`, `["s","undefined"]`},
		{"async () => { await new Promise(r => setTimeout(r, 20)); return 'late' }", "", `"late"`},
		{"(() => { const o = {a: {b: [1, 2]}}; return o })()", "", `{"a":{"b":[1,2]}}`},
		{"await Promise.resolve(7)", "", "7"},
		{"undefined", "", "null"},
		{"0/0", "", `"NaN"`},
		{"2n ** 70n", "", `"1180591620717411303424n"`},
		{"document.querySelectorAll('button').length", "", "7"},
		{"({a: 1})", "", `{"a":1}`},
		{"() => ({a: 1})", "", `{"a":1}`},
		{"let k = 5; k * 2", "", "10"},
	}
	for _, tt := range tests {
		got, err := p.Evaluate(bg, tt.src, json.RawMessage(tt.arg), 0)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("%s: %s, want %s", tt.src, got, tt.want)
		}
	}
	_, err := p.Evaluate(bg, "() => { throw new Error('boom') }", nil, 0)
	wantType(t, err, ErrEvaluation, "boom")
	_, err = p.Evaluate(bg, "nosuchvar + 1", nil, 0)
	wantType(t, err, ErrEvaluation, "nosuchvar")
	_, err = p.Evaluate(bg, "() => document.body", nil, 0)
	if err != nil {
		t.Logf("returning a node: %v", err)
	}
	_, err = p.Evaluate(bg, "new Promise(() => {})", nil, 200*time.Millisecond)
	wantType(t, err, ErrTimeout)
	_, err = p.Evaluate(bg, "", nil, 0)
	wantType(t, err, ErrInvalidParams)
	_, err = p.Evaluate(bg, "x => x", json.RawMessage("{bad"), 0)
	wantType(t, err, ErrInvalidParams)
	// The code runs once even when it navigates.
	n := eval[float64](t, p, "window.runs = (window.runs || 0) + 1")
	if n != 1 {
		t.Errorf("ran %v times", n)
	}
	// locator.evaluate gets the element first.
	v, err := loc(t, p, "li >> nth=2").Evaluate(bg, "(el, suffix) => el.querySelector('h2').textContent + suffix", json.RawMessage(`"!"`), 0)
	if err != nil || string(v) != `"Green mug!"` {
		t.Errorf("locator evaluate: %s %v", v, err)
	}
	v, err = loc(t, p, "h2 >> nth=0").Evaluate(bg, "this.textContent", nil, 0)
	if err != nil || string(v) != `"Red mug"` {
		t.Errorf("locator evaluate expression: %s %v", v, err)
	}
	attr, err := loc(t, p, "li >> nth=0").GetAttribute(bg, "class", 0)
	if err != nil || attr == nil || *attr != "card" {
		t.Errorf("get_attribute: %v %v", attr, err)
	}
	attr, err = loc(t, p, "li >> nth=0").GetAttribute(bg, "nope", 0)
	if err != nil || attr != nil {
		t.Errorf("missing attribute: %v %v", attr, err)
	}
	html, err := loc(t, p, "li >> nth=0").InnerHTML(bg, 0)
	if err != nil || !strings.Contains(html, "<h2>Red mug</h2>") {
		t.Errorf("inner_html: %q %v", html, err)
	}
	content, err := p.Content(bg)
	if err != nil || !strings.HasPrefix(content, "<!DOCTYPE html>") || !strings.Contains(content, "Tea pot") {
		t.Errorf("content: %.80q %v", content, err)
	}
}

// Tests of the driver side of the Playwright-compatible client: value
// transfer, handles, events, routing, contexts and held keys. The client's
// side is tested by browser/python's pw_*.py scenarios.

func call(t *testing.T, p *Page, c JSCall) *JSResult {
	t.Helper()
	r, err := p.Call(bg, c, 0)
	if err != nil {
		t.Fatalf("js.call %q: %v", c.Source, err)
	}
	return r
}

func sameJSON(got json.RawMessage, want string) bool {
	var a, b any
	return json.Unmarshal(got, &a) == nil && json.Unmarshal([]byte(want), &b) == nil && reflect.DeepEqual(a, b)
}

func TestJSCallTransfer(t *testing.T) {
	p := testPage(t)
	// What JSON cannot carry survives the round trip, both ways.
	arg := json.RawMessage(`{"o":[["nan",{"n":"NaN"}],["neg",{"n":"-0"}],["big",{"bi":"12345678901234567890"}],["d",{"d":"2020-05-27T01:31:38.506Z"}]],"id":0}`)
	r := call(t, p, JSCall{Source: "a => [Number.isNaN(a.nan), Object.is(a.neg, -0), typeof a.big, a.d.getUTCFullYear()]", Arg: arg})
	if !sameJSON(r.Value, `{"a":[true,true,"bigint",2020],"id":0}`) {
		t.Fatalf("decoded argument: %s", r.Value)
	}
	r = call(t, p, JSCall{Source: "() => { const o = {u: undefined, i: -Infinity}; o.self = o; return o; }"})
	if !sameJSON(r.Value, `{"o":[["u",{"u":1}],["i",{"n":"-Infinity"}],["self",{"ref":0}]],"id":0}`) {
		t.Fatalf("encoded result: %s", r.Value)
	}
	// An expression is evaluated (REPL mode); a trailing semicolon is fine in a function.
	if r := call(t, p, JSCall{Source: "6 * 7"}); string(r.Value) != "42" {
		t.Fatalf("expression: %s", r.Value)
	}
	if r := call(t, p, JSCall{Source: "  x => x + 1;\n", Arg: json.RawMessage("1")}); string(r.Value) != "2" {
		t.Fatalf("function with a semicolon: %s", r.Value)
	}
	_, err := p.Call(bg, JSCall{Source: "() => { throw new Error('boom') }"}, 0)
	wantType(t, err, ErrEvaluation, "boom")
}
