package browser

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestPopups(t *testing.T) {
	p := open(t, "/popup.html")
	before := len(shared.Pages())
	if err := loc(t, p, "#tab").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	popup := waitForPage(t, p.ID(), before)
	t.Cleanup(func() { _ = popup.Close(bg) })
	if err := popup.WaitForLoadState(bg, Load, 0); err != nil {
		t.Fatal(err)
	}
	if title, _ := popup.Title(bg); title != "Second page" {
		t.Errorf("popup title %q", title)
	}
	if popup.Opener() != p.ID() {
		t.Errorf("opener %q, want %s", popup.Opener(), p.ID())
	}
	if err := loc(t, p, "#win").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	win := waitForPage(t, p.ID(), before+1)
	t.Cleanup(func() { _ = win.Close(bg) })
	if _, err := win.WaitForURL(bg, "**/page2.html?from=button", Load, 0); err != nil {
		t.Errorf("window.open page: %v", err)
	}
}

// waitForPage waits for the browser to have more than n pages and returns
// the newest, which must have been opened by opener.
func waitForPage(t *testing.T, opener string, n int) *Page {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		pages := shared.Pages()
		if len(pages) > n {
			last := pages[len(pages)-1]
			if last.Opener() != opener {
				t.Fatalf("newest page %s has opener %q, want %s", last.ID(), last.Opener(), opener)
			}
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no new page appeared")
	return nil
}

// A popup that shows a dialog at once (the opener calls prompt() on the
// window it just opened) used to block rod's attach, and its dialog, opened
// before we listened, was never seen: the tab was closed after attachLimit.
// New tabs are now held until adopted (autoattach.go), so the dialog is
// reported on the popup and answered, the opener gets the answer, and the
// browser goes on.
func TestPopupDialogBeforeAttachIsAnswered(t *testing.T) {
	p := open(t, "/form.html")
	ctx := context.Background()
	out, err := p.Evaluate(ctx, `() => window.open('').prompt('hey?', 'fine')`, nil, 30*time.Second)
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	if strings.TrimSpace(string(out)) != `"fine"` {
		t.Errorf("prompt in the popup = %s, want \"fine\" (accepted with its default)", out)
	}
	var popup *Page
	for _, q := range shared.Pages() {
		if q.opener == p.ID() {
			popup = q
		}
	}
	if popup == nil {
		t.Fatalf("the popup was not adopted")
	}
	defer func() { _ = popup.Close(ctx) }()
	if d := popup.Dialogs(false); len(d) != 1 || d[0].Message != "hey?" {
		t.Errorf("popup dialogs = %+v, want the prompt", d)
	}
	q, err := shared.NewPage(ctx)
	if err != nil {
		t.Fatalf("a new page after the popup: %v", err)
	}
	_ = q.Close(ctx)
}

func TestAttachOverCDP(t *testing.T) {
	needBrowser(t)
	existing := open(t, "/buttons.html")
	host := strings.TrimPrefix(strings.Split(shared.wsURL, "/devtools/")[0], "ws://")
	for _, u := range []string{"http://" + host, shared.wsURL} {
		ctx, cancel := context.WithTimeout(bg, 20*time.Second)
		b, err := Launch(ctx, Options{CDPURL: u, Viewport: Viewport{Width: 800, Height: 600}})
		cancel()
		if err != nil {
			t.Fatalf("attach %s: %v", u, err)
		}
		found := false
		for _, p := range b.Pages() {
			found = found || p.URL() == existing.URL()
		}
		if !found {
			t.Errorf("attached browser does not list the open page %s", existing.URL())
		}
		own, err := b.NewPage(bg)
		if err != nil {
			t.Fatal(err)
		}
		// The shared browser adopts this tab too, as a foreign one: its
		// viewport must not fight the attachment's.
		if w := eval[float64](t, own, "innerWidth"); w != 800 {
			t.Errorf("the attachment's new page has width %v, want 800", w)
		}
		if _, err := own.Goto(bg, site.URL+"/nav.html", Load, 0); err != nil {
			t.Fatal(err)
		}
		if w := eval[float64](t, own, "innerWidth"); w != 800 {
			t.Errorf("the attachment's own page has width %v, want 800", w)
		}
		if err := b.Close(bg); err != nil {
			t.Fatal(err)
		}
		// Closing an attached browser closes only what it opened.
		if shared.Err() != nil {
			t.Fatalf("closing the attachment closed the browser: %v", shared.Err())
		}
		if w := eval[float64](t, existing, "innerWidth"); w != float64(defaultWidth) {
			t.Errorf("the attachment changed the viewport of an existing page: width %v", w)
		}
		if title, err := existing.Title(bg); err != nil || title != "Products" {
			t.Errorf("the existing page suffered: %q %v", title, err)
		}
		// The shared browser hears of the closed tab by an event: give it
		// time on a loaded machine.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			left := false
			for _, p := range shared.Pages() {
				left = left || strings.HasSuffix(p.URL(), "/nav.html")
			}
			if !left {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("the attachment's own page was left open")
				break
			}
		}
	}
	_, err := Launch(bg, Options{CDPURL: site.URL})
	wantType(t, err, ErrBrowser, "webSocketDebuggerUrl")
}

func TestPopupClosedAtOnce(t *testing.T) {
	p := open(t, "/files.html")
	ch := events(t, p)
	if _, err := p.Evaluate(bg, "(() => { const w = window.open(location.href); w.close(); return 1 })()", nil, 0); err != nil {
		t.Fatal(err)
	}
	e := waitEvent(t, ch, "PageOpenedEvent", func(e Event) bool { return e.(*PageOpenedEvent).Opener == p.ID() }).(*PageOpenedEvent)
	popup := shared.Page(e.Page)
	if popup == nil || popup.Opener() != p.ID() {
		t.Fatalf("popup %+v", e)
	}
}
