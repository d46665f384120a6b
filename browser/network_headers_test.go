package browser

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRawHeaders: a request's and its response's wire headers reach the
// client after the event they complete, a repeated response header once
// per value, with what the renderer's view lacks (Host, both Set-Cookies).
func TestRawHeaders(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/headers" {
			w.Header().Add("Set-Cookie", "a=b")
			w.Header().Add("Set-Cookie", "c=d")
			w.Header().Add("X-Multi", "1")
			w.Header().Add("X-Multi", "2")
			_, _ = w.Write([]byte("ok"))
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>raw</title>"))
	}))
	defer srv.Close()
	p := testPage(t)
	// The cookies this test's server sets are the shared context's, on the
	// same host as every fixture (cookies ignore the port): gone after it.
	t.Cleanup(func() { _ = p.Context().ClearCookies(bg) })
	var mu sync.Mutex
	var order []string // "request <id>" and "raw <side> <id>", as they came
	ids := map[string]string{}
	raw := map[string]*RawHeadersEvent{} // side + id -> event
	cancel := shared.Subscribe(func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e := e.(type) {
		case *RequestEvent:
			if e.Page == p.ID() {
				ids[e.URL] = e.Request
				order = append(order, "request "+e.Request)
			}
		case *RawHeadersEvent:
			if e.Page == p.ID() {
				raw[e.Side+" "+e.Request] = e
				order = append(order, "raw "+e.Side+" "+e.Request)
			}
		}
	}, false)
	defer cancel()
	if _, err := p.Goto(bg, srv.URL+"/", Load, 0); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, p, "fetch('/headers').then(r => r.text())"); got != "ok" {
		t.Fatalf("fetch: %q", got)
	}
	var req, resp *RawHeadersEvent
	var id string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		id = ids[srv.URL+"/headers"]
		req, resp = raw["request "+id], raw["response "+id]
		mu.Unlock()
		if req != nil && resp != nil {
			break
		}
	}
	if req == nil || resp == nil {
		t.Fatalf("raw headers of /headers (request %q): %v %v", id, req, resp)
	}
	if !hasHeaderName(req.Headers, "host") {
		t.Errorf("request's wire headers lack Host: %v", req.Headers)
	}
	for _, want := range [][2]string{{"set-cookie", "a=b"}, {"set-cookie", "c=d"}, {"x-multi", "1"}, {"x-multi", "2"}} {
		if !hasHeader(resp.Headers, want[0], want[1]) {
			t.Errorf("response's wire headers lack %s: %s: %v", want[0], want[1], resp.Headers)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if _, ok := ids[srv.URL+"/favicon.ico"]; ok {
		t.Errorf("headless Chromium's own favicon fetch was reported as the page's request")
	}
	first := map[string]int{}
	for i, o := range order {
		if _, ok := first[o]; !ok {
			first[o] = i
		}
	}
	if first["request "+id] > first["raw request "+id] || first["request "+id] > first["raw response "+id] {
		t.Errorf("raw headers came before their request: %v", order)
	}
}

func hasHeaderName(hs [][2]string, name string) bool {
	for _, h := range hs {
		if strings.EqualFold(h[0], name) {
			return true
		}
	}
	return false
}

// TestRoutedPreflight: with routing on, a cross-origin request that needs a
// CORS preflight reaches the route, and the preflight itself does not.
func TestRoutedPreflight(t *testing.T) {
	p := open(t, "/form.html")
	var mu sync.Mutex
	var methods []string
	cancel := shared.Subscribe(func(e Event) {
		r, ok := e.(*RouteEvent)
		if !ok || r.Page != p.ID() {
			return
		}
		mu.Lock()
		methods = append(methods, r.Method)
		mu.Unlock()
		id := r.Route
		go func() {
			_ = p.Router().Fulfill(bg, id, 200, map[string]string{"access-control-allow-origin": "*",
				"content-type": "application/json"}, base64.StdEncoding.EncodeToString([]byte(`["routed"]`)))
		}()
	}, false)
	defer cancel()
	if err := p.Router().Enable(bg, true); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Router().Enable(bg, false) }()
	// A host nothing answers: only the route can.
	got := eval[[]string](t, p, `fetch('http://cars.invalid/cars', {method: 'PUT', mode: 'cors',
		headers: {'Content-Type': 'application/json', 'X-Car': '1'}, body: '{}'}).then(r => r.json())`)
	if len(got) != 1 || got[0] != "routed" {
		t.Fatalf("fetch: %v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(methods) != 1 || methods[0] != "PUT" {
		t.Fatalf("routed: %v (the preflight is the driver's, the PUT the route's)", methods)
	}
}

// TestRawHeadersGuard: the credentials the driver answered a challenge
// with never reach the client in raw headers (a proxy's always, a server's
// in a run with secrets), and write-only secrets read as placeholders.
func TestRawHeadersGuard(t *testing.T) {
	const value = "S3cretValue-0123456789"
	p := &Page{b: &Browser{opts: Options{Secrets: hostSecrets{name: "pw", value: value, host: "127.0.0.1"}}}}
	p.router.authOn.Store(true)
	got := p.guardRaw([][2]string{{"Authorization", "Basic dXNlcjpTM2NyZXQ="}, {"proxy-authorization", "Basic eDp5"},
		{"Cookie", "token=" + value}, {"Accept", "*/*"}})
	want := [][2]string{{"Authorization", redactedCredentials}, {"proxy-authorization", redactedCredentials},
		{"Cookie", "token=<secret>pw</secret>"}, {"Accept", "*/*"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("guarded: %v\nwant %v", got, want)
	}
	// Without secrets a server's Authorization is the script's own to read (it gave the credentials).
	plain := &Page{b: &Browser{}}
	plain.router.authOn.Store(true)
	got = plain.guardRaw([][2]string{{"Authorization", "Basic eDp5"}, {"Proxy-Authorization", "Basic eDp5"}})
	if got[0][1] != "Basic eDp5" || got[1][1] != redactedCredentials {
		t.Fatalf("without secrets: %v", got)
	}
}

// TestContinueWithEmptyBody: continue_(post_data="") sends an empty body,
// not the page's own.
func TestContinueWithEmptyBody(t *testing.T) {
	bodies := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			bodies <- string(b)
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<title>post</title>"))
	}))
	defer srv.Close()
	p := testPage(t)
	if _, err := p.Goto(bg, srv.URL+"/", Load, 0); err != nil {
		t.Fatal(err)
	}
	empty := ""
	cancel := shared.Subscribe(func(e Event) {
		if r, ok := e.(*RouteEvent); ok && r.Page == p.ID() {
			id := r.Route
			go func() { _ = p.Router().Continue(bg, id, RouteOverrides{PostData: &empty}) }()
		}
	}, false)
	defer cancel()
	if err := p.Router().Enable(bg, true); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Router().Enable(bg, false) }()
	eval[string](t, p, "fetch('/post', {method: 'POST', body: 'original'}).then(r => r.text())")
	select {
	case b := <-bodies:
		if b != "" {
			t.Fatalf("the server got %q, want an empty body", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no POST reached the server")
	}
}
