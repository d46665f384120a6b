// Package apirequest makes Playwright's API requests (context.request,
// page.request, route.fetch, playwright.request.new_context()): HTTP
// exchanges outside the page, made by the driver, with a cookie jar shared
// with a browser context or kept apart.
//
// Every hop, each redirect included, is asked of the run's URL policy
// before a connection is made, and goes through the run's policy proxy as
// the browser's own requests do, so an API request reaches no more than a
// page could. Redirects are followed here, one hop at a time, rather than by
// net/http, so that each hop's Set-Cookie lands in the jar and the next hop
// carries the cookies and headers it should.
package apirequest

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// Client is what one request context shares between its requests.
type Client struct {
	// Policy is the run's URL policy, asked for every hop; nil allows all.
	Policy func(rawURL string) error
	// Proxy picks the proxy for a hop (the run's policy proxy); nil: none.
	Proxy func(*http.Request) (*url.URL, error)
	// Jar holds the cookies; nil sends and keeps none.
	Jar Jar
	// UserAgent is sent unless a request sets its own.
	UserAgent string
	// Credentials answer a 401 (or go with every request, Send "always").
	Credentials *Credentials
	// IgnoreHTTPSErrors accepts any certificate.
	IgnoreHTTPSErrors bool
	// MaxBody caps a response body (after decoding); 0: DefaultMaxBody.
	MaxBody int64
}

// Credentials are HTTP Basic credentials, for Origin only when it is set.
type Credentials struct {
	Username string `json:"username"`
	Password string `json:"password"`
	Origin   string `json:"origin"`
	Send     string `json:"send"` // "unauthorized" (the default) or "always"
}

// Request is one request to make.
type Request struct {
	URL     string
	Method  string
	Headers [][2]string // in the caller's order; a name set twice keeps both
	Body    []byte
	// MaxRedirects is how many redirects are followed; more is an error.
	// 0 follows none: the 3xx is the answer.
	MaxRedirects int
	// Timeout bounds the whole exchange, redirects included; 0: none.
	Timeout time.Duration
	// IgnoreHTTPSErrors accepts any certificate for this request.
	IgnoreHTTPSErrors bool
}

// Response is the last hop's response, body included.
type Response struct {
	URL        string      `json:"url"`
	Status     int         `json:"status"`
	StatusText string      `json:"status_text"`
	Headers    [][2]string `json:"headers"`
	Body       string      `json:"body"` // base64
	Timing     Timing      `json:"timing"`
}

// DefaultMaxBody caps a response body unless Client.MaxBody says otherwise;
// a bigger one is an error, not a cut.
const DefaultMaxBody = 64 << 20

// DefaultMaxRedirects is Playwright's.
const DefaultMaxRedirects = 20

// Error kinds a caller maps to its own errors.
var (
	// ErrPolicy wraps a hop the URL policy refused.
	ErrPolicy = errors.New("refused by the URL policy")
	// ErrTimeout is the request's Timeout running out.
	ErrTimeout = errors.New("timeout")
	// ErrInvalid is a request that cannot be made (bad URL, method).
	ErrInvalid = errors.New("invalid request")
)

// Do makes the request, following redirects.
func (c *Client) Do(ctx context.Context, req Request) (*Response, error) {
	u, err := url.Parse(req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: an API request needs an absolute http(s) URL, not %q", ErrInvalid, req.URL)
	}
	if req.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, req.Timeout, ErrTimeout)
		defer cancel()
	}
	tr := c.transport(req.IgnoreHTTPSErrors)
	defer tr.CloseIdleConnections()
	h := &hop{c: c, tr: tr, method: strings.ToUpper(req.Method), url: u, body: req.Body, headers: req.Headers}
	if h.method == "" {
		h.method = http.MethodGet
	}
	resp, err := h.follow(ctx, req.MaxRedirects)
	if err != nil {
		return nil, timeoutErr(ctx, req.Timeout, err)
	}
	return resp, nil
}

func timeoutErr(ctx context.Context, to time.Duration, err error) error {
	if errors.Is(context.Cause(ctx), ErrTimeout) {
		return fmt.Errorf("%w: Timeout %dms exceeded.", ErrTimeout, to.Milliseconds())
	}
	return err
}

func (c *Client) transport(ignoreHTTPS bool) *http.Transport {
	tr := &http.Transport{Proxy: c.Proxy, ForceAttemptHTTP2: true, DisableCompression: true,
		MaxResponseHeaderBytes: 1 << 20, ResponseHeaderTimeout: 0}
	if ignoreHTTPS || c.IgnoreHTTPSErrors {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // ignore_https_errors asks for it
	}
	return tr
}

func (c *Client) maxBody() int64 {
	if c.MaxBody > 0 {
		return c.MaxBody
	}
	return DefaultMaxBody
}

func (c *Client) allowed(u *url.URL) error {
	if c.Policy == nil {
		return nil
	}
	if err := c.Policy(u.String()); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrPolicy, u.Redacted(), err)
	}
	return nil
}

// hop is the state carried from one hop of a request to the next.
type hop struct {
	c       *Client
	tr      *http.Transport
	method  string
	url     *url.URL
	body    []byte
	headers [][2]string
}

// follow makes hops until one is not a redirect to follow.
func (h *hop) follow(ctx context.Context, maxRedirects int) (*Response, error) {
	for redirects := 0; ; redirects++ {
		resp, timing, err := h.exchange(ctx)
		if err != nil {
			return nil, err
		}
		var next *url.URL
		if maxRedirects > 0 {
			if next, err = h.redirect(resp); err != nil {
				resp.Body.Close()
				return nil, err
			}
		}
		if next == nil {
			return h.finish(ctx, resp, timing)
		}
		resp.Body.Close()
		if redirects >= maxRedirects {
			return nil, errors.New("Max redirect count exceeded")
		}
		h.url = next
	}
}

// exchange makes one hop: the policy, the cookies, the credentials, the
// round trip, and the cookies the answer sets.
func (h *hop) exchange(ctx context.Context) (*http.Response, *timer, error) {
	if err := h.c.allowed(h.url); err != nil {
		return nil, nil, err
	}
	resp, t, err := h.roundTrip(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode == http.StatusUnauthorized && h.c.credentialsFor(h.url) && h.c.Credentials.Send != "always" &&
		strings.HasPrefix(strings.ToLower(resp.Header.Get("WWW-Authenticate")), "basic") {
		resp.Body.Close()
		if resp, t, err = h.roundTrip(ctx, true); err != nil {
			return nil, nil, err
		}
	}
	if h.c.Jar != nil {
		if set := parseSetCookies(resp.Header, h.url, time.Now()); len(set) > 0 {
			if err := h.c.Jar.Store(ctx, h.url, set); err != nil {
				resp.Body.Close()
				return nil, nil, fmt.Errorf("keep the cookies %s set: %w", h.url.Redacted(), err)
			}
		}
	}
	return resp, t, nil
}

func (h *hop) roundTrip(ctx context.Context, withAuth bool) (*http.Response, *timer, error) {
	t := newTimer()
	hr, err := http.NewRequestWithContext(t.trace(ctx), h.method, h.url.String(), bytes.NewReader(h.body))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if len(h.body) == 0 {
		hr.Body, hr.ContentLength = http.NoBody, 0
	}
	if err := h.setHeaders(ctx, hr, withAuth); err != nil {
		return nil, nil, err
	}
	resp, err := h.tr.RoundTrip(hr)
	if err != nil {
		return nil, nil, networkErr(err)
	}
	return resp, t, nil
}

func (h *hop) setHeaders(ctx context.Context, hr *http.Request, withAuth bool) error {
	for _, kv := range h.headers {
		if strings.EqualFold(kv[0], "host") {
			hr.Host = kv[1]
			continue
		}
		hr.Header.Add(kv[0], kv[1])
	}
	for _, d := range [][2]string{{"User-Agent", h.c.UserAgent}, {"Accept", "*/*"}, {"Accept-Encoding", "gzip,deflate,br"}} {
		if _, set := hr.Header[d[0]]; !set && d[1] != "" {
			hr.Header.Set(d[0], d[1])
		}
	}
	if _, set := hr.Header["User-Agent"]; !set {
		hr.Header["User-Agent"] = nil // net/http would send its own
	}
	if cr := h.c.Credentials; cr != nil && h.c.credentialsFor(h.url) && (withAuth || cr.Send == "always") {
		hr.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(cr.Username+":"+cr.Password)))
	}
	if _, set := hr.Header["Cookie"]; set || h.c.Jar == nil {
		return nil
	}
	all, err := h.c.Jar.All(ctx)
	if err != nil {
		return fmt.Errorf("read the cookies for %s: %w", h.url.Redacted(), err)
	}
	if v := cookieHeader(all, h.url, time.Now()); v != "" {
		hr.Header.Set("Cookie", v)
	}
	return nil
}

// credentialsFor says whether the credentials may go to u: any origin when
// they name none, else theirs only (compared without case).
func (c *Client) credentialsFor(u *url.URL) bool {
	return c.Credentials.For(u)
}

// For says whether the credentials may go to u: any origin when they name
// none, else theirs only (scheme, host and port, compared without case).
// The browser's answers to auth challenges ask the same.
func (cr *Credentials) For(u *url.URL) bool {
	if cr == nil {
		return false
	}
	if cr.Origin == "" {
		return true
	}
	o, err := url.Parse(strings.ToLower(cr.Origin))
	if err != nil {
		return false
	}
	return o.Scheme == strings.ToLower(u.Scheme) && hostPort(o) == hostPort(u)
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}

// redirect is where a redirect answer sends the next hop, nil if resp is
// none. The next hop is a new request as fetch() makes it: the method and
// body change (a 303 to other than GET or HEAD, a 301 or 302 to a POST
// become a GET without its body and content headers), the caller's Cookie
// header gives way to the jar's cookies for the new URL, and an
// Authorization header does not follow to another origin.
func (h *hop) redirect(resp *http.Response) (*url.URL, error) {
	switch resp.StatusCode {
	case 301, 302, 303, 307, 308:
	default:
		return nil, nil
	}
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, nil
	}
	next, err := h.url.Parse(loc)
	if err != nil || (next.Scheme != "http" && next.Scheme != "https") {
		return nil, fmt.Errorf("uri requested responds with an invalid redirect URL: %s", loc)
	}
	drop := map[string]bool{"cookie": true, "host": true}
	if hostPort(next) != hostPort(h.url) || !strings.EqualFold(next.Scheme, h.url.Scheme) {
		drop["authorization"] = true
	}
	if (resp.StatusCode == 303 && h.method != http.MethodGet && h.method != http.MethodHead) ||
		((resp.StatusCode == 301 || resp.StatusCode == 302) && h.method == http.MethodPost) {
		h.method, h.body = http.MethodGet, nil
		for _, k := range []string{"content-encoding", "content-language", "content-length", "content-location", "content-type"} {
			drop[k] = true
		}
	}
	kept := h.headers[:0:0]
	for _, kv := range h.headers {
		if !drop[strings.ToLower(kv[0])] {
			kept = append(kept, kv)
		}
	}
	h.headers = kept
	return next, nil
}

// finish reads and decodes the body of the last hop.
func (h *hop) finish(_ context.Context, resp *http.Response, t *timer) (*Response, error) {
	defer resp.Body.Close()
	body, err := readBody(resp, h.c.maxBody())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", h.url.Redacted(), err)
	}
	t.done()
	out := &Response{URL: h.url.String(), Status: resp.StatusCode,
		StatusText: strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode))),
		Body:       base64.StdEncoding.EncodeToString(body), Timing: t.timing()}
	if out.StatusText == "" {
		out.StatusText = http.StatusText(resp.StatusCode)
	}
	names := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range resp.Header[k] {
			out.Headers = append(out.Headers, [2]string{k, v})
		}
	}
	return out, nil
}

// networkErr names a failed exchange as Playwright does where the cause is
// the same (a peer that closed the connection without an answer).
func networkErr(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "connection reset") {
		return fmt.Errorf("socket hang up (%w)", err)
	}
	return err
}

// RunProxy sends every hop through the run's policy proxy at proxyURL (""
// for none; "host:port" as Chromium's --proxy-server takes it is read as
// http), loopback hosts included, as the browser's requests go
// (--proxy-bypass-list=<-loopback>): the proxy decides what they may reach.
func RunProxy(proxyURL string) func(*http.Request) (*url.URL, error) {
	if proxyURL == "" {
		return nil
	}
	if !strings.Contains(proxyURL, "://") {
		proxyURL = "http://" + proxyURL
	}
	u, err := url.Parse(proxyURL)
	return func(*http.Request) (*url.URL, error) {
		if err != nil {
			return nil, fmt.Errorf("the run's proxy %q: %w", proxyURL, err)
		}
		return u, nil
	}
}

// ProxyFlag is the proxy a list of Chromium flags names (--proxy-server),
// "" if none.
func ProxyFlag(args []string) string {
	p := ""
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--proxy-server="); ok {
			p = v
		}
	}
	return p
}
