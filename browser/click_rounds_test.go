package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The click's navigation wait pays its task barrier only when the main
// frame's document counted a form submission; every way of submitting
// counts, form.submit() from a click handler (no submit event) and a form
// made by the handler included, and a button in a frame keeps the barrier.
func TestClickWaitsForEverySubmission(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>form</title>
<form id="f" method="post" action="/submit"><input name="q" value="x"></form>
<button id="script" onclick="document.getElementById('f').submit()">script</button>
<button id="made" onclick="const f = document.createElement('form'); f.method = 'post'; f.action = '/submit'; document.body.append(f); f.submit()">made</button>
<button id="nothing" onclick="this.textContent = 'clicked'">nothing</button>`)
	})
	mux.HandleFunc("/framed", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>framed</title><iframe src="/form" width="600" height="300"></iframe>`)
	})
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		fmt.Fprint(w, `<!doctype html><title>submitted</title>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()
	p := testPage(t)

	for _, id := range []string{"script", "made"} {
		if _, err := p.Goto(ctx, srv.URL+"/form", Load, 0); err != nil {
			t.Fatal(err)
		}
		if err := loc(t, p, "#"+id).Click(ctx, ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		if u := p.URL(); !strings.HasSuffix(u, "/submit") {
			t.Errorf("after a click on #%s the page is at %s, want the submission committed", id, u)
		}
	}

	// A click that submits nothing still does what it does, once.
	if _, err := p.Goto(ctx, srv.URL+"/form", Load, 0); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "#nothing").Click(ctx, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, p, `() => document.getElementById('nothing').textContent`); got != "clicked" {
		t.Errorf("the button reads %q after the click", got)
	}

	// In a frame: the submission navigates the frame, and the click waits
	// for it to commit.
	if _, err := p.Goto(ctx, srv.URL+"/framed", Load, 0); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "iframe >> internal:control=enter-frame >> #script").Click(ctx, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, p, `() => document.querySelector('iframe').contentWindow.location.pathname`); got != "/submit" {
		t.Errorf("after the click in the frame, the frame is at %q, want /submit committed", got)
	}
}

// A second click at the point where the mouse already is, in the same
// document, sends no mousemove (a hand that stays put sends none) and
// still clicks; a new document, or a mouse moved away, gets its move.
func TestRepeatedClickMovesOnce(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>moves</title>
<button id="b" style="margin: 100px; width: 200px; height: 60px">b</button>
<script>
window.moves = 0; window.clicks = 0; window.overs = 0;
addEventListener('mousemove', () => window.moves++, true);
addEventListener('click', () => window.clicks++, true);
document.getElementById('b').addEventListener('mouseover', () => window.overs++);
</script>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()
	p := testPage(t)
	counts := func() string {
		return eval[string](t, p, `() => 'moves ' + window.moves + ' clicks ' + window.clicks + ' overs ' + window.overs`)
	}

	if _, err := p.Goto(ctx, srv.URL+"/", Load, 0); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := loc(t, p, "#b").Click(ctx, ClickOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := counts(), "moves 1 clicks 3 overs 1"; got != want {
		t.Errorf("three clicks on one point: %s, want %s", got, want)
	}

	// The mouse went elsewhere: the next click moves it back.
	if err := p.Mouse().Move(ctx, 5, 5); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "#b").Click(ctx, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := counts(), "moves 3 clicks 4 overs 2"; got != want {
		t.Errorf("after a move away and a click: %s, want %s", got, want)
	}

	// A new document has seen no move: the click moves, and the button
	// gets its mouseover.
	if _, err := p.Reload(ctx, Load, 0); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "#b").Click(ctx, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := counts(), "moves 1 clicks 1 overs 1"; got != want {
		t.Errorf("the first click in a reloaded document: %s, want %s", got, want)
	}
}

// A click that moves the URL within the document (a #fragment link, a
// handler's pushState) returns with URL() already the new one; a click
// that moves nothing leaves it as it was.
func TestClickURLWithinTheDocument(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>same</title>
<a id="frag" href="#here">here</a>
<button id="push" onclick="history.pushState({}, '', '/pushed')">push</button>
<button id="still" onclick="this.textContent = 'done'">still</button>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()
	p := testPage(t)
	if _, err := p.Goto(ctx, srv.URL+"/", Load, 0); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sel, suffix string }{{"#still", "/"}, {"#frag", "/#here"}, {"#push", "/pushed"}, {"#still", "/pushed"}} {
		if err := loc(t, p, c.sel).Click(ctx, ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		if u := p.URL(); !strings.HasSuffix(u, c.suffix) {
			t.Errorf("right after a click on %s the URL is %s, want it to end in %s", c.sel, u, c.suffix)
		}
	}
}
