package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A popup gets its opener's context defaults before its first script runs:
// the opener reads them synchronously from the window window.open returns.
func TestPopupGetsContextDefaultsBeforeItRuns(t *testing.T) {
	needBrowser(t)
	ctx := context.Background()
	bc, err := shared.NewContext(ctx)
	if err != nil {
		t.Fatalf("new context: %v", err)
	}
	defer func() { _ = bc.Close(ctx) }()
	bc.SetDefaults(ContextDefaults{
		Emulation:   &Emulation{HasTouch: true, Viewport: &Viewport{Width: 400, Height: 500}},
		InitScripts: []string{"window.injected = 123"},
		Bindings:    []string{"add"},
	})
	p, err := bc.NewPage(ctx)
	if err != nil {
		t.Fatalf("new page: %v", err)
	}
	if _, err := p.Goto(ctx, site.URL+"/popup.html", Load, 0); err != nil {
		t.Fatalf("goto: %v", err)
	}
	got := eval[[]any](t, p, `() => { const w = window.open('about:blank'); return [w.innerWidth, w.innerHeight, 'ontouchstart' in w, w.injected ?? null, typeof w.add] }`)
	want := []any{400.0, 500.0, true, 123.0, "function"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("popup's [innerWidth, innerHeight, touch, init script, binding] = %v, want %v", got, want)
			break
		}
	}
}

func TestContextsAreIsolated(t *testing.T) {
	needBrowser(t)
	ctx := context.Background()
	bc, err := shared.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer bc.Close(ctx)
	inCtx, err := bc.NewPage(ctx)
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
	cookies, err := bc.Cookies(ctx)
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

// A context's named init script runs in the pages it has and the pages it
// opens later (a new tab, a popup); setting it again replaces it everywhere,
// and another context never runs it.
func TestContextScriptReplacedInEveryPage(t *testing.T) {
	needBrowser(t)
	ctx := context.Background()
	bc, err := shared.NewContext(ctx)
	if err != nil {
		t.Fatalf("new context: %v", err)
	}
	defer func() { _ = bc.Close(ctx) }()
	early, err := bc.NewPage(ctx)
	if err != nil {
		t.Fatalf("new page: %v", err)
	}
	if err := bc.SetScript(ctx, "mark", "window.marks = (window.marks || []).concat('one')"); err != nil {
		t.Fatalf("set script: %v", err)
	}
	if err := bc.SetScript(ctx, "mark", "window.marks = (window.marks || []).concat('two')"); err != nil {
		t.Fatalf("replace script: %v", err)
	}
	late, err := bc.NewPage(ctx)
	if err != nil {
		t.Fatalf("new page: %v", err)
	}
	for name, p := range map[string]*Page{"a page open before": early, "a page opened after": late} {
		if _, err := p.Goto(ctx, site.URL+"/popup.html", Load, 0); err != nil {
			t.Fatalf("goto: %v", err)
		}
		if got := eval[string](t, p, "String(window.marks)"); got != "two" {
			t.Errorf("%s ran %q, want only the newest script", name, got)
		}
	}
	if got := eval[string](t, early, "String(window.open('about:blank').marks)"); got != "two" {
		t.Errorf("a popup ran %q, want the newest script", got)
	}
	plain := open(t, "/popup.html")
	if got := eval[string](t, plain, "String(window.marks)"); got != "undefined" {
		t.Errorf("the default context ran %q", got)
	}
}

// A context costs the renderer of its page and nothing more: headless
// windows would otherwise each start a renderer for the omnibox's popup,
// a WebUI page no one sees (about 40 MB each in a bench's shared browser).
func TestContextsCostOneRendererEach(t *testing.T) {
	needBrowser(t)
	ctx := context.Background()
	b, err := Launch(ctx, Options{Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	const contexts = 3
	for range contexts {
		bc, err := b.NewContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, err := bc.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Goto(ctx, site.URL+"/form.html", Load, 0); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond) // what a window starts, it starts at once
	renderers := 0
	for _, pid := range descendantsOf(b.PID()) {
		if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); strings.Contains(string(cmd), "--type=renderer") {
			renderers++
		}
	}
	// The default context's first tab may hold one more.
	if renderers > contexts+1 {
		t.Errorf("%d renderers for %d contexts of one page each", renderers, contexts)
	}
}

// descendantsOf lists the processes below pid, from /proc.
func descendantsOf(pid int) []int {
	children := map[int][]int{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		s := string(b)
		rest := s[strings.LastIndexByte(s, ')')+1:]
		var state string
		var ppid, self int
		fmt.Sscanf(s, "%d", &self)
		fmt.Sscanf(rest, " %s %d", &state, &ppid)
		children[ppid] = append(children[ppid], self)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// The browser finds a context again by its id, the same one NewContext
// gave; an id it never gave is a context all the same, which Chromium
// refuses, and the default context outlives a close.
func TestContextByID(t *testing.T) {
	needBrowser(t)
	ctx := context.Background()
	bc, err := shared.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if shared.Context(bc.ID()) != bc || bc.Browser() != shared {
		t.Errorf("Context(%q) is not the context NewContext made", bc.ID())
	}
	p, err := bc.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p.Context() != bc || len(bc.Pages()) != 1 || bc.Pages()[0] != p {
		t.Errorf("the context's page: %v %v", p.Context(), bc.Pages())
	}
	if err := bc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = shared.Context("no-such-context").Cookies(ctx)
	wantType(t, err, ErrBrowser, "read cookies")
	if err := shared.DefaultContext().Close(ctx); err != nil {
		t.Errorf("closing the default context: %v", err)
	}
	if _, err := shared.DefaultContext().Cookies(ctx); err != nil {
		t.Errorf("the default context after a close: %v", err)
	}
}
