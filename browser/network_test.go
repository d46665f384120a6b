package browser

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRouting(t *testing.T) {
	p := testPage(t)
	var mu sync.Mutex
	var seen []string
	cancel := shared.Subscribe(func(e Event) {
		r, ok := e.(*RouteEvent)
		if !ok || r.Page != p.ID() {
			return
		}
		url, id := r.URL, r.Route
		mu.Lock()
		seen = append(seen, url)
		mu.Unlock()
		// Answer off the event goroutine, as a client does.
		go func() {
			switch {
			case strings.HasSuffix(url, "/made-up.html"):
				_ = p.Router().Fulfill(bg, id, 200, map[string]string{"content-type": "text/html"},
					base64.StdEncoding.EncodeToString([]byte("<title>Made up</title>")))
			case strings.HasSuffix(url, "/blocked.html"):
				_ = p.Router().Abort(bg, id, "connectionrefused")
			default:
				_ = p.Router().Continue(bg, id, RouteOverrides{})
			}
		}()
	}, false)
	defer cancel()
	if err := p.Router().Enable(bg, true); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Goto(bg, site.URL+"/made-up.html", Load, 0); err != nil {
		t.Fatal(err)
	}
	if title, _ := p.Title(bg); title != "Made up" {
		t.Fatalf("fulfilled page: %q", title)
	}
	if _, err := p.Goto(bg, site.URL+"/blocked.html", Load, 0); err == nil {
		t.Fatal("an aborted navigation succeeded")
	}
	if _, err := p.Goto(bg, site.URL+"/form.html", Load, 0); err != nil {
		t.Fatalf("a continued request: %v", err)
	}
	if err := p.Router().Enable(bg, false); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) < 3 {
		t.Fatalf("routed: %v", seen)
	}
}

func TestFetch(t *testing.T) {
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Method", r.Method)
		_, _ = w.Write([]byte("cookie=" + r.Header.Get("Cookie")))
	}))
	defer echo.Close()
	p := open(t, "/form.html")
	// The page's cookies for the URL go with the request.
	eval[any](t, p, "document.cookie = 'k=v'")
	res, err := p.Fetch(bg, FetchRequest{URL: site.URL + "/echo-is-elsewhere", MaxRedirects: -1}, 0)
	if err != nil || res.Status != 404 {
		t.Fatalf("missing path: %+v %v", res, err)
	}
	jar, err := p.Fetch(bg, FetchRequest{URL: echo.URL + "/", Method: "put", MaxRedirects: -1}, 0)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := base64.StdEncoding.DecodeString(jar.Body)
	if string(body) != "cookie=k=v" || !hasHeader(jar.Headers, "x-method", "PUT") {
		// cookies are scoped by host, not port: the echo server gets the page's cookie
		t.Fatalf("echo: %s %v", body, jar.Headers)
	}
	// Redirects: followed by default, the 3xx itself with max 0.
	res, err = p.Fetch(bg, FetchRequest{URL: site.URL + "/redirect?to=/status/204", MaxRedirects: 0}, 0)
	if err != nil || res.Status != 302 || !hasHeader(res.Headers, "location", "/status/204") {
		t.Fatalf("max_redirects 0: %+v %v", res, err)
	}
	res, err = p.Fetch(bg, FetchRequest{URL: site.URL + "/redirect?to=/status/204", MaxRedirects: -1}, 0)
	if err != nil || res.Status != 204 || res.URL != site.URL+"/status/204" {
		t.Fatalf("followed: %+v %v", res, err)
	}
	_, err = p.Fetch(bg, FetchRequest{URL: site.URL + "/slow?ms=3000", MaxRedirects: -1}, 300*time.Millisecond)
	wantType(t, err, ErrTimeout, "Timeout 300ms exceeded.")
	_, err = p.Fetch(bg, FetchRequest{URL: "file:///etc/passwd"}, 0)
	wantType(t, err, ErrInvalidParams, "http(s) URL")
}

func hasHeader(hs [][2]string, name, value string) bool {
	for _, h := range hs {
		if strings.EqualFold(h[0], name) && h[1] == value {
			return true
		}
	}
	return false
}

func TestLocatorHandlerCheckpoint(t *testing.T) {
	p := open(t, "/form.html")
	var got []Event
	cancel := shared.Subscribe(func(e Event) {
		if h, ok := e.(*LocatorHandlerEvent); ok && h.Page == p.ID() {
			got = append(got, e)
			go p.LocatorHandlers().Resolve(h.UID, true)
		}
	}, false)
	defer cancel()
	uid, err := p.LocatorHandlers().Add("body", "the body", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.LocatorHandlers().Run(bg, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].(*LocatorHandlerEvent).UID != uid {
		t.Fatalf("events: %v", got)
	}
	// Removed by its answer: it does not run again.
	if err := p.LocatorHandlers().Run(bg, 2*time.Second); err != nil || len(got) != 1 {
		t.Fatalf("after removal: %v %v", got, err)
	}
	if _, err := p.LocatorHandlers().Add("bad >>", "", false); err == nil {
		t.Fatal("a bad selector was accepted")
	}
}

func TestIgnoreHTTPSErrors(t *testing.T) {
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("<title>secure</title>"))
	}))
	defer tlsSrv.Close()
	p := testPage(t)
	if _, err := p.Goto(bg, tlsSrv.URL, Load, 5*time.Second); err == nil {
		t.Fatal("a self-signed certificate was accepted before ignore_https_errors")
	}
	if _, err := p.Fetch(bg, FetchRequest{URL: tlsSrv.URL, MaxRedirects: -1}, 5*time.Second); err == nil {
		t.Fatal("request.fetch accepted a self-signed certificate")
	}
	if err := p.IgnoreHTTPSErrors(bg); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Goto(bg, tlsSrv.URL, Load, 5*time.Second); err != nil {
		t.Fatalf("goto with ignore_https_errors: %v", err)
	}
	if res, err := p.Fetch(bg, FetchRequest{URL: tlsSrv.URL, MaxRedirects: -1}, 5*time.Second); err != nil || res.Status != 200 {
		t.Fatalf("request.fetch with ignore_https_errors: %+v %v", res, err)
	}
	// Another page still refuses such a server: the setting is the page's own.
	other := httptest.NewTLSServer(tlsSrv.Config.Handler)
	defer other.Close()
	if _, err := testPage(t).Goto(bg, other.URL, Load, 5*time.Second); err == nil {
		t.Fatal("another page accepted the self-signed certificate")
	}
}

// A response carries Chromium's resource timing and its request's end the
// time it finished, on the same clock as the request's timestamp.
func TestResponseTiming(t *testing.T) {
	p := testPage(t)
	ch := events(t, p)
	if _, err := p.Goto(bg, site.URL+"/buttons.html", Load, 0); err != nil {
		t.Fatal(err)
	}
	var sent float64
	var resp *ResponseEvent
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-ch:
			switch e := e.(type) {
			case *RequestEvent:
				if strings.HasSuffix(e.URL, "/buttons.html") {
					sent = e.Timestamp
				}
			case *ResponseEvent:
				if strings.HasSuffix(e.URL, "/buttons.html") {
					resp = e
				}
			case *RequestFinishedEvent:
				if resp == nil || e.Request != resp.Request {
					continue
				}
				if sent <= 0 || resp.Timing == nil || resp.Timing.RequestTime < sent || e.Timestamp < resp.Timing.RequestTime {
					t.Fatalf("sent at %v, timing %+v, finished at %v", sent, resp.Timing, e.Timestamp)
				}
				if resp.Timing.ReceiveHeadersEnd < resp.Timing.SendStart {
					t.Errorf("headers came before the request was sent: %+v", resp.Timing)
				}
				return
			}
		case <-deadline:
			t.Fatal("no requestfinished for the page")
		}
	}
}
