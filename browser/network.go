package browser

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"

	"wright/browser/apirequest"
)

// postData is a request's body, nil when it has none.
func postData(r *proto.NetworkRequest) *string {
	if !r.HasPostData {
		return nil
	}
	var data string
	for _, entry := range r.PostDataEntries {
		data += string(entry.Bytes)
	}
	return &data
}

func (p *Page) emitRequest(e *proto.NetworkRequestWillBeSent) {
	if strings.HasPrefix(e.Request.URL, "data:") {
		return // data: URLs are no requests to the network (Playwright reports none)
	}
	if faviconFetch(e) {
		return // headless Chromium's own, which Playwright's headless shell never makes (network_headers.go)
	}
	ev := &RequestEvent{
		RequestInfo: requestInfo(string(e.RequestID), e.Request.URL, e.Request, e.Type,
			e.Type == proto.NetworkResourceTypeDocument && string(e.LoaderID) == string(e.RequestID)),
		Frame: string(e.FrameID), MainFrame: e.FrameID == p.mainFrame(),
		WallTime: float64(e.WallTime), Timestamp: float64(e.Timestamp),
	}
	if e.RedirectResponse != nil {
		ev.Redirect = &Redirect{Status: e.RedirectResponse.Status, Headers: e.RedirectResponse.Headers,
			StatusText: e.RedirectResponse.StatusText, Timing: e.RedirectResponse.Timing}
	}
	p.emit(ev)
}

// Fetch is Playwright's route.fetch() and page.request: the driver makes
// an HTTP request on the page's behalf, sharing its context's cookies both
// ways, and hands the whole response back. The URL policy decides each URL
// (redirects included), and the run's policy proxy carries it as it
// carries the browser's own requests (package apirequest).

// FetchRequest is one request to make.
type FetchRequest struct {
	URL          string
	Method       string
	Headers      map[string]string
	PostData     []byte
	MaxRedirects int // -1: the default (20)
}

// Fetch makes the request within timeout.
func (p *Page) Fetch(ctx context.Context, req FetchRequest, timeout time.Duration) (*apirequest.Response, error) {
	if u, err := url.Parse(req.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, newErr(ErrInvalidParams, "fetch needs an http(s) URL, not %q", req.URL)
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	c, err := p.Context().APIClient(o.ctx)
	if err != nil {
		return nil, err
	}
	c.IgnoreHTTPSErrors = p.ignoresHTTPSErrors()
	if cr := p.router.auth.Load(); cr != nil {
		c.Credentials = cr // new_page(http_credentials=...) over its context's
	}
	ar := apirequest.Request{URL: req.URL, Method: req.Method, Body: req.PostData, MaxRedirects: req.MaxRedirects}
	if ar.MaxRedirects < 0 {
		ar.MaxRedirects = apirequest.DefaultMaxRedirects
	}
	for k, v := range req.Headers {
		ar.Headers = append(ar.Headers, [2]string{k, v})
	}
	res, err := c.Do(o.ctx, ar)
	if err != nil {
		return nil, p.fetchErr(o, err)
	}
	return res, nil
}

// APIClient is the client for the context's API requests: the URL policy,
// the run's policy proxy, the context's cookie store as its jar, and its
// user agent.
func (bc *Context) APIClient(ctx context.Context) (*apirequest.Client, error) {
	b := bc.b
	if err := b.alive(); err != nil {
		return nil, err
	}
	d := bc.defaultsValue()
	c := &apirequest.Client{Policy: b.opts.URLPolicy, Proxy: bc.apiProxy(),
		Jar: contextJar{bc}, IgnoreHTTPSErrors: d.IgnoreHTTPSErrors, Credentials: d.HTTPCredentials}
	if d.Emulation != nil && d.Emulation.UserAgent != "" {
		c.UserAgent = d.Emulation.UserAgent
	} else {
		ua, err := b.defaultUserAgent(ctx)
		if err != nil {
			return nil, err
		}
		c.UserAgent = ua
	}
	return c, nil
}

// policyProxy is the proxy the browser's own requests go through: the one
// it was launched with, else (a browser attached over CDP) the run's.
func (b *Browser) policyProxy() string {
	if b.proxy != "" {
		return b.proxy
	}
	return os.Getenv(ProxyEnv)
}

// defaultUserAgent is the browser's own user agent, what navigator.userAgent
// says in a page nothing emulates.
func (b *Browser) defaultUserAgent(ctx context.Context) (string, error) {
	b.mu.Lock()
	ua := b.userAgent
	b.mu.Unlock()
	if ua != "" {
		return ua, nil
	}
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	v, err := proto.BrowserGetVersion{}.Call(b.rod.Context(ctx))
	if err != nil {
		return "", wrapErr(ErrBrowser, err, "read the browser's user agent: %s", cdpMessage(err))
	}
	b.mu.Lock()
	b.userAgent = v.UserAgent
	b.mu.Unlock()
	return v.UserAgent, nil
}

// Version is the browser's version number, as Chromium reports it in its
// product string ("120.0.6099.71" of "HeadlessChrome/120.0.6099.71").
func (b *Browser) Version(ctx context.Context) (string, error) {
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	v, err := proto.BrowserGetVersion{}.Call(b.rod.Context(ctx))
	if err != nil {
		return "", wrapErr(ErrBrowser, err, "read the browser's version: %s", cdpMessage(err))
	}
	if _, num, ok := strings.Cut(v.Product, "/"); ok {
		return num, nil
	}
	return v.Product, nil
}

// contextJar is a browser context's cookie store as an API request's jar:
// cookies a page set go with API requests, and cookies an API response
// sets are the pages' too.
type contextJar struct{ c *Context }

func (j contextJar) All(ctx context.Context) ([]apirequest.Cookie, error) {
	cs, err := j.c.Cookies(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]apirequest.Cookie, 0, len(cs))
	for _, c := range cs {
		ac := apirequest.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: float64(c.Expires),
			HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: string(c.SameSite)}
		if c.Session {
			ac.Expires = -1
		}
		out = append(out, ac)
	}
	return out, nil
}

func (j contextJar) Store(ctx context.Context, from *url.URL, cookies []apirequest.Cookie) error {
	params := make([]*proto.NetworkCookieParam, 0, len(cookies))
	for _, c := range cookies {
		cp := &proto.NetworkCookieParam{Name: c.Name, Value: c.Value, Path: c.Path, Secure: c.Secure, HTTPOnly: c.HTTPOnly,
			SameSite: proto.NetworkCookieSameSite(c.SameSite)}
		if strings.HasPrefix(c.Domain, ".") {
			cp.Domain = c.Domain
		} else {
			// a host-only cookie: CDP makes one from a URL without a domain
			cp.URL = (&url.URL{Scheme: from.Scheme, Host: from.Host, Path: c.Path}).String()
		}
		if c.Expires >= 0 {
			cp.Expires = proto.TimeSinceEpoch(c.Expires)
		}
		params = append(params, cp)
	}
	if err := j.c.SetCookies(ctx, params); err != nil {
		// One cookie Chromium refuses (SameSite=None without Secure, a bad
		// name) must not lose the others or fail the response, as a page's
		// load would not: each goes on its own, and a refused one is dropped.
		for _, cp := range params {
			_ = j.c.SetCookies(ctx, []*proto.NetworkCookieParam{cp})
		}
	}
	return nil
}

// CheckWebSocket says whether the page may open a WebSocket to u (a route's
// connect_to_server): u must be ws:// or wss:// and pass the URL policy.
// The socket itself is the page's, so in a run it also goes through the
// policy proxy; this check gives the script the policy's refusal by name
// instead of a socket that closes with 1006.
func (p *Page) CheckWebSocket(u string) error {
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "ws" && parsed.Scheme != "wss") || parsed.Host == "" {
		return newErr(ErrInvalidParams, "%q is not a ws:// or wss:// URL", u)
	}
	if pol := p.b.opts.URLPolicy; pol != nil {
		if err := pol(u); err != nil {
			return wrapErr(ErrBlockedURL, err, "WebSocket to %s refused by the URL policy: %v", u, err)
		}
	}
	return nil
}

// APIError gives an API request's failure its place among wright's errors.
func APIError(err error) error {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, apirequest.ErrPolicy):
		return wrapErr(ErrBlockedURL, err, "%v", err)
	case errors.Is(err, apirequest.ErrTimeout):
		return wrapErr(ErrTimeout, err, "%s", strings.TrimPrefix(err.Error(), apirequest.ErrTimeout.Error()+": "))
	case errors.Is(err, apirequest.ErrInvalid):
		return wrapErr(ErrInvalidParams, err, "%v", err)
	}
	return wrapErr(ErrBrowser, err, "%v", err)
}

func (p *Page) fetchErr(o *op, err error) error {
	if errors.Is(context.Cause(o.ctx), context.DeadlineExceeded) {
		return newErr(ErrTimeout, "Timeout %dms exceeded.", o.timeout.Milliseconds())
	}
	if e := p.closedErr(); e != nil {
		return e
	}
	return APIError(err)
}

// The interception layer: every request a page makes that wright needs to
// see passes through decideRequest, in one place. First the URL policy
// (documents; a refused one fails with BlockedByClient), then, when a
// client routes the page's requests (page.route in Playwright), the client
// decides: the request stays paused until route.continue / route.fulfill /
// route.abort answers it. A future policy for subresources hooks in here.

// interceptPatterns are the Fetch patterns the page needs now.
func (rt *Router) patterns() []*proto.FetchRequestPattern {
	p := rt.p
	if rt.on.Load() || p.b.opts.Replay != nil {
		pats := []*proto.FetchRequestPattern{{URLPattern: "*", RequestStage: proto.FetchRequestStageRequest}}
		if p.b.proxy != "" {
			pats = append(pats, &proto.FetchRequestPattern{URLPattern: "*", ResourceType: proto.NetworkResourceTypeDocument, RequestStage: proto.FetchRequestStageResponse})
		}
		return pats
	}
	var pats []*proto.FetchRequestPattern
	if rt.handlesAuth() {
		// Auth challenges are reported only for requests Fetch pauses.
		pats = append(pats, &proto.FetchRequestPattern{URLPattern: "*", RequestStage: proto.FetchRequestStageRequest})
	} else if p.b.opts.URLPolicy != nil {
		pats = append(pats, &proto.FetchRequestPattern{URLPattern: "*", ResourceType: proto.NetworkResourceTypeDocument, RequestStage: proto.FetchRequestStageRequest})
	}
	if p.b.proxy != "" {
		// The proxy's failure answers become net errors (proxy failures, below).
		pats = append(pats, &proto.FetchRequestPattern{URLPattern: "*", ResourceType: proto.NetworkResourceTypeDocument, RequestStage: proto.FetchRequestStageResponse})
	}
	return pats
}

// Enable turns the client's routing of every request on or off.
func (rt *Router) Enable(ctx context.Context, on bool) error {
	p := rt.p
	rt.on.Store(on)
	o := p.begin(ctx, 0)
	defer o.end()
	var err error
	if pats := rt.patterns(); pats != nil {
		err = callCDP(o.rodPage(), rt.fetchEnable(pats))
	} else {
		err = callCDP(o.rodPage(), proto.FetchDisable{})
	}
	if err != nil {
		return o.fail(p.jsErr(err), "")
	}
	return nil
}

func (rt *Router) fetchEnable(pats []*proto.FetchRequestPattern) proto.FetchEnable {
	return proto.FetchEnable{Patterns: pats, HandleAuthRequests: rt.handlesAuth()}
}

// HTTP authentication (Playwright's http_credentials): while credentials
// are set, the page's auth challenges come to answerAuth. A challenge is
// answered with them once per request, and only when the request's origin
// is theirs; a second challenge of the same request (wrong credentials),
// another origin's, or one from a proxy is cancelled, so the page shows the
// server's 401 answer and the credentials go nowhere else.

// SetHTTPCredentials sets (nil: clears) the credentials the page answers
// HTTP auth challenges with.
func (p *Page) SetHTTPCredentials(ctx context.Context, cr *apirequest.Credentials) error {
	if cr != nil && cr.Origin != "" {
		if u, err := url.Parse(cr.Origin); err != nil || u.Host == "" {
			return newErr(ErrInvalidParams, "http_credentials: origin %q is not an origin like https://example.com", cr.Origin)
		}
	}
	p.router.auth.Store(cr)
	if cr != nil {
		p.router.authOn.Store(true)
	}
	return p.router.Enable(ctx, p.router.on.Load())
}

// answerAuth answers one Fetch.authRequired.
func (rt *Router) answerAuth(e *proto.FetchAuthRequired) {
	p := rt.p
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	answer := &proto.FetchAuthChallengeResponse{Response: proto.FetchAuthChallengeResponseResponseCancelAuth}
	if e.AuthChallenge != nil && e.AuthChallenge.Source == proto.FetchAuthChallengeSourceProxy {
		answer = rt.proxyAnswer(e.RequestID) // proxy.go
	} else if cr := rt.auth.Load(); cr != nil && rt.firstTry(e.RequestID) {
		if u, err := url.Parse(e.Request.URL); err == nil && cr.For(u) {
			if pw, err := p.credentialPassword(cr.Password, u); err != nil {
				p.addConsole("error", "wright: http_credentials: "+err.Error(), "", 0)
			} else {
				answer = &proto.FetchAuthChallengeResponse{Response: proto.FetchAuthChallengeResponseResponseProvideCredentials,
					Username: cr.Username, Password: pw}
			}
		}
	}
	_ = proto.FetchContinueWithAuth{RequestID: e.RequestID, AuthChallengeResponse: answer}.Call(p.rod.Context(ctx))
}

// firstTry records that the request is given the credentials, false when
// it already was.
func (rt *Router) firstTry(id proto.FetchRequestID) bool {
	rt.authMu.Lock()
	defer rt.authMu.Unlock()
	if rt.tried[id] {
		delete(rt.tried, id)
		return false
	}
	if rt.tried == nil || len(rt.tried) > 1000 {
		rt.tried = map[proto.FetchRequestID]bool{} // answered requests are not asked again; keep it bounded
	}
	rt.tried[id] = true
	return true
}

// credentialPassword is the password to answer u's challenge with. A
// password that names wright's secrets (<secret>name</secret>) gets their
// values here, in the driver, and only for a host each secret may go to,
// so the script that set it never holds the value.
func (p *Page) credentialPassword(pw string, u *url.URL) (string, error) {
	pieces, has, err := p.secretPieces(pw)
	if err != nil || !has {
		return pw, err
	}
	origin := u.Scheme + "://" + u.Host
	for _, pc := range pieces {
		if pc.Name == "" {
			continue
		}
		if err := p.b.opts.Secrets.MayType(pc.Name, origin); err != nil {
			return "", err
		}
	}
	return joinPieces(pieces), nil
}

// decideRequest is the one place paused requests are decided.
func (rt *Router) decide(e *proto.FetchRequestPaused) {
	p := rt.p
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	if e.ResponseStatusCode != nil || e.ResponseErrorReason != "" {
		p.decideResponse(ctx, e)
		return
	}
	r := p.rod.Context(ctx)
	// Documents are always paused for the policy; with routing on every
	// request is, and the policy decides before any route sees it (the
	// proxy checks the rest on the wire).
	doc := e.ResourceType == proto.NetworkResourceTypeDocument
	if pol := p.b.opts.URLPolicy; pol != nil && (doc || rt.on.Load()) {
		if err := pol(e.Request.URL); err != nil {
			what := "a navigation"
			if doc {
				p.recordBlocked(e.Request.URL, err)
			} else {
				what = "a request"
			}
			p.addConsole("error", "wright: blocked "+what+" to "+e.Request.URL+" by the URL policy: "+err.Error(), "", 0)
			_ = proto.FetchFailRequest{RequestID: e.RequestID, ErrorReason: proto.NetworkErrorReasonBlockedByClient}.Call(r)
			return
		}
	}
	info := requestInfo(string(e.NetworkID), e.Request.URL+e.Request.URLFragment,
		e.Request, e.ResourceType, e.ResourceType == proto.NetworkResourceTypeDocument && e.FrameID == p.mainFrame())
	// A server's redirect is not routed again (Playwright's rule: the route saw the request that was
	// redirected, and its handler's decision covers where it leads); a redirect a route answered is.
	serverRedirect := false
	if e.RedirectedRequestID != "" {
		_, ours := rt.fulfilledRedirects.LoadAndDelete(e.RedirectedRequestID)
		serverRedirect = !ours
	}
	// A CORS preflight is no request of the page's to route (Playwright's routes never see one): with
	// routing on, the request it asks for is routed itself, so the preflight is granted here, after the
	// policy allowed its URL. Chromium's own favicon fetch is not routed either (isBrowsersOwn).
	if rt.on.Load() && p.b.hasSubscribers() && !serverRedirect && isPreflight(e) {
		_ = grantPreflight(r, e)
		return
	}
	if rt.on.Load() && p.b.hasSubscribers() && !serverRedirect && !isBrowsersOwn(e) {
		rt.hold(string(e.RequestID), info)
		p.emit(&RouteEvent{Route: string(e.RequestID), RequestInfo: info})
		return
	}
	if p.b.opts.Replay != nil {
		_ = rt.replay(ctx, string(e.RequestID), info)
		return
	}
	_ = proto.FetchContinueRequest{RequestID: e.RequestID}.Call(r)
}

// Replayer answers requests in the network's place (Options.Replay).
type Replayer interface {
	// Answer returns the response for the request, or nil when it has
	// none (the request then fails as net::ERR_FAILED).
	Answer(req RequestInfo) *ReplayedResponse
}

// ReplayedResponse is a replayer's answer: a response, or a redirect of a
// navigation to Location (the page then loads that URL, also answered by
// the replayer).
type ReplayedResponse struct {
	Status   int
	Headers  [][2]string
	Body     []byte
	Location string // a redirect to here instead of a response
}

// hold keeps a routed request's description while the client decides it,
// for a replayer to answer it if the client lets it continue.
func (rt *Router) hold(id string, info RequestInfo) {
	if rt.p.b.opts.Replay == nil {
		return
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.held == nil {
		rt.held = map[string]RequestInfo{}
	}
	rt.held[id] = info
}

// release forgets a held request: the client answered it.
func (rt *Router) release(id string) (RequestInfo, bool) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	info, ok := rt.held[id]
	delete(rt.held, id)
	return info, ok
}

// replay answers a paused request from the replayer.
func (rt *Router) replay(ctx context.Context, id string, info RequestInfo) error {
	ans := rt.p.b.opts.Replay.Answer(info)
	switch {
	case ans == nil:
		return rt.call(ctx, proto.FetchFailRequest{RequestID: proto.FetchRequestID(id), ErrorReason: proto.NetworkErrorReasonFailed})
	case ans.Location != "":
		return rt.call(ctx, proto.FetchFulfillRequest{RequestID: proto.FetchRequestID(id), ResponseCode: http.StatusFound,
			ResponseHeaders: []*proto.FetchHeaderEntry{{Name: "Location", Value: ans.Location}}})
	}
	req := proto.FetchFulfillRequest{RequestID: proto.FetchRequestID(id), ResponseCode: ans.Status, Body: ans.Body}
	if req.ResponseCode <= 0 {
		req.ResponseCode = http.StatusOK
	}
	for _, h := range ans.Headers {
		req.ResponseHeaders = append(req.ResponseHeaders, &proto.FetchHeaderEntry{Name: h[0], Value: h[1]})
	}
	return rt.call(ctx, req)
}

// RouteOverrides change a routed request that continues to the network.
type RouteOverrides struct {
	URL      string            `json:"url"`
	Method   string            `json:"method"`
	Headers  map[string]string `json:"headers"`
	PostData *string           `json:"post_data"` // base64
}

// Continue lets a routed request go on, with overrides. A changed URL
// must pass the URL policy too.
func (rt *Router) Continue(ctx context.Context, id string, ov RouteOverrides) error {
	p := rt.p
	info, held := rt.release(id)
	if ov.URL != "" && p.b.opts.URLPolicy != nil {
		if err := p.b.opts.URLPolicy(ov.URL); err != nil {
			rt.refuseRewrite(ctx, id, ov.URL, err)
			return wrapErr(ErrBlockedURL, err, "route.continue to %s: %v", ov.URL, err)
		}
	}
	if held {
		return rt.replay(ctx, id, ov.apply(info))
	}
	req := proto.FetchContinueRequest{RequestID: proto.FetchRequestID(id), URL: ov.URL, Method: ov.Method}
	if ov.Headers != nil {
		for k, v := range ov.Headers {
			req.Headers = append(req.Headers, &proto.FetchHeaderEntry{Name: k, Value: v})
		}
	}
	if ov.PostData != nil {
		req.PostData = []byte(mustB64(*ov.PostData))
		if len(req.PostData) == 0 {
			return rt.call(ctx, emptyBodyContinue{FetchContinueRequest: req})
		}
	}
	return rt.call(ctx, req)
}

// apply is info as the overrides change it.
func (ov RouteOverrides) apply(info RequestInfo) RequestInfo {
	if ov.URL != "" {
		info.URL = ov.URL
	}
	if ov.Method != "" {
		info.Method = ov.Method
	}
	if ov.Headers != nil {
		info.Headers = proto.NetworkHeaders{}
		for k, v := range ov.Headers {
			info.Headers[k] = gson.New(v)
		}
	}
	if ov.PostData != nil {
		data := mustB64(*ov.PostData)
		info.PostData = &data
	}
	return info
}

// Fulfill answers a routed request without the network.
func (rt *Router) Fulfill(ctx context.Context, id string, status int, headers map[string]string, body string) error {
	rt.release(id)
	if status == 0 {
		status = 200
	}
	if status >= 300 && status < 400 {
		rt.fulfilledRedirects.Store(proto.FetchRequestID(id), struct{}{})
	}
	// The reason phrase of the status, as a server would send it (Chromium's own table says "Unprocessable
	// Content" where servers and Playwright say "Unprocessable Entity").
	req := proto.FetchFulfillRequest{RequestID: proto.FetchRequestID(id), ResponseCode: status, Body: []byte(mustB64(body)),
		ResponsePhrase: http.StatusText(status)}
	for k, v := range headers {
		for _, line := range strings.Split(v, "\n") {
			req.ResponseHeaders = append(req.ResponseHeaders, &proto.FetchHeaderEntry{Name: k, Value: line})
		}
	}
	return rt.call(ctx, req)
}

// Abort fails a routed request with a network error (Playwright's
// error codes: aborted, connectionrefused, ...).
func (rt *Router) Abort(ctx context.Context, id, code string) error {
	rt.release(id)
	reason, ok := abortReasons[strings.ToLower(code)]
	if code == "" {
		reason, ok = proto.NetworkErrorReasonFailed, true
	}
	if !ok {
		return newErr(ErrInvalidParams, "unknown error code %q", code)
	}
	return rt.call(ctx, proto.FetchFailRequest{RequestID: proto.FetchRequestID(id), ErrorReason: reason})
}

var abortReasons = map[string]proto.NetworkErrorReason{
	"aborted": proto.NetworkErrorReasonAborted, "accessdenied": proto.NetworkErrorReasonAccessDenied,
	"addressunreachable": proto.NetworkErrorReasonAddressUnreachable, "blockedbyclient": proto.NetworkErrorReasonBlockedByClient,
	"blockedbyresponse": proto.NetworkErrorReasonBlockedByResponse, "connectionaborted": proto.NetworkErrorReasonConnectionAborted,
	"connectionclosed": proto.NetworkErrorReasonConnectionClosed, "connectionfailed": proto.NetworkErrorReasonConnectionFailed,
	"connectionrefused": proto.NetworkErrorReasonConnectionRefused, "connectionreset": proto.NetworkErrorReasonConnectionReset,
	"internetdisconnected": proto.NetworkErrorReasonInternetDisconnected, "namenotresolved": proto.NetworkErrorReasonNameNotResolved,
	"timedout": proto.NetworkErrorReasonTimedOut, "failed": proto.NetworkErrorReasonFailed,
}

func (rt *Router) call(ctx context.Context, req proto.Request) error {
	p := rt.p
	o := p.begin(ctx, 0)
	defer o.end()
	if err := callCDP(o.rodPage(), req); err != nil {
		if e := p.closedErr(); e != nil {
			return e
		}
		return wrapErr(ErrInvalidParams, err, "the route is already handled or its request is gone (%s)", cdpMessage(err))
	}
	return nil
}

func mustB64(s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return s
	}
	return string(b)
}

// refuseRewrite fails a routed request whose rewritten URL the policy
// refuses, so that the page sees a blocked request instead of one paused
// for ever, and says so where blocked navigations are told (notices, the
// console).
func (rt *Router) refuseRewrite(ctx context.Context, id, url string, err error) {
	p := rt.p
	p.recordBlocked(url, err)
	p.addConsole("error", "wright: blocked a request rewritten to "+url+" by the URL policy: "+err.Error(), "", 0)
	_ = rt.call(ctx, proto.FetchFailRequest{RequestID: proto.FetchRequestID(id), ErrorReason: proto.NetworkErrorReasonBlockedByClient})
}

// idleQuiet is how long no request may be in flight for the network to
// count as idle (Chrome's and Playwright's figure).
const idleQuiet = 500 * time.Millisecond

// idleWatch counts the page's requests in flight in all its frames from the
// moment it starts. Chrome's networkIdle lifecycle event looks at one
// frame's own requests; a navigation waiting until "networkidle" must also
// wait for the frames inside the page (a child frame's script that never
// arrives keeps the page busy).
type idleWatch struct {
	mu       sync.Mutex
	inflight map[proto.NetworkRequestID]bool
	since    time.Time // of the last change
	changed  chan struct{}
	cancel   context.CancelFunc
	done     chan struct{}
}

// watchIdle starts counting (when on) for the op; close ends it.
func (p *Page) watchIdle(o *op, on bool) *idleWatch {
	w := &idleWatch{inflight: map[proto.NetworkRequestID]bool{}, since: time.Now(), changed: make(chan struct{}), done: make(chan struct{})}
	if !on {
		close(w.done)
		return w
	}
	ctx, cancel := context.WithCancel(o.ctx)
	w.cancel = cancel
	wait := p.rod.Context(ctx).EachEvent(func(e *proto.NetworkRequestWillBeSent) {
		w.set(e.RequestID, true)
	}, func(e *proto.NetworkLoadingFinished) {
		w.set(e.RequestID, false)
	}, func(e *proto.NetworkLoadingFailed) {
		w.set(e.RequestID, false)
	})
	go func() {
		defer close(w.done)
		wait() // ends with ctx
	}()
	return w
}

func (w *idleWatch) set(id proto.NetworkRequestID, busy bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if busy {
		w.inflight[id] = true
	} else if w.inflight[id] {
		delete(w.inflight, id)
	} else {
		return // a request from before the watch
	}
	w.since = time.Now()
	close(w.changed)
	w.changed = make(chan struct{})
}

// wait blocks until no request has been in flight for idleQuiet, or the op ends.
func (w *idleWatch) wait(o *op) error {
	if w.cancel == nil {
		return nil
	}
	for {
		w.mu.Lock()
		busy, left, ch := len(w.inflight) > 0, idleQuiet-time.Since(w.since), w.changed
		w.mu.Unlock()
		if !busy && left <= 0 {
			return nil
		}
		if busy {
			left = time.Second
		}
		if err := o.waitChange(ch, left); err != nil {
			return err
		}
	}
}

func (w *idleWatch) close() {
	if w.cancel != nil {
		w.cancel()
	}
	<-w.done
}

// securityDetails is a TLS response's certificate summary in Playwright's
// shape (Response.security_details), nil for plain HTTP.
func securityDetails(d *proto.NetworkSecurityDetails) map[string]any {
	if d == nil {
		return nil
	}
	return map[string]any{
		"protocol": d.Protocol, "subjectName": d.SubjectName, "issuer": d.Issuer,
		"validFrom": float64(d.ValidFrom), "validTo": float64(d.ValidTo),
	}
}

// ResponseBody is the body of a response the page received (by the request
// id of its page.request event).
func (p *Page) ResponseBody(ctx context.Context, request string) ([]byte, error) {
	o := p.begin(ctx, 30*time.Second)
	defer o.end()
	res, err := proto.NetworkGetResponseBody{RequestID: proto.NetworkRequestID(request)}.Call(o.rodPage())
	if err != nil {
		return nil, wrapErr(ErrBrowser, err, "response body unavailable (%s)", cdpMessage(err))
	}
	if res.Base64Encoded {
		return base64.StdEncoding.DecodeString(res.Body)
	}
	return []byte(res.Body), nil
}

// Router is a page's request routing (Playwright's page.route): while it is
// on, every request the page makes pauses until the client continues,
// fulfills or aborts it.
type Router struct {
	p    *Page
	on   atomic.Bool                            // a client decides this page's requests
	auth atomic.Pointer[apirequest.Credentials] // answers HTTP auth challenges (SetHTTPCredentials)
	// authOn: the page handles auth challenges itself, from the first
	// credentials on, also once they are cleared (else Chromium would
	// retry a failed answer it remembers and fail the load).
	authOn atomic.Bool
	// proxyAuth answers the proxy's auth challenges (proxy.go); nil: the
	// page's proxy has no credentials.
	proxyAuth atomic.Pointer[Proxy]

	authMu sync.Mutex
	tried  map[proto.FetchRequestID]bool // requests the credentials were already given to

	mu   sync.Mutex
	held map[string]RequestInfo // routed requests a replayer answers if they continue (Options.Replay)

	raw rawHeaders // extra infos waiting for their request (network_headers.go)

	// fulfilledRedirects: routed requests a client answered with a redirect; the hop
	// that follows one is routed again (a route made it), unlike a server's.
	fulfilledRedirects sync.Map // proto.FetchRequestID -> struct{}
}

// observeNetwork turns the page's network events into client events.
func (p *Page) observeNetwork(msg *rod.Message) {
	switch msg.Method {
	case "Network.requestWillBeSent":
		var e proto.NetworkRequestWillBeSent
		if msg.Load(&e) {
			p.redirectWithoutRaw(&e)
			p.emitRequest(&e)
			p.requestSent(&e)
		}
	case "Network.responseReceived":
		var e proto.NetworkResponseReceived
		if msg.Load(&e) {
			p.emit(&ResponseEvent{
				Request: string(e.RequestID), URL: e.Response.URL, Status: e.Response.Status,
				StatusText: e.Response.StatusText, Headers: e.Response.Headers, FromCache: e.Response.FromDiskCache,
				FromServiceWorker: e.Response.FromServiceWorker,
				RemoteIP:          e.Response.RemoteIPAddress, RemotePort: e.Response.RemotePort, Protocol: e.Response.Protocol,
				Security: securityDetails(e.Response.SecurityDetails), Timing: e.Response.Timing,
			})
			p.responseGot(&e)
		}
	case "Network.requestWillBeSentExtraInfo":
		var e proto.NetworkRequestWillBeSentExtraInfo
		if msg.Load(&e) {
			p.extraInfo(e.RequestID, "request", e.Headers)
		}
	case "Network.responseReceivedExtraInfo":
		var e proto.NetworkResponseReceivedExtraInfo
		if msg.Load(&e) {
			p.extraInfo(e.RequestID, "response", e.Headers)
		}
	case "Network.loadingFinished":
		var e proto.NetworkLoadingFinished
		if msg.Load(&e) {
			p.requestEnded(e.RequestID)
			p.emit(&RequestFinishedEvent{Request: string(e.RequestID), Timestamp: float64(e.Timestamp)})
		}
	case "Network.loadingFailed":
		var e proto.NetworkLoadingFailed
		if msg.Load(&e) {
			p.requestEnded(e.RequestID)
			p.emit(&RequestFailedEvent{Request: string(e.RequestID), Error: e.ErrorText, Canceled: e.Canceled})
		}
	}
}

// ---- proxy failures as navigation errors -----------------------------------

// The policy proxy (package netpolicy) answers a request it cannot complete
// (the policy refused it, the host does not resolve, refused or reset the
// connection, or timed out) with a page of its own and netErrorHeader
// naming the error Chromium would have raised without a proxy. A document
// answered so is failed here with that error, so a navigation raises
// net::ERR_CONNECTION_REFUSED (and the rest) and the tab shows Chromium's
// error page (chrome-error://chromewebdata/), as it would without a proxy,
// instead of the proxy's text at the URL that failed. A failed tunnel
// (https) reaches Chromium only as ERR_TUNNEL_CONNECTION_FAILED; the proxy
// is asked why (netErrorPath) and the navigation's error says that.

// netErrorHeader and netErrorPath are netpolicy.NetErrorHeader and
// netpolicy.NetErrorPath (this package does not import netpolicy).
const (
	netErrorHeader = "X-Wright-Net-Error"
	netErrorPath   = "/wright/net-error"
)

// netReasons are the errors a proxy's answer can name, as Fetch.failRequest
// reasons (Chromium raises net::ERR_<name> for each).
var netReasons = map[string]proto.NetworkErrorReason{
	"ERR_BLOCKED_BY_CLIENT":      proto.NetworkErrorReasonBlockedByClient,
	"ERR_CONNECTION_REFUSED":     proto.NetworkErrorReasonConnectionRefused,
	"ERR_NAME_NOT_RESOLVED":      proto.NetworkErrorReasonNameNotResolved,
	"ERR_NAME_RESOLUTION_FAILED": proto.NetworkErrorReasonNameNotResolved,
	"ERR_CONNECTION_RESET":       proto.NetworkErrorReasonConnectionReset,
	"ERR_TIMED_OUT":              proto.NetworkErrorReasonTimedOut,
	"ERR_ADDRESS_UNREACHABLE":    proto.NetworkErrorReasonAddressUnreachable,
	"ERR_EMPTY_RESPONSE":         proto.NetworkErrorReasonConnectionClosed,
	"ERR_FAILED":                 proto.NetworkErrorReasonFailed,
}

// decideResponse is decideRequest for a document paused at the response
// stage: a proxy's failure answer becomes the error it names.
func (p *Page) decideResponse(ctx context.Context, e *proto.FetchRequestPaused) {
	r := p.rod.Context(ctx)
	for _, h := range e.ResponseHeaders {
		if !strings.EqualFold(h.Name, netErrorHeader) {
			continue
		}
		reason, ok := netReasons[strings.TrimSpace(h.Value)]
		if !ok {
			reason = proto.NetworkErrorReasonFailed
		}
		_ = proto.FetchFailRequest{RequestID: e.RequestID, ErrorReason: reason}.Call(r)
		return
	}
	if err := (proto.FetchContinueResponse{RequestID: e.RequestID}).Call(r); err != nil {
		_ = proto.FetchContinueRequest{RequestID: e.RequestID}.Call(r)
	}
}

// errorPageURL is where Chromium leaves a tab whose navigation failed.
const errorPageURL = "chrome-error://chromewebdata/"

// awaitErrorPage waits, briefly, for the error page of a navigation that
// just failed to commit, so that page.url says where the tab is (Chromium
// answers Page.navigate before the error page's frameNavigated arrives).
func (p *Page) awaitErrorPage(o *op) {
	ctx, cancel := context.WithTimeout(o.ctx, 2*time.Second)
	defer cancel()
	for {
		p.mu.Lock()
		u, ch := p.url, p.changed
		p.mu.Unlock()
		if u == errorPageURL {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// tunnelError turns net::ERR_TUNNEL_CONNECTION_FAILED for target into the
// error the proxy met, when the browser goes through one that says.
func (p *Page) tunnelError(ctx context.Context, target, errorText string) string {
	proxy := p.b.proxy
	if errorText != "net::ERR_TUNNEL_CONNECTION_FAILED" || proxy == "" {
		return errorText
	}
	u, err := url.Parse(target)
	if err != nil || u.Hostname() == "" {
		return errorText
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" || u.Scheme == "ws" {
			port = "80"
		}
	}
	base := proxy
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+netErrorPath+"?target="+url.QueryEscape(u.Hostname()+":"+port), nil)
	if err != nil {
		return errorText
	}
	// Straight to the proxy: it is the server here, not a proxy.
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: nil}}).Do(req)
	if err != nil {
		return errorText
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 128))
	if name := strings.TrimSpace(string(b)); resp.StatusCode == http.StatusOK && netReasons[name] != "" {
		return "net::" + name
	}
	return errorText
}
