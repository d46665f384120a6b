package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestGotoFragmentUpdatesURL(t *testing.T) {
	p := open(t, "/nav.html")
	// The URL used to lag behind a same-document goto about half the time.
	for i := 0; i < 12; i++ {
		want := site.URL + "/nav.html#part" + string(rune('a'+i))
		res, err := p.Goto(bg, want, Load, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.URL(); got != want || res.URL != want {
			t.Fatalf("after goto %s: URL() = %s, result %s", want, got, res.URL)
		}
	}
}

func TestGotoWithoutScheme(t *testing.T) {
	for in, want := range map[string]string{
		"localhost:8000/x":   "http://localhost:8000/x",
		"localhost":          "http://localhost",
		"127.0.0.1/a?b":      "http://127.0.0.1/a?b",
		"[::1]:3000":         "http://[::1]:3000",
		"https://localhost/": "https://localhost/",
		"localhostile.com":   "localhostile.com",
		"tel:123":            "tel:123",
		"about:blank":        "about:blank",
	} {
		if got := completeURL(in); got != want {
			t.Errorf("completeURL(%q) = %q, want %q", in, got, want)
		}
	}
	p := testPage(t)
	bare := strings.TrimPrefix(other, "http://") + "/page2.html"
	if _, err := p.Goto(bg, bare, Load, 0); err != nil {
		t.Fatalf("goto %s: %v", bare, err)
	}
	if got := p.URL(); got != other+"/page2.html" {
		t.Fatalf("URL after goto %s: %s", bare, got)
	}
}

func TestGotoNetworkIdleCountsChildFrames(t *testing.T) {
	p := testPage(t)
	ctx := context.Background()
	if _, err := p.Goto(ctx, site.URL+"/frames.html", NetworkIdle, 20*time.Second); err != nil {
		t.Fatalf("networkidle of a page with frames: %v", err)
	}
	// A child frame whose document never arrives keeps the page busy.
	_, err := p.Goto(ctx, site.URL+"/frames.html?cross="+site.URL+"/slow?ms=30000", NetworkIdle, 3*time.Second)
	wantType(t, err, ErrTimeout, `waiting until "networkidle"`, "/frames.html")
}

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
