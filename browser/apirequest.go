package browser

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// FetchRequest is an HTTP request made outside any page on behalf of a
// browser context (Playwright's APIRequestContext: page.request.get(...)).
// It carries the context's cookies and passes the URL policy, hop by hop.
type FetchRequest struct {
	Context           string // browser context id; "" is the default context
	URL               string
	Method            string
	Headers           map[string]string
	Body              []byte
	Timeout           time.Duration
	MaxRedirects      int // 0 follows up to 20; negative follows none
	IgnoreHTTPSErrors bool
}

// FetchResponse is what came back, body included.
type FetchResponse struct {
	URL        string
	Status     int
	StatusText string
	Headers    [][2]string
	Body       []byte
}

// fetchBodyLimit keeps a runaway download from filling the driver's memory.
const fetchBodyLimit = 64 << 20

// Fetch performs r and reads the whole answer.
func (b *Browser) Fetch(ctx context.Context, r FetchRequest) (*FetchResponse, error) {
	if err := b.alive(); err != nil {
		return nil, err
	}
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, newErr(ErrInvalidParams, "fetch: %q is not an http(s) URL", r.URL)
	}
	if err := b.fetchAllowed(r.URL); err != nil {
		return nil, err
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = b.opts.timeout()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cookies, err := b.Cookies(ctx, r.Context)
	if err != nil {
		return nil, err
	}
	method := strings.ToUpper(r.Method)
	if method == "" {
		method = http.MethodGet
	}
	req, err := http.NewRequestWithContext(ctx, method, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return nil, newErr(ErrInvalidParams, "fetch: %v", err)
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	client := b.fetchClient(r, cookies)
	addCookies(req, cookies)
	resp, err := client.Do(req)
	if err != nil {
		var be *Error
		if errors.As(err, &be) {
			return nil, be
		}
		if ctx.Err() != nil {
			return nil, newErr(ErrTimeout, "Timeout %dms exceeded.\nfetching %s", timeout.Milliseconds(), r.URL)
		}
		return nil, newErr(ErrBrowser, "fetch %s: %v", r.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, fetchBodyLimit))
	if err != nil {
		return nil, newErr(ErrBrowser, "fetch %s: reading the body: %v", r.URL, err)
	}
	out := &FetchResponse{URL: resp.Request.URL.String(), Status: resp.StatusCode, Body: body}
	if i := strings.IndexByte(resp.Status, ' '); i >= 0 {
		out.StatusText = resp.Status[i+1:]
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			out.Headers = append(out.Headers, [2]string{strings.ToLower(k), v})
		}
	}
	return out, nil
}

func (b *Browser) fetchAllowed(u string) error {
	if b.opts.URLPolicy == nil {
		return nil
	}
	if err := b.opts.URLPolicy(u); err != nil {
		return wrapErr(ErrBlockedURL, err, "fetch %s: %v", u, err)
	}
	return nil
}

// fetchClient follows redirects within r's limit, asking the URL policy at
// every hop and sending each hop the cookies that belong to it.
func (b *Browser) fetchClient(r FetchRequest, cookies []*proto.NetworkCookie) *http.Client {
	tr := &http.Transport{
		Proxy:           runProxy(), // as the browser: the run's policy proxy, loopback included
		DialContext:     (&net.Dialer{Timeout: 30 * time.Second}).DialContext,
		TLSClientConfig: &tls.Config{InsecureSkipVerify: r.IgnoreHTTPSErrors}, //nolint:gosec // the caller's explicit choice
	}
	limit := r.MaxRedirects
	if limit == 0 {
		limit = 20
	}
	return &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if limit < 0 || len(via) > limit {
			return http.ErrUseLastResponse
		}
		if err := b.fetchAllowed(req.URL.String()); err != nil {
			return err
		}
		req.Header.Del("Cookie")
		addCookies(req, cookies)
		return nil
	}}
}

// addCookies sets the Cookie header from the context's cookies that match
// the request's host, path and scheme.
func addCookies(req *http.Request, cookies []*proto.NetworkCookie) {
	host := req.URL.Hostname()
	path := req.URL.Path
	if path == "" {
		path = "/"
	}
	secure := req.URL.Scheme == "https" || host == "localhost" || host == "127.0.0.1"
	var parts []string
	for _, c := range cookies {
		d := strings.TrimPrefix(c.Domain, ".")
		domainOK := host == d || (strings.HasPrefix(c.Domain, ".") && strings.HasSuffix(host, "."+d))
		if !domainOK || !strings.HasPrefix(path, c.Path) || (c.Secure && !secure) {
			continue
		}
		parts = append(parts, c.Name+"="+c.Value)
	}
	if len(parts) > 0 {
		req.Header.Set("Cookie", strings.Join(parts, "; "))
	}
}

// runProxy sends fetches through the run's policy proxy when the browser
// uses one (ProxyEnv), so the run's network policy applies to them too;
// never through an environment proxy otherwise.
func runProxy() func(*http.Request) (*url.URL, error) {
	p := os.Getenv(ProxyEnv)
	if p == "" {
		return nil
	}
	if !strings.Contains(p, "://") {
		p = "http://" + p
	}
	u, err := url.Parse(p)
	if err != nil {
		return func(*http.Request) (*url.URL, error) {
			return nil, newErr(ErrBlockedURL, "the run's policy proxy %q is not a URL: %v", p, err)
		}
	}
	return http.ProxyURL(u)
}
