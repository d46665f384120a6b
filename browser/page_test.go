package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

func TestGoto(t *testing.T) {
	p := testPage(t)
	res, err := p.Goto(bg, site.URL+"/nav.html", Load, 0)
	if err != nil || res.Status != 200 || res.URL != site.URL+"/nav.html" {
		t.Fatalf("goto: %+v %v", res, err)
	}
	// HTTP errors are results, with or without a body.
	for _, path := range []string{"/status/404", "/status/500?body=1", "/status/404?body=1", "/status/503"} {
		res, err := p.Goto(bg, site.URL+path, Load, 0)
		want := 404
		fmt.Sscanf(strings.TrimPrefix(path, "/status/"), "%d", &want)
		if err != nil || res.Status != want {
			t.Errorf("goto %s: %+v %v", path, res, err)
		}
	}
	res, err = p.Goto(bg, site.URL+"/redirect?to=/page2.html", Load, 0)
	if err != nil || res.Status != 200 || !strings.HasSuffix(res.URL, "/page2.html") {
		t.Errorf("redirect: %+v %v", res, err)
	}
	// Unreachable hosts are navigation errors.
	dead := httptest.NewServer(nil)
	deadURL := dead.URL
	dead.Close()
	_, err = p.Goto(bg, deadURL+"/", Load, 0)
	wantType(t, err, ErrNavigation, "ERR_CONNECTION_REFUSED", deadURL)
	_, err = p.Goto(bg, "http://no-such-host.invalid/", Load, 0)
	wantType(t, err, ErrNavigation, "no-such-host.invalid")
	_, err = p.Goto(bg, "not a url", Load, 0)
	wantType(t, err, ErrNavigation)
	_, err = p.Goto(bg, site.URL+"/nav.html", "sometime", 0)
	wantType(t, err, ErrInvalidParams, "wait_until")
	// about:blank has no status.
	res, err = p.Goto(bg, "about:blank", Load, 0)
	if err != nil || res.Status != 0 {
		t.Errorf("about:blank: %+v %v", res, err)
	}
}

func TestTimeouts(t *testing.T) {
	p := testPage(t)
	start := time.Now()
	// The waits are generous against the timeouts, so a loaded machine
	// still tells them apart.
	_, err := p.Goto(bg, site.URL+"/slow?ms=20000", Load, time.Second)
	wantType(t, err, ErrTimeout, "1000ms", "/slow?ms=20000")
	if time.Since(start) > 15*time.Second {
		t.Errorf("the timeout did not cut the wait short")
	}
	// DOMContentLoaded comes long before load when an image is slow.
	_, err = p.Goto(bg, site.URL+"/slowimg?ms=4000", DOMContentLoaded, 3*time.Second)
	if err != nil {
		t.Fatalf("domcontentloaded: %v", err)
	}
	err = p.WaitForLoadState(bg, Load, 200*time.Millisecond)
	wantType(t, err, ErrTimeout, "load event")
	err = p.WaitForLoadState(bg, NetworkIdle, 0)
	if err != nil {
		t.Errorf("networkidle: %v", err)
	}
	if err := p.WaitForLoadState(bg, Load, time.Second); err != nil {
		t.Errorf("load after networkidle: %v", err)
	}
	// A page that never finishes loading fails networkidle with a timeout.
	_, err = p.Goto(bg, site.URL+"/slowimg?ms=30000", NetworkIdle, 3*time.Second)
	wantType(t, err, ErrTimeout, "networkIdle")
	// The caller's own context still cancels.
	ctx, cancel := context.WithCancel(bg)
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	err = loc(t, p, "#never").WaitFor(ctx, stateVisible, 5*time.Second)
	if err == nil || IsType(err, ErrTimeout) {
		t.Errorf("cancelled wait: %v", err)
	}
}

func TestHistoryAndLinks(t *testing.T) {
	p := testPage(t)
	if _, err := p.Goto(bg, site.URL+"/nav.html", Load, 0); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "role=link[name='Go to page two']").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	u, err := p.WaitForURL(bg, "**/page2.html", Load, 0)
	if err != nil || !strings.HasSuffix(u, "/page2.html") {
		t.Fatalf("wait for url: %q %v", u, err)
	}
	if title, _ := p.Title(bg); title != "Second page" {
		t.Errorf("title %q", title)
	}
	if _, err := p.WaitForURL(bg, "/page2\\.html$/", Load, 0); err != nil {
		t.Errorf("regex url: %v", err)
	}
	_, err = p.WaitForURL(bg, "**/nowhere", Load, 200*time.Millisecond)
	wantType(t, err, ErrTimeout, "**/nowhere", "page2.html")
	_, err = p.WaitForURL(bg, "/(?<=x)/", Load, 0)
	wantType(t, err, ErrInvalidParams)

	u, ok, err := p.GoBack(bg, Load, 0)
	if err != nil || !ok || !strings.HasSuffix(u, "/nav.html") {
		t.Fatalf("back: %q %v %v", u, ok, err)
	}
	u, ok, err = p.GoForward(bg, Load, 0)
	if err != nil || !ok || !strings.HasSuffix(u, "/page2.html") {
		t.Fatalf("forward: %q %v %v", u, ok, err)
	}
	if _, ok, err := p.GoForward(bg, Load, 0); ok || err != nil {
		t.Errorf("forward at the end: %v %v", ok, err)
	}
	eval[any](t, p, "document.body.dataset.marker = 'x'")
	u, err = p.Reload(bg, Load, 0)
	if err != nil || !strings.HasSuffix(u, "/page2.html") {
		t.Fatalf("reload: %q %v", u, err)
	}
	if eval[any](t, p, "document.body.dataset.marker") != nil {
		t.Errorf("reload kept the old document")
	}
	// A same-document navigation (a #hash link) is a history entry too.
	if _, err := p.Goto(bg, site.URL+"/nav.html", Load, 0); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "#hash").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	// The click returns once the navigation it started shows in URL.
	if u := p.URL(); !strings.HasSuffix(u, "/nav.html#section") {
		t.Errorf("URL right after clicking a #hash link: %q", u)
	}
	if _, err := p.WaitForURL(bg, "**/nav.html#section", Load, 0); err != nil {
		t.Fatal(err)
	}
	if u, _, err := p.GoBack(bg, Load, 0); err != nil || !strings.HasSuffix(u, "/nav.html") {
		t.Errorf("back from #hash: %q %v", u, err)
	}
}

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

func TestScreenshots(t *testing.T) {
	p := open(t, "/lazy.html")
	if err := loc(t, p, "text=Item 20").WaitFor(bg, "", 0); err != nil {
		t.Fatal(err)
	}
	if err := p.SetViewportSize(bg, 800, 600); err != nil {
		t.Fatal(err)
	}
	decode := func(b []byte) (w, h int) {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("not a PNG: %v", err)
		}
		return img.Bounds().Dx(), img.Bounds().Dy()
	}
	shot, err := p.Screenshot(bg, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := decode(shot); w != 800 || h != 600 {
		t.Errorf("viewport screenshot %dx%d, want 800x600", w, h)
	}
	full, err := p.Screenshot(bg, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := decode(full); w != 800 || h < 2000 {
		t.Errorf("full page screenshot %dx%d, want 800 wide and over 2000 high", w, h)
	}
	// An element below the fold: scrolled to, cropped to its box. The list
	// is told it is full first: scrolling to its end would load more items
	// and push the box down between the measuring and the capture.
	eval[any](t, p, `(() => { n = 60; const d = document.createElement('div'); d.id = 'box';
		d.style.cssText = 'width: 120px; height: 40px; background: rgb(255, 0, 0)'; document.body.appendChild(d) })()`)
	el, err := loc(t, p, "#box").Screenshot(bg, 0)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(el))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 120 || img.Bounds().Dy() != 40 {
		t.Errorf("element screenshot %v, want 120x40", img.Bounds())
	}
	r, g, b, _ := img.At(60, 20).RGBA()
	if r>>8 < 240 || g>>8 > 20 || b>>8 > 20 {
		t.Errorf("element screenshot is not the red box: rgb(%d,%d,%d)", r>>8, g>>8, b>>8)
	}
	wantType(t, p.SetViewportSize(bg, 0, 10), ErrInvalidParams)
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

func TestClosedPage(t *testing.T) {
	p := open(t, "/buttons.html")
	if err := p.Close(bg); err != nil {
		t.Fatal(err)
	}
	for _, p2 := range shared.Pages() {
		if p2 == p {
			t.Errorf("a closed page is listed")
		}
	}
	_, err := p.Goto(bg, site.URL+"/nav.html", Load, 0)
	wantType(t, err, ErrTargetClosed, p.ID())
	wantType(t, loc(t, p, "button").Click(bg, ClickOptions{}), ErrTargetClosed)
	_, err = p.Evaluate(bg, "1", nil, 0)
	wantType(t, err, ErrTargetClosed)
	if err := p.Close(bg); err != nil {
		t.Errorf("closing twice: %v", err)
	}
	// A page closed behind the driver's back ends a wait at once.
	p = open(t, "/buttons.html")
	go func() {
		time.Sleep(100 * time.Millisecond)
		_, _ = proto.TargetCloseTarget{TargetID: p.rod.TargetID}.Call(shared.rod)
	}()
	start := time.Now()
	err = loc(t, p, "#nope").WaitFor(bg, stateVisible, 5*time.Second)
	wantType(t, err, ErrTargetClosed)
	if time.Since(start) > 3*time.Second {
		t.Errorf("the wait did not end when the page closed")
	}
}

func TestURLPolicy(t *testing.T) {
	needBrowser(t)
	blocked := func(u string) error {
		if strings.Contains(u, "page2") {
			return errors.New("page2 is off limits")
		}
		return nil
	}
	ctx, cancel := context.WithTimeout(bg, 30*time.Second)
	defer cancel()
	b, err := Launch(ctx, Options{URLPolicy: blocked})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(bg)
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Goto(ctx, site.URL+"/page2.html", Load, 0)
	wantType(t, err, ErrBlockedURL, "off limits")
	_, err = p.Goto(ctx, site.URL+"/redirect?to=/page%32.html", Load, 0)
	wantType(t, err, ErrBlockedURL, "redirected", "off limits")
	if _, err := p.Goto(ctx, site.URL+"/nav.html", Load, 0); err != nil {
		t.Fatal(err)
	}
	l, _ := p.Locator("#next")
	if err := l.Click(ctx, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n, _ := loc(t, p, "text=Page two").Count(ctx); n != 0 {
		t.Errorf("a link navigated to a blocked page: %s", p.URL())
	}
	found := false
	for _, m := range p.ConsoleMessages(false) {
		found = found || strings.Contains(m.Text, "blocked a navigation to "+site.URL+"/page2.html")
	}
	if !found {
		t.Errorf("no console message about the blocked link: %+v", p.ConsoleMessages(false))
	}
	// A popup to a blocked page is closed.
	if _, err := p.Goto(ctx, site.URL+"/popup.html", Load, 0); err != nil {
		t.Fatal(err)
	}
	l, _ = p.Locator("#tab")
	if err := l.Click(ctx, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		open := ""
		for _, q := range b.Pages() {
			if strings.Contains(q.URL(), "page2") {
				open = q.URL()
			}
		}
		if open == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("a blocked popup stayed open: %s", open)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}
