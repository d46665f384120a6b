package driver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"wright/browser"
)

// basicAuthServer asks for Basic credentials user:pass and records every
// Authorization header it is sent.
func basicAuthServer(t *testing.T) (srv *httptest.Server, seen func() []string) {
	var mu sync.Mutex
	var got []string
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h := r.Header.Get("Authorization"); h != "" {
			mu.Lock()
			got = append(got, h)
			mu.Unlock()
		}
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != "pass" {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, "<title>denied</title>")
			return
		}
		fmt.Fprint(w, "<title>welcome</title>")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// A context's http_credentials answer its own origin's challenges, in its
// pages and its API requests, and go to no other origin.
func TestHTTPCredentials(t *testing.T) {
	needBrowser(t)
	own, _ := basicAuthServer(t)
	other, otherSaw := basicAuthServer(t) // the same realm and accounts, another origin
	c := optsDriver(t, ServerOptions{})
	c.call("browser.launch", map[string]any{})
	creds := map[string]any{"username": "user", "password": "pass", "origin": strings.ToUpper(own.URL)}
	ctxID := c.call("browser.new_context", map[string]any{"browser": "b1"})["context"]
	c.call("context.set_defaults", map[string]any{"browser": "b1", "context": ctxID, "http_credentials": creds})
	page := c.call("context.new_page", map[string]any{"browser": "b1", "context": ctxID})["page"]
	c.call("page.set_http_credentials", map[string]any{"page": page, "http_credentials": creds})
	title := func() any {
		return c.call("page.evaluate", map[string]any{"page": page, "expression": "document.title"})["value"]
	}

	if nav := c.call("page.goto", map[string]any{"page": page, "url": own.URL + "/"}); nav["status"] != float64(200) || title() != "welcome" {
		t.Fatalf("right credentials: %v, title %v", nav, title())
	}
	if nav := c.call("page.goto", map[string]any{"page": page, "url": other.URL + "/"}); nav["status"] != float64(401) || title() != "denied" {
		t.Fatalf("another origin: %v, title %v", nav, title())
	}
	res := c.call("context.fetch", map[string]any{"browser": "b1", "context": ctxID, "url": own.URL + "/api"})
	if res["status"] != float64(200) {
		t.Fatalf("the context's API request: %v", res)
	}
	res = c.call("request.fetch", map[string]any{"page": page, "url": other.URL + "/api"})
	if res["status"] != float64(401) {
		t.Fatalf("the page's API request to another origin: %v", res)
	}
	if saw := otherSaw(); len(saw) != 0 {
		t.Fatalf("the credentials went to another origin: %v", saw)
	}

	// Wrong credentials: the server's 401 page, not a loop of retries.
	wrong := c.call("browser.new_page", map[string]any{"browser": "b1"})["page"]
	c.call("page.set_http_credentials", map[string]any{"page": wrong, "http_credentials": map[string]any{"username": "user", "password": "nope"}})
	if nav := c.call("page.goto", map[string]any{"page": wrong, "url": own.URL + "/"}); nav["status"] != float64(401) {
		t.Fatalf("wrong credentials: %v", nav)
	}
	// Cleared: the same.
	c.call("page.set_http_credentials", map[string]any{"page": wrong, "http_credentials": nil})
	if nav := c.call("page.goto", map[string]any{"page": wrong, "url": own.URL + "/again"}); nav["status"] != float64(401) {
		t.Fatalf("cleared credentials: %v", nav)
	}
	c.fail("page.set_http_credentials", map[string]any{"page": wrong, "http_credentials": map[string]any{"username": "u", "password": "p", "origin": "nowhere"}},
		codeBadParams, browser.ErrInvalidParams, "origin")
	c.call("browser.close", map[string]any{"browser": "b1"})
}
