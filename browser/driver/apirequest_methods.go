package driver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"strconv"
	"sync"

	"wright/browser"
	"wright/browser/apirequest"
)

// apiRequestParams is one API request as the protocol sends it, for
// context.fetch and apirequest.fetch.
type apiRequestParams struct {
	URL               string      `json:"url"`
	Method            string      `json:"http_method"`
	Headers           [][2]string `json:"headers"`
	PostData          string      `json:"post_data"` // base64
	MaxRedirects      *int        `json:"max_redirects"`
	Timeout           ms          `json:"timeout"`
	IgnoreHTTPSErrors bool        `json:"ignore_https_errors"`
}

func (ap apiRequestParams) request() (apirequest.Request, error) {
	body, err := base64.StdEncoding.DecodeString(ap.PostData)
	if err != nil {
		return apirequest.Request{}, invalid("post_data must be base64: %v", err)
	}
	to, err := ap.Timeout.duration()
	if err != nil {
		return apirequest.Request{}, err
	}
	req := apirequest.Request{URL: ap.URL, Method: ap.Method, Headers: ap.Headers, Body: body, Timeout: to,
		MaxRedirects: apirequest.DefaultMaxRedirects, IgnoreHTTPSErrors: ap.IgnoreHTTPSErrors}
	if ap.MaxRedirects != nil {
		if *ap.MaxRedirects < 0 {
			return req, invalid("max_redirects must be >= 0, got %d", *ap.MaxRedirects)
		}
		req.MaxRedirects = *ap.MaxRedirects
	}
	return req, nil
}

// clientParams are a request context's own settings.
type clientParams struct {
	UserAgent       string                  `json:"user_agent"`
	HTTPCredentials *apirequest.Credentials `json:"http_credentials"`
}

func (cp clientParams) apply(c *apirequest.Client) {
	if cp.UserAgent != "" {
		c.UserAgent = cp.UserAgent
	}
	if cp.HTTPCredentials != nil { // else a browser context's own stay
		c.Credentials = cp.HTTPCredentials
	}
}

func doAPIRequest(ctx context.Context, c *apirequest.Client, ap apiRequestParams) (any, error) {
	req, err := ap.request()
	if err != nil {
		return nil, err
	}
	res, err := c.Do(ctx, req)
	if err != nil {
		return nil, browser.APIError(err)
	}
	return res, nil
}

// contextFetch answers context.fetch: an API request of a browser context
// (context.request, page.request), sharing its cookie store.
func contextFetch(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error) {
	var p struct {
		ctxParams
		apiRequestParams
		clientParams
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	c, err := bc.APIClient(ctx)
	if err != nil {
		return nil, err
	}
	p.clientParams.apply(c)
	return doAPIRequest(ctx, c, p.apiRequestParams)
}

// apiContexts are the request contexts of one connection that belong to
// no browser (playwright.request.new_context()); they end with it.
type apiContexts struct {
	mu   sync.Mutex
	next int
	m    map[string]*apirequest.Client
	jars map[string]*apirequest.MemJar
	hars map[string]*apiHAR // the HAR each records (request.tracing.start_har), if any
}

// maxAPIContexts bounds what a client may keep open on one connection.
const maxAPIContexts = 1000

func (a *apiContexts) add(c *apirequest.Client, jar *apirequest.MemJar) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.m) >= maxAPIContexts {
		return "", invalid("too many API request contexts open (%d): dispose() the ones you are done with", maxAPIContexts)
	}
	if a.m == nil {
		a.m, a.jars = map[string]*apirequest.Client{}, map[string]*apirequest.MemJar{}
	}
	a.next++
	id := "api-" + strconv.Itoa(a.next)
	a.m[id], a.jars[id] = c, jar
	return id, nil
}

func (a *apiContexts) get(id string) (*apirequest.Client, *apirequest.MemJar, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c, ok := a.m[id]
	if !ok {
		return nil, nil, browser.Errorf(browser.ErrTargetClosed, "the API request context %q was disposed (or never made)", id)
	}
	return c, a.jars[id], nil
}

func (a *apiContexts) remove(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.m, id)
	delete(a.jars, id)
	delete(a.hars, id)
}

// policyProxy is what the server's browser would be launched through: the
// proxy its flags name (a run's script drivers), else the run's.
func (s *Server) policyProxy() string {
	if p := apirequest.ProxyFlag(s.opts.Browser.Args); p != "" {
		return p
	}
	return os.Getenv(browser.ProxyEnv)
}

// apiRequestNew answers apirequest.new. It needs no browser: the URL
// policy and the run's proxy are the server's.
func apiRequestNew(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		clientParams
		IgnoreHTTPSErrors bool                `json:"ignore_https_errors"`
		Cookies           []apirequest.Cookie `json:"cookies"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	jar := apirequest.NewMemJar(p.Cookies)
	client := &apirequest.Client{Policy: c.s.opts.Browser.URLPolicy, Proxy: apirequest.RunProxy(c.s.policyProxy()),
		Jar: jar, IgnoreHTTPSErrors: p.IgnoreHTTPSErrors}
	p.clientParams.apply(client)
	id, err := c.api.add(client, jar)
	return map[string]any{"request": id}, err
}

type apiIDParams struct {
	Request string `json:"request"`
}

// apiRequestFetch answers apirequest.fetch.
func apiRequestFetch(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		apiIDParams
		apiRequestParams
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	client, _, err := c.api.get(p.Request)
	if err != nil {
		return nil, err
	}
	if h := c.api.har(p.Request); h != nil {
		return h.record(ctx, client, p.apiRequestParams)
	}
	return doAPIRequest(ctx, client, p.apiRequestParams)
}

// apiRequestStorageState answers apirequest.storage_state.
func apiRequestStorageState(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p apiIDParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	_, jar, err := c.api.get(p.Request)
	if err != nil {
		return nil, err
	}
	cookies, err := jar.All(ctx)
	return map[string]any{"cookies": cookies}, err
}

// apiRequestDispose answers apirequest.dispose.
func apiRequestDispose(_ context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p apiIDParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	c.api.remove(p.Request)
	return nil, nil
}
