package driver

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/browser"
	"wright/browser/har"
)

// optsDriver serves the protocol over pipes with opts (pipeDriver's, with
// options and without needing a browser).
func optsDriver(t *testing.T, opts ServerOptions) *rpc {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan struct{})
	go func() {
		_ = ServeStdio(bg, inR, outW, opts)
		outW.Close()
		close(served)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-served:
		case <-time.After(20 * time.Second):
			t.Error("the driver did not stop")
		}
	})
	return newRPC(t, outR, inW)
}

func denyHost(host string) func(string) error {
	return func(u string) error {
		if strings.Contains(u, "://"+host) {
			return errors.New(host + " is not on the allow list")
		}
		return nil
	}
}

func decodedBody(t *testing.T, res map[string]any) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(res["body"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A request context of no browser: its own jar, loaded and saved as a
// storage state, and the server's URL policy on every hop.
func TestAPIRequestOfNoBrowser(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/set":
			http.SetCookie(w, &http.Cookie{Name: "got", Value: "it", Path: "/"})
			fmt.Fprint(w, "cookie="+r.Header.Get("Cookie"))
		case "/escape":
			http.Redirect(w, r, "http://denied.test/steal", http.StatusFound)
		case "/slow":
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	c := optsDriver(t, ServerOptions{Browser: browser.Options{URLPolicy: denyHost("denied.test")}})
	id := c.call("apirequest.new", map[string]any{"user_agent": "Test/1", "cookies": []map[string]any{
		{"name": "pre", "value": "p", "domain": "127.0.0.1", "path": "/", "expires": -1}}})["request"]
	res := c.call("apirequest.fetch", map[string]any{"request": id, "url": srv.URL + "/set"})
	if res["status"] != float64(200) || decodedBody(t, res) != "cookie=pre=p" {
		t.Fatalf("fetch: %v", res)
	}
	state := c.call("apirequest.storage_state", map[string]any{"request": id})
	if s := fmt.Sprint(state["cookies"]); !strings.Contains(s, "name:got") || !strings.Contains(s, "name:pre") {
		t.Fatalf("storage state: %s", s)
	}
	c.fail("apirequest.fetch", map[string]any{"request": id, "url": srv.URL + "/escape"}, codeServer, browser.ErrBlockedURL, "denied.test")
	c.fail("apirequest.fetch", map[string]any{"request": id, "url": srv.URL + "/slow", "timeout": 200}, codeServer, browser.ErrTimeout, "Timeout 200ms exceeded.")
	c.fail("apirequest.fetch", map[string]any{"request": id, "url": srv.URL, "max_redirects": -1}, codeBadParams, browser.ErrInvalidParams, "max_redirects")
	c.fail("apirequest.fetch", map[string]any{"request": id, "url": "file:///etc/passwd"}, codeBadParams, browser.ErrInvalidParams, "http(s) URL")
	c.call("apirequest.dispose", map[string]any{"request": id})
	c.fail("apirequest.fetch", map[string]any{"request": id, "url": srv.URL}, codeServer, browser.ErrTargetClosed, "disposed")
}

// The run's policy proxy carries an API request as it carries the
// browser's (loopback hosts excepted, as for the browser).
func TestAPIRequestThroughTheRunProxy(t *testing.T) {
	var seen []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Method+" "+r.URL.String())
		fmt.Fprint(w, "proxied")
	}))
	defer proxy.Close()
	t.Setenv(browser.ProxyEnv, proxy.URL)
	c := optsDriver(t, ServerOptions{})
	id := c.call("apirequest.new", map[string]any{})["request"]
	res := c.call("apirequest.fetch", map[string]any{"request": id, "url": "http://site.test/a", "http_method": "PUT"})
	if decodedBody(t, res) != "proxied" || fmt.Sprint(seen) != "[PUT http://site.test/a]" {
		t.Fatalf("through the proxy: %v, the proxy saw %v", res, seen)
	}
	// A run's script driver names its proxy in the browser's flags (its
	// process has no WRIGHT_PROXY): API requests take that one.
	t.Setenv(browser.ProxyEnv, "")
	seen = nil
	c = optsDriver(t, ServerOptions{Browser: browser.Options{Args: []string{"--proxy-server=" + proxy.URL, "--proxy-bypass-list=<-loopback>"}}})
	id = c.call("apirequest.new", map[string]any{})["request"]
	c.call("apirequest.fetch", map[string]any{"request": id, "url": "http://site.test/b"})
	if fmt.Sprint(seen) != "[GET http://site.test/b]" {
		t.Fatalf("the flags' proxy saw %v", seen)
	}
}

// context.fetch shares the context's cookies both ways.
func TestContextFetchSharesCookies(t *testing.T) {
	needBrowser(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api" {
			http.SetCookie(w, &http.Cookie{Name: "fromapi", Value: "1", Path: "/"})
			// Chromium refuses this one (SameSite=None needs Secure): the other stays.
			w.Header().Add("Set-Cookie", "refused=1; Path=/; SameSite=None")
			fmt.Fprint(w, "cookie="+r.Header.Get("Cookie")+" ua="+r.Header.Get("User-Agent"))
			return
		}
		fmt.Fprint(w, "<title>page</title>")
	}))
	defer srv.Close()
	c := optsDriver(t, ServerOptions{Browser: browser.Options{URLPolicy: denyHost("denied.test")}})
	c.call("browser.launch", map[string]any{})
	ctxID := c.call("browser.new_context", map[string]any{"browser": "b1"})["context"]
	page := c.call("context.new_page", map[string]any{"browser": "b1", "context": ctxID})["page"]
	c.call("page.goto", map[string]any{"page": page, "url": srv.URL + "/"})
	c.call("page.evaluate", map[string]any{"page": page, "expression": "document.cookie = 'frompage=2; path=/'"})
	res := c.call("context.fetch", map[string]any{"browser": "b1", "context": ctxID, "url": srv.URL + "/api"})
	got := decodedBody(t, res)
	ua := c.call("page.evaluate", map[string]any{"page": page, "expression": "navigator.userAgent"})["value"]
	if got != fmt.Sprintf("cookie=frompage=2 ua=%s", ua) {
		t.Fatalf("the API request carried %q (page's user agent %v)", got, ua)
	}
	if v := c.call("page.evaluate", map[string]any{"page": page, "expression": "document.cookie"})["value"]; !strings.Contains(fmt.Sprint(v), "fromapi=1") {
		t.Fatalf("the page does not see the API response's cookie: %v", v)
	}
	// Another context shares none of it.
	other := c.call("browser.new_context", map[string]any{"browser": "b1"})["context"]
	res = c.call("context.fetch", map[string]any{"browser": "b1", "context": other, "url": srv.URL + "/api"})
	if got := decodedBody(t, res); !strings.HasPrefix(got, "cookie= ") {
		t.Fatalf("another context's request carried %q", got)
	}
	c.fail("context.fetch", map[string]any{"browser": "b1", "context": ctxID, "url": "http://denied.test/"}, codeServer, browser.ErrBlockedURL, "denied.test")
	c.call("browser.close", map[string]any{"browser": "b1"})
}

// A request context of its own records its calls into a HAR: the answers
// with their bodies, a call the policy refused as a failed entry, only the
// URLs its filter keeps; one recording at a time.
func TestAPIRequestHAR(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/escape" {
			http.Redirect(w, r, "http://denied.test/steal", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "answer to "+r.Method)
	}))
	defer srv.Close()
	c := optsDriver(t, ServerOptions{Browser: browser.Options{URLPolicy: denyHost("denied.test")}})
	id := c.call("apirequest.new", map[string]any{})["request"]
	path := filepath.Join(t.TempDir(), "api.har")
	c.fail("apirequest.har_export", map[string]any{"request": id}, codeBadParams, browser.ErrInvalidParams, "records no HAR")
	c.fail("apirequest.har_start", map[string]any{"request": id, "path": path, "content": "all"}, codeBadParams, browser.ErrInvalidParams, "content must be")
	c.fail("apirequest.har_start", map[string]any{"request": "api-99", "path": path}, codeServer, browser.ErrTargetClosed, "disposed")
	c.call("apirequest.har_start", map[string]any{"request": id, "path": path, "url_regex": "/(a|escape)$"})
	c.fail("apirequest.har_start", map[string]any{"request": id, "path": path}, codeBadParams, browser.ErrInvalidParams, "already")
	c.call("apirequest.fetch", map[string]any{"request": id, "url": srv.URL + "/a", "http_method": "POST",
		"post_data": base64.StdEncoding.EncodeToString([]byte("q=1")), "headers": [][2]string{{"X-Tag", "t"}}})
	c.call("apirequest.fetch", map[string]any{"request": id, "url": srv.URL + "/b"}) // the filter drops it
	c.fail("apirequest.fetch", map[string]any{"request": id, "url": srv.URL + "/escape"}, codeServer, browser.ErrBlockedURL, "denied.test")
	if res := c.call("apirequest.har_export", map[string]any{"request": id}); res["entries"] != float64(2) {
		t.Fatalf("export: %v", res)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var h har.HAR
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	e := h.Log.Entries
	if len(e) != 2 || e[0].Request.Method != "POST" || e[0].Request.PostData == nil || e[0].Request.PostData.Text != "q=1" ||
		e[0].Response.Status != 200 || e[0].Response.Content.Text != "answer to POST" {
		t.Fatalf("the recorded call: %+v", e)
	}
	if !strings.HasSuffix(e[1].Request.URL, "/escape") || e[1].Response.Status > 0 {
		t.Fatalf("the refused call should be a failed entry: %+v", e[1])
	}
	c.fail("apirequest.har_export", map[string]any{"request": id}, codeBadParams, browser.ErrInvalidParams, "records no HAR")
}
