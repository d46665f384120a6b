package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The tests share one headless Chromium (pages are per test) and two
// fixture servers on different origins: 127.0.0.1 and localhost.
var (
	shared   *Browser
	site     *httptest.Server // http://127.0.0.1:port
	other    string           // the same files at http://localhost:port
	otherSrv *httptest.Server
	noBrowse string // why browser tests skip, "" when they run
)

func fixtures() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("testdata")))
	// /slow?ms=N answers after N milliseconds.
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		d, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-time.After(time.Duration(d) * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		fmt.Fprint(w, "<!doctype html><title>Slow</title><p>finally</p>")
	})
	// /slowimg?ms=N is a page whose image takes N milliseconds, so load
	// comes long after DOMContentLoaded.
	mux.HandleFunc("/slowimg", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Slow image</title><p>text</p><img src="/slow?ms=%s">`, r.URL.Query().Get("ms"))
	})
	// /status/N answers with status N; ?body=1 adds a body.
	mux.HandleFunc("/status/", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/status/"))
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(code)
		if r.URL.Query().Get("body") != "" {
			fmt.Fprintf(w, "<title>Status %d</title><h1>Error %d</h1>", code, code)
		}
	})
	// /redirect?to=URL redirects.
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	return mux
}

func TestMain(m *testing.M) {
	// As `wright driver` does: the helpers of the browsers the tests end are
	// reaped here, so the checks for leftover processes see no zombies.
	if err := BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "become a subreaper:", err)
	}
	site = httptest.NewServer(fixtures())
	otherSrv = httptest.NewServer(fixtures())
	other = strings.Replace(otherSrv.URL, "127.0.0.1", "localhost", 1)
	if _, err := FindExecutable(""); err != nil {
		noBrowse = err.Error()
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		var blog io.Writer
		if os.Getenv("BROWSERLOG") != "" {
			blog = os.Stderr
		}
		b, err := Launch(ctx, Options{BrowserLog: blog})
		cancel()
		if err != nil {
			fmt.Fprintln(os.Stderr, "launch the shared browser:", err)
			os.Exit(1)
		}
		shared = b
	}
	code := m.Run()
	if shared != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		_ = shared.Close(ctx)
		cancel()
	}
	site.Close()
	otherSrv.Close()
	os.Exit(code)
}

func needBrowser(t testing.TB) {
	t.Helper()
	if noBrowse != "" {
		t.Skip("no browser: " + noBrowse)
	}
}

// testPage opens a page of the shared browser, closed when the test ends.
func testPage(t testing.TB) *Page {
	t.Helper()
	needBrowser(t)
	p, err := shared.NewPage(context.Background())
	if err != nil {
		t.Fatalf("new page: %v", err)
	}
	t.Cleanup(func() { _ = p.Close(context.Background()) })
	return p
}

// open opens a fixture (a path such as "/form.html") on a new page.
func open(t testing.TB, path string) *Page {
	t.Helper()
	p := testPage(t)
	if _, err := p.Goto(context.Background(), site.URL+path, Load, 0); err != nil {
		t.Fatalf("goto %s: %v", path, err)
	}
	return p
}

func loc(t testing.TB, p *Page, sel string) *Locator {
	t.Helper()
	l, err := p.Locator(sel)
	if err != nil {
		t.Fatalf("locator %q: %v", sel, err)
	}
	return l
}

func eval[T any](t testing.TB, p *Page, expr string) T {
	t.Helper()
	raw, err := p.Evaluate(context.Background(), expr, nil, 0)
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("evaluate %s: decode %s: %v", expr, raw, err)
	}
	return v
}

func text(t testing.TB, p *Page, sel string) string {
	t.Helper()
	s, err := loc(t, p, sel).TextContent(context.Background(), 2*time.Second)
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

func wantType(t testing.TB, err error, typ ErrorType, contains ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want a %s error, got none", typ)
	}
	if got := TypeOf(err); got != typ {
		t.Fatalf("want a %s error, got %s: %v", typ, got, err)
	}
	for _, c := range contains {
		if !strings.Contains(err.Error(), c) {
			t.Errorf("error %q does not mention %q", err, c)
		}
	}
}

var bg = context.Background()

// eventKind is the name of an event's type (ConsoleEvent, RouteEvent, ...).
func eventKind(e Event) string { return reflect.TypeOf(e).Elem().Name() }

// eventPage is the page an event happened on, and that page's opener.
func eventPage(e Event) (page, opener string) {
	switch e := e.(type) {
	case *PageOpenedEvent:
		return e.Page, e.Opener
	case interface{ header() *PageEvent }:
		h := e.header()
		return h.Page, h.Opener
	}
	return "", ""
}
