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
	id, err := shared.NewContext(ctx)
	if err != nil {
		t.Fatalf("new context: %v", err)
	}
	defer func() { _ = shared.CloseContext(ctx, id) }()
	shared.SetContextDefaults(id, ContextDefaults{
		Emulation:   &Emulation{HasTouch: true, Viewport: &Viewport{Width: 400, Height: 500}},
		InitScripts: []string{"window.injected = 123"},
		Bindings:    []string{"add"},
	})
	p, err := shared.NewPageIn(ctx, id)
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

// A context's named init script runs in the pages it has and the pages it
// opens later (a new tab, a popup); setting it again replaces it everywhere,
// and another context never runs it.
func TestContextScriptReplacedInEveryPage(t *testing.T) {
	needBrowser(t)
	ctx := context.Background()
	id, err := shared.NewContext(ctx)
	if err != nil {
		t.Fatalf("new context: %v", err)
	}
	defer func() { _ = shared.CloseContext(ctx, id) }()
	early, err := shared.NewPageIn(ctx, id)
	if err != nil {
		t.Fatalf("new page: %v", err)
	}
	if err := shared.SetContextScript(ctx, id, "mark", "window.marks = (window.marks || []).concat('one')"); err != nil {
		t.Fatalf("set script: %v", err)
	}
	if err := shared.SetContextScript(ctx, id, "mark", "window.marks = (window.marks || []).concat('two')"); err != nil {
		t.Fatalf("replace script: %v", err)
	}
	late, err := shared.NewPageIn(ctx, id)
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
		id, err := b.NewContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		p, err := b.NewPageIn(ctx, id)
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
