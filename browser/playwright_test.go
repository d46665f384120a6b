package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

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

// collect subscribes to the shared browser's events of one page.
func collect(t *testing.T, p *Page, dialogs bool) func(kind string) []Event {
	var mu sync.Mutex
	var got []Event
	cancel := shared.Subscribe(func(e Event) {
		if page, _ := eventPage(e); page != p.ID() {
			return
		}
		mu.Lock()
		got = append(got, e)
		mu.Unlock()
	}, dialogs)
	t.Cleanup(cancel)
	return func(kind string) []Event {
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			var out []Event
			for _, e := range got {
				if eventKind(e) == kind {
					out = append(out, e)
				}
			}
			mu.Unlock()
			if len(out) > 0 || time.Now().After(deadline) {
				return out
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

func TestEventsAndDialogs(t *testing.T) {
	p := testPage(t)
	events := collect(t, p, true)
	if _, err := p.Goto(bg, site.URL+"/form.html", Load, 0); err != nil {
		t.Fatal(err)
	}
	if reqs := events("RequestEvent"); len(reqs) == 0 || reqs[0].(*RequestEvent).URL != site.URL+"/form.html" {
		t.Fatalf("request events: %v", reqs)
	}
	if resp := events("ResponseEvent"); len(resp) == 0 || resp[0].(*ResponseEvent).Status != 200 {
		t.Fatalf("response events: %v", resp)
	}
	call(t, p, JSCall{Source: "() => console.log('hello', 5)"})
	if c := events("ConsoleEvent"); len(c) != 1 || c[0].(*ConsoleEvent).Text != "hello 5" {
		t.Fatalf("console events: %v", c)
	}
	// With dialogs subscribed, a dialog waits for the client's answer.
	done := make(chan *JSResult, 1)
	go func() {
		r, _ := p.Call(bg, JSCall{Source: "() => prompt('Name?', 'x')"}, 0)
		done <- r
	}()
	if d := events("DialogEvent"); len(d) != 1 || d[0].(*DialogEvent).Message != "Name?" {
		t.Fatalf("dialog events: %v", d)
	}
	text := "Ada"
	if err := p.AnswerDialog(bg, true, &text); err != nil {
		t.Fatal(err)
	}
	if r := <-done; r == nil || string(r.Value) != `"Ada"` {
		t.Fatalf("prompt answered: %+v", r)
	}
}

func TestRouting(t *testing.T) {
	p := testPage(t)
	var mu sync.Mutex
	var seen []string
	cancel := shared.Subscribe(func(e Event) {
		r, ok := e.(*RouteEvent)
		if !ok || r.Page != p.ID() {
			return
		}
		url, id := r.URL, r.Route
		mu.Lock()
		seen = append(seen, url)
		mu.Unlock()
		// Answer off the event goroutine, as a client does.
		go func() {
			switch {
			case strings.HasSuffix(url, "/made-up.html"):
				_ = p.Router().Fulfill(bg, id, 200, map[string]string{"content-type": "text/html"},
					base64.StdEncoding.EncodeToString([]byte("<title>Made up</title>")))
			case strings.HasSuffix(url, "/blocked.html"):
				_ = p.Router().Abort(bg, id, "connectionrefused")
			default:
				_ = p.Router().Continue(bg, id, RouteOverrides{})
			}
		}()
	}, false)
	defer cancel()
	if err := p.Router().Enable(bg, true); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Goto(bg, site.URL+"/made-up.html", Load, 0); err != nil {
		t.Fatal(err)
	}
	if title, _ := p.Title(bg); title != "Made up" {
		t.Fatalf("fulfilled page: %q", title)
	}
	if _, err := p.Goto(bg, site.URL+"/blocked.html", Load, 0); err == nil {
		t.Fatal("an aborted navigation succeeded")
	}
	if _, err := p.Goto(bg, site.URL+"/form.html", Load, 0); err != nil {
		t.Fatalf("a continued request: %v", err)
	}
	if err := p.Router().Enable(bg, false); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 3 {
		t.Fatalf("routed: %v", seen)
	}
}

func TestContextsAreIsolated(t *testing.T) {
	needBrowser(t)
	ctx := context.Background()
	id, err := shared.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer shared.CloseContext(ctx, id)
	inCtx, err := shared.NewPageIn(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	plain := open(t, "/form.html")
	if _, err := inCtx.Goto(ctx, site.URL+"/form.html", Load, 0); err != nil {
		t.Fatal(err)
	}
	call(t, inCtx, JSCall{Source: "() => { document.cookie = 'iso=1; path=/' }"})
	if c := eval[string](t, plain, "document.cookie"); strings.Contains(c, "iso=1") {
		t.Fatalf("the default context sees the other context's cookie: %q", c)
	}
	cookies, err := shared.Cookies(ctx, id)
	if err != nil || len(cookies) != 1 || cookies[0].Name != "iso" {
		t.Fatalf("context cookies: %v %v", cookies, err)
	}
	if err := inCtx.Emulate(ctx, Emulation{UserAgent: "wright-ua", Locale: "de-DE"}); err != nil {
		t.Fatal(err)
	}
	if ua := eval[string](t, inCtx, "navigator.userAgent + ' ' + navigator.language"); ua != "wright-ua de-DE" {
		t.Fatalf("emulation: %q", ua)
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
