package browser

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/go-rod/rod/lib/proto"
)

// Raw headers: what a request and its response carried on the wire.
// Network.requestWillBeSent and responseReceived give the renderer's view
// (no Cookie, Host or Connection; repeated response headers joined with
// "\n"); Chromium's network stack reports the real ones apart, in
// Network.requestWillBeSentExtraInfo and responseReceivedExtraInfo, before
// or after the event they complete. Playwright's all_headers() and
// headers_array() are those. The driver passes each on as a RawHeadersEvent
// once the client knows the request, and says when none will come (a
// response from a cache or a route), so that the client never waits for
// headers Chromium will not send.

// RawHeadersEvent: the headers one side of a request carried on the wire,
// or (Headers nil, None set) that Chromium will report none for it.
type RawHeadersEvent struct {
	PageEvent
	Request string `json:"request"`
	// Side is "request" or "response".
	Side string `json:"side"`
	// Headers are name-value pairs in name order, a repeated header once
	// per value.
	Headers [][2]string `json:"headers"`
	None    bool        `json:"none,omitempty"`
}

// rawHeaders keeps the extra infos that arrived before their request's
// requestWillBeSent, so the client gets them after the request they belong to.
type rawHeaders struct {
	mu    sync.Mutex
	seen  map[proto.NetworkRequestID]bool               // requests the client has been told of
	early map[proto.NetworkRequestID][]*RawHeadersEvent // extra infos waiting for their request
}

// maxRawTracked bounds both maps: a page making requests that never end
// must not grow them for ever (losing raw headers then only costs the
// client the renderer's view of them).
const maxRawTracked = 2000

// headerPairs turns a CDP headers map into sorted pairs, one per value.
func headerPairs(h proto.NetworkHeaders) [][2]string {
	out := make([][2]string, 0, len(h))
	for name, v := range h {
		for _, line := range strings.Split(v.Str(), "\n") {
			out = append(out, [2]string{name, line})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i][0]) < strings.ToLower(out[j][0]) })
	return out
}

// extraInfo handles one Network.*ExtraInfo event: sent now when its request
// is known, else kept for it.
func (p *Page) extraInfo(id proto.NetworkRequestID, side string, h proto.NetworkHeaders) {
	ev := &RawHeadersEvent{Request: string(id), Side: side, Headers: p.guardRaw(headerPairs(h))}
	r := &p.router.raw
	r.mu.Lock()
	if !r.seen[id] {
		if r.early == nil || len(r.early) > maxRawTracked {
			r.early = map[proto.NetworkRequestID][]*RawHeadersEvent{}
		}
		r.early[id] = append(r.early[id], ev)
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	p.emit(ev)
}

// redactedCredentials stands in for credentials the driver added to a request.
const redactedCredentials = "<redacted by wright: credentials the driver answered a challenge with>"

// guardRaw keeps out of the client what the network stack added that the
// script must not read: the answer to a proxy's challenge, always (a run's
// proxy credentials are not the script's), and in a run with secrets the
// answer to a server's (http_credentials may name secrets, which the driver
// alone resolves); the rest as every read is, write-only secrets replaced
// by their placeholders. The renderer's view never held either header.
func (p *Page) guardRaw(hs [][2]string) [][2]string {
	src := p.b.opts.Secrets
	for i, h := range hs {
		switch {
		case strings.EqualFold(h[0], "Proxy-Authorization"),
			src != nil && p.router.authOn.Load() && strings.EqualFold(h[0], "Authorization"):
			hs[i][1] = redactedCredentials
		case src != nil:
			hs[i][1] = src.RedactReads(h[1])
		}
	}
	return hs
}

// requestSent is called once the client has been told of request id (a
// redirect hop included): the extra infos that came first follow it. A
// redirect Chromium reports no raw headers for says so, before the new
// hop's own arrive.
func (p *Page) requestSent(e *proto.NetworkRequestWillBeSent) {
	r := &p.router.raw
	r.mu.Lock()
	if r.seen == nil || len(r.seen) > maxRawTracked {
		r.seen = map[proto.NetworkRequestID]bool{}
	}
	r.seen[e.RequestID] = true
	early := r.early[e.RequestID]
	delete(r.early, e.RequestID)
	r.mu.Unlock()
	for _, ev := range early {
		p.emit(ev)
	}
}

// redirectWithoutRaw tells the client that the hop a request is redirected
// from has no raw headers to wait for; it goes before the new hop's request
// event, which the client takes the redirect's response from.
func (p *Page) redirectWithoutRaw(e *proto.NetworkRequestWillBeSent) {
	if e.RedirectResponse == nil || e.RedirectHasExtraInfo {
		return
	}
	p.noRawHeaders(e.RequestID)
}

// responseGot is called after the client was told of a response: one that
// Chromium reports no raw headers for says so.
func (p *Page) responseGot(e *proto.NetworkResponseReceived) {
	if !e.HasExtraInfo {
		p.noRawHeaders(e.RequestID)
	}
}

func (p *Page) noRawHeaders(id proto.NetworkRequestID) {
	p.emit(&RawHeadersEvent{Request: string(id), Side: "request", None: true})
	p.emit(&RawHeadersEvent{Request: string(id), Side: "response", None: true})
}

// requestEnded forgets a request that finished or failed.
func (p *Page) requestEnded(id proto.NetworkRequestID) {
	r := &p.router.raw
	r.mu.Lock()
	delete(r.seen, id)
	delete(r.early, id)
	r.mu.Unlock()
}

// isPreflight says whether a paused request is a CORS preflight: Chromium
// pauses one as an OPTIONS request of type Other, asking with
// Access-Control-Request-Method.
func isPreflight(e *proto.FetchRequestPaused) bool {
	if e.ResourceType == proto.NetworkResourceTypePreflight {
		return true
	}
	return e.Request.Method == http.MethodOptions && headerOf(e.Request.Headers, "Access-Control-Request-Method") != "" &&
		headerOf(e.Request.Headers, "Origin") != ""
}

func headerOf(h proto.NetworkHeaders, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v.Str()
		}
	}
	return ""
}

// isBrowsersOwn says whether a paused request is the browser's own:
// one without a network id (no request event will name it), or the
// favicon fetch the new headless mode makes after a page loads (type
// Other; Playwright's headless shell makes none, so its routes never see
// one). A page's own fetch or image of /favicon.ico has another type and
// is routed.
func isBrowsersOwn(e *proto.FetchRequestPaused) bool {
	if e.NetworkID == "" {
		return true
	}
	if e.ResourceType != proto.NetworkResourceTypeOther || e.Request.Method != http.MethodGet {
		return false
	}
	u, err := url.Parse(e.Request.URL)
	return err == nil && u.Path == "/favicon.ico"
}

// faviconFetch says whether a request Network reports is the favicon fetch
// headless Chromium makes by itself (type Other, no script or parser
// behind it); the client is not told of it, as its route never sees it.
func faviconFetch(e *proto.NetworkRequestWillBeSent) bool {
	if e.Type != proto.NetworkResourceTypeOther || e.Request.Method != http.MethodGet ||
		e.Initiator == nil || e.Initiator.Type != proto.NetworkInitiatorTypeOther {
		return false
	}
	u, err := url.Parse(e.Request.URL)
	return err == nil && u.Path == "/favicon.ico"
}

// grantPreflight answers a CORS preflight as a server that allows the
// request it asks about (the origin, the method and the headers it names).
func grantPreflight(c proto.Client, e *proto.FetchRequestPaused) error {
	get := func(name string) string { return headerOf(e.Request.Headers, name) }
	origin, method := get("Origin"), get("Access-Control-Request-Method")
	if origin == "" {
		origin = "*"
	}
	if method == "" {
		method = "GET, POST, OPTIONS, DELETE"
	}
	headers := []*proto.FetchHeaderEntry{
		{Name: "Access-Control-Allow-Origin", Value: origin},
		{Name: "Access-Control-Allow-Methods", Value: method},
		{Name: "Access-Control-Allow-Credentials", Value: "true"},
		{Name: "Vary", Value: "Origin"},
	}
	if asked := get("Access-Control-Request-Headers"); asked != "" {
		headers = append(headers, &proto.FetchHeaderEntry{Name: "Access-Control-Allow-Headers", Value: asked})
	}
	return proto.FetchFulfillRequest{RequestID: e.RequestID, ResponseCode: 204, ResponseHeaders: headers, Body: []byte{}}.Call(c)
}

// emptyBodyContinue is Fetch.continueRequest with an empty postData sent
// as such: rod's request omits an empty body, and Chromium then sends the
// original one.
type emptyBodyContinue struct {
	proto.FetchContinueRequest
	PostData string `json:"postData"`
}
