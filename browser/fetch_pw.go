package browser

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// Fetch is Playwright's route.fetch() and page.request: the driver makes
// an HTTP request on the page's behalf, with the page's cookies, and hands
// the whole response back. The URL policy decides each URL (redirects
// included), and the run's policy proxy carries it as it carries the
// browser's own requests.

// FetchRequest is one request to make.
type FetchRequest struct {
	URL          string
	Method       string
	Headers      map[string]string
	PostData     []byte
	MaxRedirects int // -1: the default (20)
}

// FetchResult is the response, body included.
type FetchResult struct {
	URL        string      `json:"url"`
	Status     int         `json:"status"`
	StatusText string      `json:"status_text"`
	Headers    [][2]string `json:"headers"`
	Body       string      `json:"body"` // base64
}

// maxFetchBody caps a fetched body; a bigger one is an error, not a cut.
const maxFetchBody = 64 << 20

// Fetch makes the request within timeout.
func (p *Page) Fetch(ctx context.Context, req FetchRequest, timeout time.Duration) (*FetchResult, error) {
	u, err := url.Parse(req.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, newErr(ErrInvalidParams, "fetch needs an http(s) URL, not %q", req.URL)
	}
	if err := p.fetchAllowed(req.URL); err != nil {
		return nil, err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	method := strings.ToUpper(req.Method)
	if method == "" {
		method = http.MethodGet
	}
	hr, err := http.NewRequestWithContext(o.ctx, method, req.URL, bytes.NewReader(req.PostData))
	if err != nil {
		return nil, newErr(ErrInvalidParams, "fetch: %v", err)
	}
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	if hr.Header.Get("Cookie") == "" {
		if c := p.cookieHeader(o, req.URL); c != "" {
			hr.Header.Set("Cookie", c)
		}
	}
	resp, err := p.fetchClient(req.MaxRedirects).Do(hr)
	if err != nil {
		return nil, p.fetchErr(o, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFetchBody+1))
	if err != nil {
		return nil, p.fetchErr(o, err)
	}
	if len(body) > maxFetchBody {
		return nil, newErr(ErrBrowser, "fetch: the response body of %s is over %d MB", req.URL, maxFetchBody>>20)
	}
	out := &FetchResult{URL: resp.Request.URL.String(), Status: resp.StatusCode,
		StatusText: strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode))),
		Body:       base64.StdEncoding.EncodeToString(body)}
	for k, vs := range resp.Header {
		for _, v := range vs {
			out.Headers = append(out.Headers, [2]string{strings.ToLower(k), v})
		}
	}
	return out, nil
}

func (p *Page) fetchAllowed(u string) error {
	if pol := p.b.opts.URLPolicy; pol != nil {
		if err := pol(u); err != nil {
			return wrapErr(ErrBlockedURL, err, "fetch of %s refused by the URL policy: %v", u, err)
		}
	}
	return nil
}

// fetchClient follows up to max redirects (0: none, the 3xx is the
// answer), each passing the URL policy, through the run's proxy.
func (p *Page) fetchClient(max int) *http.Client {
	if max < 0 {
		max = 20
	}
	tr := &http.Transport{Proxy: runProxy, ForceAttemptHTTP2: true, DisableKeepAlives: true}
	if p.ignoresHTTPSErrors() {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the context's ignore_https_errors asks for it
	}
	return &http.Client{Transport: tr, CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if len(via) > max {
			return http.ErrUseLastResponse
		}
		return p.fetchAllowed(r.URL.String())
	}}
}

// runProxy sends a request through the run's policy proxy, as the browser
// does, except for loopback hosts (the browser's bypass list).
func runProxy(r *http.Request) (*url.URL, error) {
	proxy := os.Getenv(ProxyEnv)
	if proxy == "" {
		return nil, nil
	}
	host := r.URL.Hostname()
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		return nil, nil
	}
	return url.Parse(proxy)
}

func (p *Page) cookieHeader(o *op, u string) string {
	res, err := proto.NetworkGetCookies{Urls: []string{u}}.Call(o.rodPage())
	if err != nil {
		return ""
	}
	parts := make([]string, 0, len(res.Cookies))
	for _, c := range res.Cookies {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}

func (p *Page) fetchErr(o *op, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(context.Cause(o.ctx), context.DeadlineExceeded) {
		return newErr(ErrTimeout, "Timeout %dms exceeded.", o.timeout.Milliseconds())
	}
	if e := p.closedErr(); e != nil {
		return e
	}
	return wrapErr(ErrBrowser, err, "fetch: %v", err)
}
