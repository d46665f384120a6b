package netpolicy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// fakeDNS answers from a table; no real lookup ever happens.
type fakeDNS map[string][]string

func (f fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range f[host] {
		out = append(out, netip.MustParseAddr(s))
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

// guardDialer connects only to loopback, or to a "private host" the test
// maps onto a local server. Any other address fails the test: the proxy
// must never dial a real private or metadata address.
type guardDialer struct {
	t      *testing.T
	mu     sync.Mutex
	routes map[string]string // checked address -> local server
	dialed []string
}

func (g *guardDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	g.mu.Lock()
	g.dialed = append(g.dialed, addr)
	to, routed := g.routes[addr]
	g.mu.Unlock()
	ap, err := netip.ParseAddrPort(addr)
	switch {
	case routed:
		addr = to
	case err == nil && ap.Addr().IsLoopback():
	default:
		g.t.Errorf("the proxy dialed %s", addr)
		return nil, errors.New("test dialer: refused")
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func newProxy(t *testing.T, dns fakeDNS, opts Options) (*Proxy, *guardDialer, *http.Client) {
	g := &guardDialer{t: t, routes: map[string]string{}}
	opts.Resolver, opts.Dialer = dns, g
	p, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	pu, _ := url.Parse(p.URL())
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	return p, g, client
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAddressRules(t *testing.T) {
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "local ok") }))
	defer local.Close()
	port := local.URL[strings.LastIndexByte(local.URL, ':')+1:]
	dns := fakeDNS{
		"intranet.test": {"10.0.0.5"},
		"metadata.test": {"169.254.169.254"},
		"rebind.test":   {"127.0.0.1"},
		"v6meta.test":   {"fd00:ec2::254"},
		"cgnat.test":    {"100.64.1.1"},
		"mixed.test":    {"192.168.1.1", "10.1.1.1"},
	}
	_, g, c := newProxy(t, dns, Options{})
	for _, tc := range []struct{ url, want string }{
		{"http://intranet.test:" + port + "/", "private address"},
		{"http://metadata.test/latest/meta-data/", "metadata"},
		{"http://169.254.169.254/latest/meta-data/", "metadata"},
		{"http://rebind.test:" + port + "/", "DNS rebinding"},
		{"http://v6meta.test/", "metadata"},
		{"http://cgnat.test/", "private address"},
		{"http://mixed.test/", "private address"},
		{"http://nxdomain.test/", "no such host"},
	} {
		code, body := get(t, c, tc.url)
		if code == http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %q, want refused with %q", tc.url, code, body, tc.want)
		}
	}
	if code, body := get(t, c, local.URL+"/"); code != 200 || body != "local ok" {
		t.Errorf("loopback: %d %q", code, body)
	}
	if len(g.dialed) != 1 {
		t.Errorf("dialed %v, want only the loopback server", g.dialed)
	}
}

// An allowed private range is reached at the address that was checked:
// the connection is pinned to it, not re-resolved.
func TestAllowedPrivateIsPinned(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "self-hosted "+r.Host) }))
	defer site.Close()
	_, g, c := newProxy(t, fakeDNS{"bench.test": {"10.9.0.7"}}, Options{AllowPrivate: []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}})
	g.routes["10.9.0.7:80"] = site.Listener.Addr().String()
	if code, body := get(t, c, "http://bench.test/"); code != 200 || body != "self-hosted bench.test" {
		t.Errorf("%d %q", code, body)
	}
}

// A redirect to a refused place is a new request, refused in its turn.
func TestRedirectIsRechecked(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://metadata.test/latest/", http.StatusFound)
	}))
	defer site.Close()
	_, _, c := newProxy(t, fakeDNS{"metadata.test": {"169.254.169.254"}}, Options{})
	if code, body := get(t, c, site.URL+"/go"); code != http.StatusForbidden || !strings.Contains(body, "metadata") {
		t.Errorf("%d %q", code, body)
	}
}

func TestHostRulesApplyToCONNECTAndWebSocket(t *testing.T) {
	var blocked []string
	var mu sync.Mutex
	ws := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "websocket" {
			http.Error(w, "want an upgrade", 400)
			return
		}
		conn, buf, _ := w.(http.Hijacker).Hijack()
		defer conn.Close()
		fmt.Fprint(buf, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
		buf.Flush()
		line, _ := buf.ReadString('\n')
		fmt.Fprint(conn, "echo "+line)
	}))
	defer ws.Close()
	p, _, _ := newProxy(t, fakeDNS{"evil.test": {"93.184.216.34"}}, Options{
		CheckURL: func(u string) error {
			if strings.Contains(u, "evil.test") {
				return errors.New("host evil.test is blocked")
			}
			return nil
		},
		OnBlock: func(target string, err error) { mu.Lock(); blocked = append(blocked, target); mu.Unlock() },
	})
	raw := func(req string) (string, *bufio.Reader, net.Conn) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(p.URL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprint(conn, req)
		r := bufio.NewReader(conn)
		status, _ := r.ReadString('\n')
		return status, r, conn
	}
	status, _, conn := raw("CONNECT evil.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n")
	conn.Close()
	if !strings.Contains(status, "403") {
		t.Errorf("CONNECT to a blocked host: %q", status)
	}
	status, _, conn = raw("GET http://evil.test/socket HTTP/1.1\r\nHost: evil.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	conn.Close()
	if !strings.Contains(status, "403") {
		t.Errorf("WebSocket to a blocked host: %q", status)
	}
	host := strings.TrimPrefix(ws.URL, "http://")
	status, r, conn := raw("GET http://" + host + "/socket HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	defer conn.Close()
	if !strings.Contains(status, "101") {
		t.Fatalf("WebSocket to an allowed host: %q", status)
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil || line == "\r\n" {
			break
		}
	}
	fmt.Fprint(conn, "ping\n")
	if echo, _ := r.ReadString('\n'); echo != "echo ping\n" {
		t.Errorf("through the upgraded connection: %q", echo)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(blocked) != 2 {
		t.Errorf("OnBlock heard %v", blocked)
	}
}
