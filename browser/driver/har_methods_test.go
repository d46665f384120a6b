package driver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/browser"
	"wright/browser/har"
)

// TestHARWholeBrowser records a browser's whole traffic (HAROptions, as
// wright bench's --record-har sets it), stops the site, and replays it in
// another driver: the page is the same offline, and what was never
// recorded fails.
func TestHARWholeBrowser(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/shop.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Shop</title><link rel=stylesheet href=shop.css><p id=stock></p>`+
			`<script>fetch('/stock', {method: 'POST', body: 'tea'}).then(r => r.text()).then(t => stock.textContent = t)</script>`)
	})
	mux.HandleFunc("/shop.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "p { color: rgb(0, 128, 0) }")
	})
	mux.HandleFunc("/stock", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "12 in stock at "+time.Now().Format(time.RFC3339Nano))
	})
	srv := httptest.NewServer(mux)
	dir := t.TempDir()
	recorded := visitShop(t, ServerOptions{HAR: HAROptions{RecordDir: dir}}, srv.URL)
	srv.Close()
	files, _ := filepath.Glob(filepath.Join(dir, "*.har"))
	if len(files) != 1 {
		t.Fatalf("want one HAR in the record folder, got %v", files)
	}
	a, err := har.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	if len(a.Log.Entries) < 3 {
		t.Fatalf("the HAR has %d entries", len(a.Log.Entries))
	}
	replayed := visitShop(t, ServerOptions{HAR: HAROptions{Replay: dir}}, srv.URL)
	if replayed != recorded || !strings.Contains(recorded, "12 in stock") {
		t.Fatalf("the replay differs:\nrecorded %s\nreplayed %s", recorded, replayed)
	}
}

// visitShop loads the shop in a driver with opts and returns what it shows;
// with a replay, a page never recorded must fail.
func visitShop(t *testing.T, opts ServerOptions, base string) string {
	c, in, served, _ := pipeDriverWith(t, opts)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{"browser": "b1"})["page"]
	if nav := c.call("page.goto", map[string]any{"page": page, "url": base + "/shop.html"}); nav["status"] != float64(200) {
		t.Fatalf("goto: %v", nav)
	}
	c.call("page.wait_for_selector", map[string]any{"page": page, "selector": "#stock:has-text('stock')"})
	seen := c.call("page.evaluate", map[string]any{"page": page,
		"expression": "() => document.title + ' | ' + stock.textContent + ' | ' + getComputedStyle(stock).color"})["value"]
	if opts.HAR.Replay != "" {
		a := c.wait(c.send("page.goto", map[string]any{"page": page, "url": base + "/never.html"}))
		if a.Error == nil || !strings.Contains(a.Error.Message, "ERR_FAILED") {
			t.Errorf("a page the HAR lacks: %+v", a.Error)
		}
	}
	c.call("browser.close", map[string]any{})
	in.Close()
	select {
	case <-served:
	case <-time.After(20 * time.Second):
		t.Fatal("the driver did not stop")
	}
	return fmt.Sprint(seen)
}

// TestHARReplayOptionErrors: a replay path that is not there fails the
// launch with a clear error.
func TestHARReplayOptionErrors(t *testing.T) {
	c, _, _, _ := pipeDriverWith(t, ServerOptions{HAR: HAROptions{Replay: filepath.Join(t.TempDir(), "missing")}})
	c.fail("browser.launch", map[string]any{}, codeBadParams, browser.ErrInvalidParams, "replay")
}
