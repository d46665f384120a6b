// Package netpolicy is the network side of the URL policy: an HTTP proxy
// in wright's process through which the browser (and, in workspace mode,
// the model's tools) reach the web. Every request, subresource and
// WebSocket included, is checked before a connection is made: the URL
// against the host rules, then each address the host resolves to against
// the address rules (private, link-local and metadata ranges refused
// unless allowed), and the connection goes to the very address that was
// checked, so a name cannot be re-resolved to somewhere else (DNS
// rebinding). A redirect is a new request through the proxy, checked again.
package netpolicy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Resolver looks names up; net.DefaultResolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer makes connections; *net.Dialer is one.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// Options configure a Proxy.
type Options struct {
	// CheckURL applies the host rules (schemes, allowed and blocked
	// domains) to a URL; nil allows every host.
	CheckURL func(rawURL string) error
	// AllowPrivate lists private ranges that may be reached (self-hosted
	// benchmark sites); by default every private address is refused.
	AllowPrivate []netip.Prefix
	// Resolver and Dialer default to the system's.
	Resolver Resolver
	Dialer   Dialer
	// OnBlock, when set, hears about every refusal (for notices).
	OnBlock func(target string, err error)
}

// Proxy is a running policy proxy.
type Proxy struct {
	opts  Options
	l     net.Listener
	srv   *http.Server
	rp    *httputil.ReverseProxy
	done  chan struct{}
	once  sync.Once
	fails failures // why tunnels failed lately (neterror.go)
	// extra are the Serve loops of ServeUnix.
	extra sync.WaitGroup
}

// ErrRefused is wrapped by every refusal.
var ErrRefused = errors.New("refused by the network policy")

// Start listens on 127.0.0.1 (an ephemeral port).
func Start(opts Options) (*Proxy, error) {
	if opts.Resolver == nil {
		opts.Resolver = net.DefaultResolver
	}
	if opts.Dialer == nil {
		opts.Dialer = &net.Dialer{Timeout: 30 * time.Second}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("policy proxy: %w", err)
	}
	p := &Proxy{opts: opts, l: l, done: make(chan struct{})}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL = r.In.URL
			r.Out.Host = r.In.Host
			r.Out.Header.Del("Proxy-Authorization")
			r.Out.Header.Del("Proxy-Connection")
		},
		Transport: &http.Transport{
			DialContext:           p.dialPinned,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       30 * time.Second,
			ResponseHeaderTimeout: 60 * time.Second,
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			fail(w, err)
		},
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(l)
	}()
	return p, nil
}

// URL is the proxy's address for --proxy-server and HTTP(S)_PROXY.
func (p *Proxy) URL() string { return "http://" + p.l.Addr().String() }

// Close stops the proxy and its connections.
func (p *Proxy) Close() {
	p.once.Do(func() {
		_ = p.srv.Close()
		<-p.done
		p.extra.Wait()
	})
}

type pinKey struct{}

// ServeHTTP handles CONNECT (HTTPS, wss) by tunnelling to a checked
// address, and absolute-form requests (HTTP, ws) by forwarding them.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if !r.URL.IsAbs() && r.Method == http.MethodGet && r.URL.Path == NetErrorPath {
		p.serveNetError(w, r)
		return
	}
	if !r.URL.IsAbs() {
		http.Error(w, "wright policy proxy: only proxy requests are served", http.StatusBadRequest)
		return
	}
	addr, err := p.Check(r.Context(), r.URL.String())
	if err != nil {
		p.refuse(w, r.URL.String(), err)
		return
	}
	ctx := context.WithValue(r.Context(), pinKey{}, addr)
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}

func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, "wright policy proxy: bad CONNECT target", http.StatusBadRequest)
		return
	}
	scheme := "https"
	if port == "80" {
		scheme = "http"
	}
	target := scheme + "://" + net.JoinHostPort(host, port) + "/"
	addr, err := p.Check(r.Context(), target)
	if err != nil {
		p.refuse(w, target, err)
		return
	}
	up, err := p.opts.Dialer.DialContext(r.Context(), "tcp", addr.String())
	if err != nil {
		p.remember(r.Host, err)
		fail(w, err)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "wright policy proxy: cannot tunnel", http.StatusInternalServerError)
		return
	}
	client, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	_, _ = client.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n"))
	go splice(client, up, buf.Reader)
}

// splice copies both ways until either side ends, then closes both.
func splice(client, up net.Conn, pending io.Reader) {
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, io.MultiReader(pending, client)); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, up); done <- struct{}{} }()
	<-done
	client.Close()
	up.Close()
	<-done
}

// refuse answers 403 for a policy refusal (and tells OnBlock), 502 for a
// host that could not be resolved.
func (p *Proxy) refuse(w http.ResponseWriter, target string, err error) {
	p.remember(hostOfTarget(target), err)
	if errors.Is(err, ErrRefused) && p.opts.OnBlock != nil {
		p.opts.OnBlock(target, err)
	}
	fail(w, err)
}

// dialPinned connects to the address ServeHTTP checked, never to a fresh
// resolution of the name.
func (p *Proxy) dialPinned(ctx context.Context, network, _ string) (net.Conn, error) {
	addr, ok := ctx.Value(pinKey{}).(netip.AddrPort)
	if !ok {
		return nil, fmt.Errorf("%w: no checked address for this connection", ErrRefused)
	}
	return p.opts.Dialer.DialContext(ctx, network, addr.String())
}

// Check applies the policy to rawURL and returns the address to connect
// to: the first address of the host that passes.
func (p *Proxy) Check(ctx context.Context, rawURL string) (netip.AddrPort, error) {
	if p.opts.CheckURL != nil {
		if err := p.opts.CheckURL(rawURL); err != nil {
			return netip.AddrPort{}, fmt.Errorf("%w: %v", ErrRefused, err)
		}
	}
	host, port, err := hostPort(rawURL)
	if err != nil {
		return netip.AddrPort{}, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	literal := false
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs, literal = []netip.Addr{a.Unmap()}, true
	} else {
		addrs, err = p.opts.Resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return netip.AddrPort{}, fmt.Errorf("resolve %s: %w", host, err)
		}
	}
	loopbackName := literal || host == "localhost" || strings.HasSuffix(host, ".localhost")
	var reasons []string
	for _, a := range addrs {
		a = a.Unmap()
		if why := p.addrProblem(a, loopbackName); why != "" {
			reasons = append(reasons, a.String()+" "+why)
			continue
		}
		return netip.AddrPortFrom(a, port), nil
	}
	if len(reasons) == 0 {
		return netip.AddrPort{}, fmt.Errorf("%w: %s has no address", ErrRefused, host)
	}
	return netip.AddrPort{}, fmt.Errorf("%w: %s resolves to %s", ErrRefused, host, strings.Join(reasons, ", "))
}

var (
	metadataV4 = netip.MustParsePrefix("169.254.0.0/16")
	metadataV6 = netip.MustParseAddr("fd00:ec2::254")
	cgnat      = netip.MustParsePrefix("100.64.0.0/10")
)

// addrProblem says why an address may not be reached, or "".
func (p *Proxy) addrProblem(a netip.Addr, loopbackName bool) string {
	switch {
	case a.IsLinkLocalUnicast() || metadataV4.Contains(a) || a == metadataV6:
		return "(a link-local or cloud metadata address, always refused)"
	case a.IsLoopback():
		if loopbackName {
			return ""
		}
		return "(loopback, reached through a name that is not local: refused against DNS rebinding)"
	case a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() || a.IsLinkLocalMulticast():
		return "(not a unicast address)"
	case a.IsPrivate() || cgnat.Contains(a):
		for _, pf := range p.opts.AllowPrivate {
			if pf.Contains(a) {
				return ""
			}
		}
		return "(a private address; allow its range in config to reach it)"
	}
	return ""
}

// hostPort takes the host (lower case, no brackets) and port of a URL,
// with the scheme's default port.
func hostPort(rawURL string) (string, uint16, error) {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return "", 0, fmt.Errorf("%q is not an absolute URL", rawURL)
	}
	hostport := rest
	if i := strings.IndexAny(hostport, "/?#"); i >= 0 {
		hostport = hostport[:i]
	}
	if i := strings.LastIndexByte(hostport, '@'); i >= 0 {
		hostport = hostport[i+1:]
	}
	def := map[string]string{"http": "80", "ws": "80", "https": "443", "wss": "443"}[strings.ToLower(scheme)]
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, def
	}
	if port == "" {
		return "", 0, fmt.Errorf("%q has no port", rawURL)
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("%q: bad port", rawURL)
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" {
		return "", 0, fmt.Errorf("%q has no host", rawURL)
	}
	return host, uint16(n), nil
}
