package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A click that submits a form returns once the submission's page has
// committed, so a goto right after it is not overtaken by the late
// submission; no_wait_after returns at once, as before.
func TestClickWaitsForTheNavigationItStarts(t *testing.T) {
	var submitted atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>form</title><form method="post" action="/submit"><input name="q" value="x"><button>Go</button></form><a id="frag" href="#here">here</a>`)
	})
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		submitted.Add(1)
		time.Sleep(400 * time.Millisecond)
		fmt.Fprint(w, `<!doctype html><title>submitted</title>`)
	})
	mux.HandleFunc("/other", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>other</title>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()
	p := testPage(t)

	if _, err := p.Goto(ctx, srv.URL+"/form", Load, 0); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "button").Click(ctx, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if u := p.URL(); !strings.HasSuffix(u, "/submit") {
		t.Errorf("after the click the page is at %s, want the submission committed", u)
	}
	if _, err := p.Goto(ctx, srv.URL+"/other", Load, 0); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond) // a late submission would land now
	if title, _ := p.Title(ctx); title != "other" || !strings.HasSuffix(p.URL(), "/other") {
		t.Errorf("the goto after the click was overtaken: %s %q", p.URL(), title)
	}

	// A same-document link and a click that navigates nowhere return at once.
	if _, err := p.Goto(ctx, srv.URL+"/form", Load, 0); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := loc(t, p, "#frag").Click(ctx, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "input").Click(ctx, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("clicks that start no navigation took %v", d)
	}

	// Enter in the form's field submits it: the press waits the same way.
	if err := loc(t, p, "input").Press(ctx, "Enter", 0); err != nil {
		t.Fatal(err)
	}
	if u := p.URL(); !strings.HasSuffix(u, "/submit") {
		t.Errorf("after Enter the page is at %s, want the submission committed", u)
	}
	if _, err := p.Goto(ctx, srv.URL+"/form", Load, 0); err != nil {
		t.Fatal(err)
	}

	// no_wait_after: the old behaviour.
	n := submitted.Load()
	if err := loc(t, p, "button").Click(ctx, ClickOptions{NoWaitAfter: true}); err != nil {
		t.Fatal(err)
	}
	if u := p.URL(); strings.HasSuffix(u, "/submit") {
		t.Errorf("no_wait_after waited for the submission (%s)", u)
	}
	deadline := time.Now().Add(10 * time.Second)
	for submitted.Load() == n && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
}
