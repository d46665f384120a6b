package browser

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"wright/browser/apirequest"
)

// proxyServer is an HTTP proxy for the tests: it answers each
// absolute-URI request itself with a page whose title names the host
// asked for and the Proxy-Authorization it was given. With user set it
// asks for Basic credentials (407) until it gets user:pass; /login on any
// host is a server of its own asking for credentials (401).
func proxyServer(t *testing.T, user, pass string) *httptest.Server {
	s, _ := recordingProxy(t, user, pass)
	return s
}

// recordingProxy is proxyServer with the Proxy-Authorization headers it
// was sent, in order ("" for none).
func recordingProxy(t *testing.T, user, pass string) (*httptest.Server, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !r.URL.IsAbs() {
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		got := r.Header.Get("Proxy-Authorization")
		mu.Lock()
		seen = append(seen, got)
		mu.Unlock()
		want := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
		if user != "" && got != want {
			w.Header().Set("Proxy-Authenticate", `Basic realm="proxy"`)
			w.WriteHeader(http.StatusProxyAuthRequired)
			fmt.Fprintf(w, "<title>407 %s</title>", html.EscapeString(got))
			return
		}
		if r.URL.Path == "/login" && r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="site"`)
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, "<title>401</title>")
			return
		}
		fmt.Fprintf(w, "<title>proxied %s %s %s</title>", html.EscapeString(r.URL.Host),
			html.EscapeString(got), html.EscapeString(r.Header.Get("Authorization")))
	}))
	t.Cleanup(s.Close)
	return s, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func titleAt(ctx context.Context, t *testing.T, p *Page, u string) string {
	t.Helper()
	if _, err := p.Goto(ctx, u, Load, 20*time.Second); err != nil {
		t.Fatalf("goto %s: %v", u, err)
	}
	title, err := p.Title(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return title
}

func titleOf(ctx context.Context, p *Page) string {
	title, _ := p.Title(ctx)
	return title
}

func TestLaunchProxyCarriesEveryHostAndAnswersItsChallenge(t *testing.T) {
	if noBrowse != "" {
		t.Skip(noBrowse)
	}
	px := proxyServer(t, "user", "") // an empty password is a password
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := Launch(ctx, Options{Proxy: &Proxy{Server: strings.TrimPrefix(px.URL, "http://"), Username: "user"}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	for i := 0; i < 2; i++ { // a second page too
		p, err := b.NewPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("user:"))
		if got, want := titleAt(ctx, t, p, "http://non-existent.test/x"), "proxied non-existent.test "+auth; got != want {
			t.Errorf("page %d: title %q, want %q", i, got, want)
		}
		// Loopback too: the proxy is there for every host not bypassed.
		if got := titleAt(ctx, t, p, "http://localhost:8123/"); !strings.HasPrefix(got, "proxied localhost:8123 ") {
			t.Errorf("page %d: loopback: title %q, want the proxy's page", i, got)
		}
	}
}

func TestContextProxyIsTheContextsAlone(t *testing.T) {
	if noBrowse != "" {
		t.Skip(noBrowse)
	}
	px := proxyServer(t, "user", "secret")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := shared.NewContextWithProxy(ctx, &Proxy{Server: px.URL, Bypass: "bypassed.test, .skip.test", Username: "user", Password: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	p, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("user:secret"))
	if got, want := titleAt(ctx, t, p, "http://non-existent.test/x"), "proxied non-existent.test "+auth; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	// A popup is the context's too, its proxy's challenges answered from its first request.
	before := len(shared.Pages())
	if _, err := p.Evaluate(ctx, `() => { window.open('http://non-existent.test/popup') }`, nil, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	popup := waitForPage(t, p.ID(), before)
	if err := popup.WaitForLoadState(ctx, Load, 0); err != nil {
		t.Fatal(err)
	}
	if got, want := titleOf(ctx, popup), "proxied non-existent.test "+auth; got != want {
		t.Errorf("popup: title %q, want %q", got, want)
	}
	// The bypass list goes direct: those hosts do not resolve.
	for _, u := range []string{"http://bypassed.test/", "http://a.skip.test/"} {
		if _, err := p.Goto(ctx, u, Load, 20*time.Second); err == nil || !strings.Contains(err.Error(), "ERR_NAME_NOT_RESOLVED") {
			t.Errorf("%s: %v, want it to go direct (ERR_NAME_NOT_RESOLVED)", u, err)
		}
	}
	// context.request goes the way its pages go, the credentials sent up front.
	api, err := c.APIClient(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := api.Do(ctx, apirequest.Request{URL: "http://non-existent.test/api", Method: "GET"})
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := base64.StdEncoding.DecodeString(res.Body); !strings.Contains(string(body), "proxied non-existent.test "+auth) {
		t.Errorf("context.request: %d %q, want the proxy's answer", res.Status, body)
	}
	if _, err := api.Do(ctx, apirequest.Request{URL: "http://a.skip.test/api", Method: "GET"}); err == nil {
		t.Errorf("context.request to a bypassed host reached something: through the proxy?")
	}
	// The server's challenge is not the proxy's: the proxy's credentials do not answer it.
	if got := titleAt(ctx, t, p, "http://non-existent.test/login"); got != "401" {
		t.Errorf("a server's challenge: title %q, want the server's 401 left unanswered", got)
	}
	// The default context's pages do not use the context's proxy.
	q, err := shared.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close(context.Background())
	if _, err := q.Goto(ctx, "http://non-existent.test/x", Load, 20*time.Second); err == nil {
		t.Errorf("the default context reached non-existent.test: through the other context's proxy?")
	}
}

func TestServerCredentialsNeverAnswerAProxy(t *testing.T) {
	if noBrowse != "" {
		t.Skip(noBrowse)
	}
	px, seen := recordingProxy(t, "user", "secret")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := shared.NewContextWithProxy(ctx, &Proxy{Server: px.URL}) // no credentials for the proxy
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	p, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetHTTPCredentials(ctx, &apirequest.Credentials{Username: "user", Password: "secret"}); err != nil {
		t.Fatal(err)
	}
	// Without credentials of its own the challenge is Chromium's to answer, which has none.
	if _, err := p.Goto(ctx, "http://non-existent.test/x", Load, 20*time.Second); err == nil {
		if title, _ := p.Title(ctx); title != "407 " {
			t.Errorf("title %q, want the proxy's 407", title)
		}
	}
	for _, h := range seen() {
		if h != "" {
			t.Errorf("the proxy was sent %q: the server's credentials answered its challenge", h)
		}
	}
	if len(seen()) == 0 {
		t.Errorf("the request never reached the proxy")
	}
}

func TestProxyRefusedWhereTheRunGovernsTheNetwork(t *testing.T) {
	if noBrowse != "" {
		t.Skip(noBrowse)
	}
	px := proxyServer(t, "", "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	policy := func(string) error { return nil } // even a policy that allows everything governs the network
	_, err := Launch(ctx, Options{URLPolicy: policy, Proxy: &Proxy{Server: px.URL}})
	if err == nil || !strings.Contains(err.Error(), "refused") || !strings.Contains(err.Error(), "URL policy") {
		t.Fatalf("launch under a URL policy: %v, want a refusal that says why", err)
	}
	t.Setenv(ProxyEnv, px.URL)
	if _, err := Launch(ctx, Options{Proxy: &Proxy{Server: px.URL}}); err == nil || !strings.Contains(err.Error(), "policy proxy") {
		t.Fatalf("launch under a run's policy proxy: %v, want a refusal that says why", err)
	}
	t.Setenv(ProxyEnv, "")
	b, err := Launch(ctx, Options{URLPolicy: policy})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	if _, err := b.NewContextWithProxy(ctx, &Proxy{Server: px.URL}); err == nil || !strings.Contains(err.Error(), "URL policy") {
		t.Fatalf("new_context under a URL policy: %v, want a refusal that says why", err)
	}
	if _, err := shared.NewContextWithProxy(ctx, &Proxy{Server: "ftp://x:1"}); err == nil || !strings.Contains(err.Error(), "scheme") {
		t.Errorf("an ftp proxy: %v, want it refused", err)
	}
}

func TestBypassed(t *testing.T) {
	rules := []string{"a.test", "*.b.test", "10.0.0.0/8", "<local>", "<-loopback>", "c.test:8080", "[::1]"}
	for host, want := range map[string]bool{"a.test": true, "x.a.test": false, "x.b.test": true, "b.test": false,
		"10.1.2.3": true, "11.0.0.1": false, "intranet": true, "localhost.test": false, "c.test": true,
		"::1": true, "A.TEST": true, "other.test": false} {
		if got := bypassed(rules, host); got != want {
			t.Errorf("%s: bypassed %v, want %v", host, got, want)
		}
	}
}

func TestProxyNormalized(t *testing.T) {
	cases := []struct {
		px      Proxy
		server  string
		bypass  string
		wantErr string
	}{
		{Proxy{Server: "localhost:3128"}, "http://localhost:3128", "", ""},
		{Proxy{Server: "127.0.0.1:8080", Bypass: " a.test, .b.test ,,"}, "http://127.0.0.1:8080", "a.test *.b.test", ""},
		{Proxy{Server: "http://proxy.test:80/"}, "http://proxy.test:80", "", ""},
		{Proxy{Server: "socks5://127.0.0.1:1080"}, "socks5://127.0.0.1:1080", "", ""},
		{Proxy{Server: "dummy"}, "http://dummy", "", ""},
		{Proxy{Server: ""}, "", "", "empty"},
		{Proxy{Server: "ftp://x:21"}, "", "", "scheme"},
		{Proxy{Server: "http://u:p@x:1"}, "", "", "proxy.username"},
	}
	for _, c := range cases {
		server, bypass, err := c.px.normalized()
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%+v: %v, want an error about %s", c.px, err, c.wantErr)
			}
			continue
		}
		if err != nil || server != c.server || strings.Join(bypass, " ") != c.bypass {
			t.Errorf("%+v: %q %q %v, want %q %q", c.px, server, bypass, err, c.server, c.bypass)
		}
	}
}

// socksProxy is a SOCKS5 proxy for the tests (no authentication) that is
// also every host it is asked for: it answers each CONNECT's stream as an
// HTTP server whose page's title names the host and port the browser
// gave, so a test sees that names go to the proxy unresolved.
func socksProxy(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go serveSocks(conn)
		}
	}()
	return ln.Addr().String()
}

func serveSocks(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	r := bufio.NewReader(conn)
	head := make([]byte, 2)
	if _, err := io.ReadFull(r, head); err != nil || head[0] != 5 {
		return
	}
	if _, err := io.ReadFull(r, make([]byte, head[1])); err != nil {
		return
	}
	conn.Write([]byte{5, 0}) // no authentication
	req := make([]byte, 4)
	if _, err := io.ReadFull(r, req); err != nil || req[1] != 1 {
		return
	}
	var host string
	switch req[3] {
	case 1:
		ip := make([]byte, 4)
		io.ReadFull(r, ip)
		host = net.IP(ip).String()
	case 3:
		n, _ := r.ReadByte()
		name := make([]byte, n)
		io.ReadFull(r, name)
		host = string(name)
	default:
		return
	}
	port := make([]byte, 2)
	if _, err := io.ReadFull(r, port); err != nil {
		return
	}
	conn.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	hreq, err := http.ReadRequest(r)
	if err != nil {
		return
	}
	body := fmt.Sprintf("<title>socks %s:%d %s</title>", host, int(port[0])<<8|int(port[1]), hreq.URL.Path)
	fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
}

func TestSocksProxyGetsTheNames(t *testing.T) {
	if noBrowse != "" {
		t.Skip(noBrowse)
	}
	addr := socksProxy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := Launch(ctx, Options{Proxy: &Proxy{Server: "socks5://" + addr}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := titleAt(ctx, t, p, "http://non-existent.test:8080/x"); got != "socks non-existent.test:8080 /x" {
		t.Errorf("launch: title %q", got)
	}
	// Per context too, in a browser launched without one.
	c, err := shared.NewContextWithProxy(ctx, &Proxy{Server: "socks5://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	q, err := c.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := titleAt(ctx, t, q, "http://ctx.test/y"); got != "socks ctx.test:80 /y" {
		t.Errorf("context: title %q", got)
	}
}
