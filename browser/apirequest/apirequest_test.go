package apirequest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

var bg = context.Background()

func body(t *testing.T, r *Response) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRedirectHopsAskThePolicy(t *testing.T) {
	var asked []string
	var mu sync.Mutex
	policy := func(u string) error {
		mu.Lock()
		asked = append(asked, u)
		mu.Unlock()
		if strings.Contains(u, "denied.test") {
			return errors.New("denied.test is not allowed")
		}
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/out":
			http.Redirect(w, r, "http://denied.test/secret", http.StatusFound)
		case "/in":
			http.Redirect(w, r, "/final", http.StatusMovedPermanently)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusTemporaryRedirect)
		default:
			fmt.Fprint(w, "final")
		}
	}))
	defer srv.Close()
	c := &Client{Policy: policy}
	_, err := c.Do(bg, Request{URL: srv.URL + "/out", MaxRedirects: DefaultMaxRedirects})
	if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), "denied.test") {
		t.Fatalf("a redirect to a denied host: %v", err)
	}
	if asked[len(asked)-1] != "http://denied.test/secret" {
		t.Errorf("the policy was not asked about the hop: %v", asked)
	}
	// The first hop is asked too, before any connection.
	if _, err := c.Do(bg, Request{URL: "http://denied.test/", MaxRedirects: 1}); !errors.Is(err, ErrPolicy) {
		t.Fatalf("a denied first hop: %v", err)
	}
	res, err := c.Do(bg, Request{URL: srv.URL + "/in", MaxRedirects: 1})
	if err != nil || res.Status != 200 || body(t, res) != "final" || res.URL != srv.URL+"/final" {
		t.Fatalf("an allowed redirect: %+v %v", res, err)
	}
	if _, err := c.Do(bg, Request{URL: srv.URL + "/in", MaxRedirects: 0}); err != nil {
		t.Fatalf("max 0 answers with the 3xx: %v", err)
	}
	_, err = (&Client{}).Do(bg, Request{URL: srv.URL + "/loop", MaxRedirects: 3})
	if err == nil || !strings.Contains(err.Error(), "Max redirect count exceeded") {
		t.Fatalf("more redirects than allowed: %v", err)
	}
}

func TestRunProxyCarriesTheRequest(t *testing.T) {
	var seen []string
	var mu sync.Mutex
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.String())
		mu.Unlock()
		fmt.Fprint(w, "from the proxy")
	}))
	defer proxy.Close()
	c := &Client{Proxy: RunProxy(proxy.URL)}
	res, err := c.Do(bg, Request{URL: "http://through-proxy.test/page?q=1"})
	if err != nil || body(t, res) != "from the proxy" {
		t.Fatalf("through the proxy: %+v %v", res, err)
	}
	if len(seen) != 1 || seen[0] != "http://through-proxy.test/page?q=1" {
		t.Fatalf("the proxy saw %v", seen)
	}
	// Loopback hosts too, as the browser's (the proxy decides what they may reach).
	direct := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "direct") }))
	defer direct.Close()
	if res, err := c.Do(bg, Request{URL: direct.URL}); err != nil || body(t, res) != "from the proxy" {
		t.Fatalf("a loopback host: %+v %v", res, err)
	}
	// Chromium's flag form, without a scheme.
	flag := ProxyFlag([]string{"--headless", "--proxy-server=" + strings.TrimPrefix(proxy.URL, "http://")})
	if res, err := (&Client{Proxy: RunProxy(flag)}).Do(bg, Request{URL: "http://x.test/"}); err != nil || body(t, res) != "from the proxy" {
		t.Fatalf("the flag's proxy %q: %+v %v", flag, res, err)
	}
	if RunProxy("") != nil || ProxyFlag(nil) != "" {
		t.Error("no proxy URL should mean no proxy")
	}
}

func TestCookiesAcrossHops(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.URL.Path+" "+r.Header.Get("Cookie"))
		switch r.URL.Path {
		case "/login":
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "s1", Path: "/"})
			http.SetCookie(w, &http.Cookie{Name: "scoped", Value: "x", Path: "/other"})
			http.SetCookie(w, &http.Cookie{Name: "evil", Value: "1", Domain: "example.com"})
			http.Redirect(w, r, "/home", http.StatusSeeOther)
		case "/logout":
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "", Path: "/", MaxAge: -1})
		}
	}))
	defer srv.Close()
	jar := NewMemJar([]Cookie{{Name: "pre", Value: "p", Domain: "127.0.0.1", Path: "/", Expires: -1}})
	c := &Client{Jar: jar}
	if _, err := c.Do(bg, Request{URL: srv.URL + "/login", Method: "POST", Body: []byte("a=b"), MaxRedirects: 5}); err != nil {
		t.Fatal(err)
	}
	want := []string{"/login pre=p", "/home pre=p; session=s1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("cookies sent: %q, want %q", got, want)
	}
	all, _ := jar.All(bg)
	for _, ck := range all {
		if ck.Name == "evil" {
			t.Errorf("a cookie for another domain was kept: %+v", ck)
		}
	}
	if len(all) != 3 {
		t.Errorf("jar: %+v", all)
	}
	if _, err := c.Do(bg, Request{URL: srv.URL + "/logout"}); err != nil {
		t.Fatal(err)
	}
	all, _ = jar.All(bg)
	for _, ck := range all {
		if ck.Name == "session" {
			t.Errorf("an expired cookie stayed: %+v", ck)
		}
	}
	// A Cookie header of the caller's replaces the jar's.
	got = nil
	if _, err := c.Do(bg, Request{URL: srv.URL + "/x", Headers: [][2]string{{"Cookie", "mine=1"}}}); err != nil || got[0] != "/x mine=1" {
		t.Fatalf("own Cookie header: %v %v", got, err)
	}
}

func TestCredentialsOnlyForTheirOrigin(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != "pass" {
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct {
		origin string
		want   int
	}{{"", 200}, {strings.ToUpper(srv.URL), 200}, {strings.Replace(srv.URL, "http:", "https:", 1), 401}, {"http://elsewhere.test", 401}} {
		c := &Client{Credentials: &Credentials{Username: "user", Password: "pass", Origin: tc.origin}}
		res, err := c.Do(bg, Request{URL: srv.URL})
		if err != nil || res.Status != tc.want {
			t.Errorf("origin %q: %+v %v, want %d", tc.origin, res, err, tc.want)
		}
	}
}

func TestHostileServers(t *testing.T) {
	zeros := bytes.Repeat([]byte{0}, 3<<20)
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	_, _ = zw.Write(zeros)
	_ = zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/huge":
			_, _ = w.Write(zeros)
		case "/bomb":
			w.Header().Set("Content-Encoding", "gzip")
			_, _ = w.Write(bomb.Bytes())
		case "/slow":
			<-r.Context().Done() // never answers; the request's timeout must end it
		case "/hangup":
			hj, _ := w.(http.Hijacker)
			conn, _, _ := hj.Hijack()
			conn.Close()
		case "/small-gzip":
			w.Header().Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			_, _ = io.WriteString(gz, "hello")
			_ = gz.Close()
		}
	}))
	defer srv.Close()
	c := &Client{MaxBody: 1 << 20}
	for _, path := range []string{"/huge", "/bomb"} {
		if _, err := c.Do(bg, Request{URL: srv.URL + path}); err == nil || !strings.Contains(err.Error(), "over the limit") {
			t.Errorf("%s: a body over the limit: %v", path, err)
		}
	}
	_, err := c.Do(bg, Request{URL: srv.URL + "/slow", Timeout: 200 * time.Millisecond})
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "Timeout 200ms exceeded.") {
		t.Errorf("a server that never answers: %v", err)
	}
	if _, err := c.Do(bg, Request{URL: srv.URL + "/hangup"}); err == nil || !strings.Contains(err.Error(), "socket hang up") {
		t.Errorf("a server that hangs up: %v", err)
	}
	if res, err := c.Do(bg, Request{URL: srv.URL + "/small-gzip"}); err != nil || body(t, res) != "hello" {
		t.Errorf("a gzip body: %+v %v", res, err)
	}
	for _, bad := range []string{"file:///etc/passwd", "/relative", "http://"} {
		if _, err := c.Do(bg, Request{URL: bad}); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestDefaultsAndMethodChanges(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, fmt.Sprintf("%s %s ua=%q accept=%q enc=%q body=%q x=%q", r.Method, r.URL.Path,
			r.Header.Get("User-Agent"), r.Header.Get("Accept"), r.Header.Get("Accept-Encoding"), b, r.Header.Get("X-Extra")))
		if r.URL.Path == "/post" {
			http.Redirect(w, r, "/after", http.StatusFound)
		}
	}))
	defer srv.Close()
	c := &Client{UserAgent: "Agent/1"}
	_, err := c.Do(bg, Request{URL: srv.URL + "/post", Method: "post", Body: []byte("data"), MaxRedirects: 2,
		Headers: [][2]string{{"X-Extra", "kept"}, {"Content-Type", "text/plain"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`POST /post ua="Agent/1" accept="*/*" enc="gzip,deflate,br" body="data" x="kept"`,
		`GET /after ua="Agent/1" accept="*/*" enc="gzip,deflate,br" body="" x="kept"`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	u, _ := url.Parse(srv.URL)
	if hostPort(u) == "" {
		t.Fatal("no host:port")
	}
}

func TestRedirectDropsWhatBelongsToTheFirstHop(t *testing.T) {
	var got []string
	var other *httptest.Server
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, fmt.Sprintf("%s auth=%q cookie=%q", r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Cookie")))
		switch r.URL.Path {
		case "/same":
			http.Redirect(w, r, "/next", http.StatusFound)
		case "/next":
			http.Redirect(w, r, other.URL+"/away", http.StatusFound)
		case "/bad":
			w.Header().Set("Location", "javascript:alert(1)")
			w.WriteHeader(http.StatusFound)
		}
	}))
	defer srv.Close()
	other = httptest.NewServer(srv.Config.Handler)
	defer other.Close()
	c := &Client{}
	_, err := c.Do(bg, Request{URL: srv.URL + "/same", MaxRedirects: 5,
		Headers: [][2]string{{"Authorization", "Bearer t"}, {"Cookie", "mine=1"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`/same auth="Bearer t" cookie="mine=1"`, `/next auth="Bearer t" cookie=""`, `/away auth="" cookie=""`}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if _, err := c.Do(bg, Request{URL: srv.URL + "/bad", MaxRedirects: 5}); err == nil || !strings.Contains(err.Error(), "invalid redirect URL") {
		t.Fatalf("a redirect to javascript: %v", err)
	}
}
