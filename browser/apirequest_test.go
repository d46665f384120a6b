package browser

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-rod/rod/lib/proto"
)

// Fetch (APIRequestContext) sends the context's cookies, follows
// redirects and reports the final answer with its body.
func TestFetchCarriesContextCookies(t *testing.T) {
	needBrowser(t)
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hop" {
			http.Redirect(w, r, "/echo", http.StatusFound)
			return
		}
		w.Header().Set("X-Seen", r.Header.Get("X-Asked"))
		w.WriteHeader(http.StatusTeapot)
		fmt.Fprintf(w, "%s %s cookie=%s", r.Method, r.URL.Path, r.Header.Get("Cookie"))
	}))
	defer srv.Close()
	id, err := shared.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = shared.CloseContext(ctx, id) }()
	if err := shared.SetCookies(ctx, id, []*proto.NetworkCookieParam{{Name: "k", Value: "v", URL: srv.URL}}); err != nil {
		t.Fatal(err)
	}
	r, err := shared.Fetch(ctx, FetchRequest{Context: id, URL: srv.URL + "/hop", Headers: map[string]string{"X-Asked": "yes"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != http.StatusTeapot || r.StatusText != "I'm a teapot" || r.URL != srv.URL+"/echo" {
		t.Errorf("answer %d %q at %s", r.Status, r.StatusText, r.URL)
	}
	if string(r.Body) != "GET /echo cookie=k=v" {
		t.Errorf("body %q: want the context's cookie on every hop", r.Body)
	}
	seen := false
	for _, h := range r.Headers {
		seen = seen || (h[0] == "x-seen" && h[1] == "yes")
	}
	if !seen {
		t.Errorf("headers %v: the request's header did not reach the server", r.Headers)
	}
	if _, err := shared.Fetch(ctx, FetchRequest{URL: "file:///etc/passwd"}); !IsType(err, ErrInvalidParams) {
		t.Errorf("a file: URL: %v, want InvalidParams", err)
	}
}

// The URL policy applies to Fetch as to navigations.
func TestFetchAsksTheURLPolicy(t *testing.T) {
	b := &Browser{opts: Options{URLPolicy: func(u string) error {
		if strings.Contains(u, "blocked") {
			return errors.New("not on the list")
		}
		return nil
	}}}
	if err := b.fetchAllowed("http://example.test/blocked"); !IsType(err, ErrBlockedURL) {
		t.Errorf("blocked URL: %v, want BlockedURL", err)
	}
	if err := b.fetchAllowed("http://example.test/fine"); err != nil {
		t.Errorf("allowed URL: %v", err)
	}
}
