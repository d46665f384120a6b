package browser

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestDialogs(t *testing.T) {
	p := open(t, "/dialog.html")
	for _, c := range []struct{ button, want string }{
		{"#alert", "after alert"}, {"#confirm", "confirm=true"}, {"#prompt", "prompt=Ada"},
	} {
		if err := loc(t, p, c.button).Click(bg, ClickOptions{}); err != nil {
			t.Fatalf("click %s: %v", c.button, err)
		}
		if got := text(t, p, "#r"); got != c.want {
			t.Errorf("%s: result %q, want %q", c.button, got, c.want)
		}
	}
	d := p.Dialogs(true)
	if len(d) != 3 || d[0].Type != "alert" || d[0].Message != "Saved!" || d[1].Type != "confirm" || d[2].DefaultValue != "Ada" {
		t.Errorf("dialogs: %+v", d)
	}
	if len(p.Dialogs(false)) != 0 {
		t.Errorf("dialogs not cleared")
	}
	// An HTML <dialog> is an ordinary element with the dialog role.
	if err := loc(t, p, "role=button[name='Open settings']").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "role=dialog[name=Settings] >> role=button[name=Close]").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := text(t, p, "#r"); got != "closed" {
		t.Errorf("dialog element: %q", got)
	}
}

// Tests of drag and drop, file inputs, file choosers, downloads and the
// driver bugs Playwright's tests found (files.html is the fixture).

// events collects the shared browser's events of one page until the test
// ends.
func events(t *testing.T, p *Page) <-chan Event {
	t.Helper()
	ch := make(chan Event, 256)
	cancel := shared.Subscribe(func(e Event) {
		if page, opener := eventPage(e); page == p.ID() || opener == p.ID() {
			select {
			case ch <- e:
			default:
			}
		}
	}, false)
	t.Cleanup(cancel)
	return ch
}

// waitEvent waits for the first event of a kind (its type's name) that
// keep accepts.
func waitEvent(t *testing.T, ch <-chan Event, kind string, keep func(Event) bool) Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-ch:
			if eventKind(e) == kind && (keep == nil || keep(e)) {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s", kind)
		}
	}
}

func TestFlushEvents(t *testing.T) {
	p := testPage(t)
	if err := p.ExposeBinding(bg, "noted"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := 0
	cancel := shared.Subscribe(func(e Event) {
		if b, ok := e.(*BindingEvent); ok && b.Page == p.ID() {
			mu.Lock()
			seen++
			mu.Unlock()
		}
	}, false)
	defer cancel()
	call(t, p, JSCall{Source: `() => { document.body.innerHTML = '<input id=a><input id=b>';
		document.querySelector('#b').addEventListener('focus', () => noted('focus')); }`})
	for i := 1; i <= 5; i++ {
		if err := loc(t, p, "#a").Focus(bg, 0); err != nil {
			t.Fatal(err)
		}
		if err := loc(t, p, "#b").Focus(bg, 0); err != nil {
			t.Fatal(err)
		}
		// The binding's event was sent before Focus returned; the barrier
		// makes sure the pump has delivered it.
		p.FlushEvents(bg)
		mu.Lock()
		n := seen
		mu.Unlock()
		if n != i {
			t.Fatalf("after %d focus events the subscriber saw %d", i, n)
		}
	}
}

func TestConsoleAndErrors(t *testing.T) {
	p := open(t, "/nav.html")
	msgs := p.ConsoleMessages(false)
	if len(msgs) < 2 || msgs[0].Text != "nav loaded 42 {a: 1}" || msgs[0].Type != "log" || msgs[1].Type != "warning" {
		t.Errorf("console: %+v", msgs)
	}
	if !strings.HasSuffix(msgs[0].URL, "/nav.html") || msgs[0].Line != 9 {
		t.Errorf("console location: %s:%d", msgs[0].URL, msgs[0].Line)
	}
	eval[any](t, p, "setTimeout(() => { throw new TypeError('kaput') }, 0)")
	deadline := time.Now().Add(2 * time.Second)
	for len(p.PageErrors(false)) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	errs := p.PageErrors(true)
	if len(errs) != 1 || errs[0].Message != "TypeError: kaput" || !strings.Contains(errs[0].Stack, "kaput") {
		t.Errorf("page errors: %+v", errs)
	}
	if len(p.PageErrors(false)) != 0 {
		t.Errorf("errors not cleared")
	}
	p.ConsoleMessages(true)
	if len(p.ConsoleMessages(false)) != 0 {
		t.Errorf("console not cleared")
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

func TestConsoleTextLikePlaywright(t *testing.T) {
	p := testPage(t)
	call(t, p, JSCall{Source: `() => console.log("hello", 5, {foo: "bar", n: 1}, ["x", 2])`})
	// The console event travels apart from the call's reply: wait for it.
	msgs := p.ConsoleMessages(false)
	for deadline := time.Now().Add(10 * time.Second); len(msgs) == 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		msgs = p.ConsoleMessages(false)
	}
	if len(msgs) == 0 || msgs[len(msgs)-1].Text != "hello 5 {foo: bar, n: 1} [x, 2]" {
		t.Fatalf("console text: %+v", msgs)
	}
}

// Close answers after its close event has reached every subscriber, so a
// client's "close" listener has run when close() returns; a slow
// subscriber makes the old race (the answer first) certain.
func TestCloseEventBeforeCloseReturns(t *testing.T) {
	for i := range 3 {
		p := testPage(t)
		var mu sync.Mutex
		closed := 0
		cancel := shared.Subscribe(func(e Event) {
			if c, ok := e.(*PageClosedEvent); ok && c.Page == p.ID() {
				time.Sleep(100 * time.Millisecond)
				mu.Lock()
				closed++
				mu.Unlock()
			}
		}, false)
		if err := p.Close(bg); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		n := closed
		mu.Unlock()
		cancel()
		if n != 1 {
			t.Fatalf("close %d: the subscriber had seen %d close events when Close returned, want 1", i, n)
		}
	}
}
