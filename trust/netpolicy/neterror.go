package netpolicy

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A request the proxy cannot complete must end in the browser as it would
// without a proxy: a navigation error (net::ERR_CONNECTION_REFUSED, ...),
// not a page of the proxy's text at the URL that failed. Every failure
// answer carries NetErrorHeader with the name of the error Chromium would
// have raised; the browser's interception layer turns such an answer into
// that error (browser/neterror.go), and HTTP clients in scripts read the
// status and the header.

// NetErrorHeader names the Chromium net error a failure answer stands for.
const NetErrorHeader = "X-Wright-Net-Error"

// NetError names the Chromium net error (without net::) for a failure of
// the proxy: its policy's refusal, or the upstream connection's error.
func NetError(err error) string {
	var dns *net.DNSError
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrRefused):
		return "ERR_BLOCKED_BY_CLIENT"
	case errors.As(err, &dns):
		if dns.IsTimeout {
			return "ERR_NAME_RESOLUTION_FAILED"
		}
		return "ERR_NAME_NOT_RESOLVED"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "ERR_CONNECTION_REFUSED"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return "ERR_CONNECTION_RESET"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "ERR_ADDRESS_UNREACHABLE"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "ERR_EMPTY_RESPONSE"
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return "ERR_TIMED_OUT"
	}
	return "ERR_FAILED"
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// fail answers a request the proxy could not complete: 403 for the
// policy's refusal, 502 otherwise, with NetErrorHeader.
func fail(w http.ResponseWriter, err error) {
	code := http.StatusBadGateway
	if errors.Is(err, ErrRefused) {
		code = http.StatusForbidden
	}
	w.Header().Set(NetErrorHeader, NetError(err))
	http.Error(w, "wright policy proxy: "+err.Error(), code)
}

// A failed CONNECT reaches Chromium only as ERR_TUNNEL_CONNECTION_FAILED:
// it shows no header of a tunnel's refusal. So the proxy remembers, for a
// minute, why its last tunnel to each host:port failed, and says so to a
// direct GET of NetErrorPath?target=host:port (the browser asks it when a
// navigation failed that way).

// NetErrorPath is where the proxy answers what its last failure to a
// target was.
const NetErrorPath = "/wright/net-error"

type failure struct {
	name string
	at   time.Time
}

type failures struct {
	mu   sync.Mutex
	last map[string]failure
}

func (p *Proxy) remember(target string, err error) {
	if target == "" {
		return
	}
	p.fails.mu.Lock()
	defer p.fails.mu.Unlock()
	if p.fails.last == nil || len(p.fails.last) > 512 {
		p.fails.last = map[string]failure{}
	}
	p.fails.last[strings.ToLower(target)] = failure{NetError(err), time.Now()}
}

// LastError is the net error of the proxy's last failure to target
// (host:port) in the last minute, or "".
func (p *Proxy) LastError(target string) string {
	p.fails.mu.Lock()
	defer p.fails.mu.Unlock()
	f, ok := p.fails.last[strings.ToLower(target)]
	if !ok || time.Since(f.at) > time.Minute {
		return ""
	}
	return f.name
}

func (p *Proxy) serveNetError(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, p.LastError(r.URL.Query().Get("target")))
}

// hostOfTarget is the host:port of a URL the proxy checked.
func hostOfTarget(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" || u.Scheme == "wss" {
		return u.Host + ":443"
	}
	return u.Host + ":80"
}
