package browser

import (
	"context"
	"encoding/base64"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// The interception layer: every request a page makes that wright needs to
// see passes through decideRequest, in one place. First the URL policy
// (documents; a refused one fails with BlockedByClient), then, when a
// client routes the page's requests (page.route in Playwright), the client
// decides: the request stays paused until route.continue / route.fulfill /
// route.abort answers it. A future policy for subresources hooks in here.

// interceptPatterns are the Fetch patterns the page needs now.
func (p *Page) interceptPatterns() []*proto.FetchRequestPattern {
	if p.routing.Load() {
		pats := []*proto.FetchRequestPattern{{URLPattern: "*", RequestStage: proto.FetchRequestStageRequest}}
		if p.b.proxy != "" {
			pats = append(pats, &proto.FetchRequestPattern{URLPattern: "*", ResourceType: proto.NetworkResourceTypeDocument, RequestStage: proto.FetchRequestStageResponse})
		}
		return pats
	}
	var pats []*proto.FetchRequestPattern
	if p.b.opts.URLPolicy != nil {
		pats = append(pats, &proto.FetchRequestPattern{URLPattern: "*", ResourceType: proto.NetworkResourceTypeDocument, RequestStage: proto.FetchRequestStageRequest})
	}
	if p.b.proxy != "" {
		// The proxy's failure answers become net errors (neterror.go).
		pats = append(pats, &proto.FetchRequestPattern{URLPattern: "*", ResourceType: proto.NetworkResourceTypeDocument, RequestStage: proto.FetchRequestStageResponse})
	}
	return pats
}

// SetRouting turns the client's routing of every request on or off.
func (p *Page) SetRouting(ctx context.Context, on bool) error {
	p.routing.Store(on)
	o := p.begin(ctx, 0)
	defer o.end()
	var err error
	if pats := p.interceptPatterns(); pats != nil {
		err = callCDP(o.rodPage(), proto.FetchEnable{Patterns: pats})
	} else {
		err = callCDP(o.rodPage(), proto.FetchDisable{})
	}
	if err != nil {
		return o.fail(p.jsErr(err), "")
	}
	return nil
}

// decideRequest is the one place paused requests are decided.
func (p *Page) decideRequest(e *proto.FetchRequestPaused) {
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
	if pol := p.b.opts.URLPolicy; pol != nil && (doc || p.routing.Load()) {
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
	if p.routing.Load() && p.b.hasSubscribers() {
		params := map[string]any{
			"route": string(e.RequestID), "request": string(e.NetworkID), "url": e.Request.URL + e.Request.URLFragment,
			"method": e.Request.Method, "headers": e.Request.Headers, "resource_type": strings.ToLower(string(e.ResourceType)),
			"navigation": e.ResourceType == proto.NetworkResourceTypeDocument && e.FrameID == p.mainFrame(),
		}
		if e.Request.HasPostData {
			var data string
			for _, entry := range e.Request.PostDataEntries {
				data += string(entry.Bytes)
			}
			params["post_data"] = data
		}
		p.emit("page.route", params)
		return
	}
	_ = proto.FetchContinueRequest{RequestID: e.RequestID}.Call(r)
}

// RouteOverrides change a routed request that continues to the network.
type RouteOverrides struct {
	URL      string            `json:"url"`
	Method   string            `json:"method"`
	Headers  map[string]string `json:"headers"`
	PostData *string           `json:"post_data"` // base64
}

// ContinueRoute lets a routed request go on, with overrides. A changed URL
// must pass the URL policy too.
func (p *Page) ContinueRoute(ctx context.Context, id string, ov RouteOverrides) error {
	if ov.URL != "" && p.b.opts.URLPolicy != nil {
		if err := p.b.opts.URLPolicy(ov.URL); err != nil {
			p.refuseRewrite(ctx, id, ov.URL, err)
			return wrapErr(ErrBlockedURL, err, "route.continue to %s: %v", ov.URL, err)
		}
	}
	req := proto.FetchContinueRequest{RequestID: proto.FetchRequestID(id), URL: ov.URL, Method: ov.Method}
	if ov.Headers != nil {
		for k, v := range ov.Headers {
			req.Headers = append(req.Headers, &proto.FetchHeaderEntry{Name: k, Value: v})
		}
	}
	if ov.PostData != nil {
		req.PostData = []byte(mustB64(*ov.PostData))
	}
	return p.routeCall(ctx, req)
}

// FulfillRoute answers a routed request without the network.
func (p *Page) FulfillRoute(ctx context.Context, id string, status int, headers map[string]string, body string) error {
	if status == 0 {
		status = 200
	}
	req := proto.FetchFulfillRequest{RequestID: proto.FetchRequestID(id), ResponseCode: status, Body: []byte(mustB64(body))}
	for k, v := range headers {
		for _, line := range strings.Split(v, "\n") {
			req.ResponseHeaders = append(req.ResponseHeaders, &proto.FetchHeaderEntry{Name: k, Value: line})
		}
	}
	return p.routeCall(ctx, req)
}

// AbortRoute fails a routed request with a network error (Playwright's
// error codes: aborted, connectionrefused, ...).
func (p *Page) AbortRoute(ctx context.Context, id, code string) error {
	reason, ok := abortReasons[strings.ToLower(code)]
	if code == "" {
		reason, ok = proto.NetworkErrorReasonFailed, true
	}
	if !ok {
		return newErr(ErrInvalidParams, "unknown error code %q", code)
	}
	return p.routeCall(ctx, proto.FetchFailRequest{RequestID: proto.FetchRequestID(id), ErrorReason: reason})
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

func (p *Page) routeCall(ctx context.Context, req proto.Request) error {
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
func (p *Page) refuseRewrite(ctx context.Context, id, url string, err error) {
	p.recordBlocked(url, err)
	p.addConsole("error", "wright: blocked a request rewritten to "+url+" by the URL policy: "+err.Error(), "", 0)
	_ = p.routeCall(ctx, proto.FetchFailRequest{RequestID: proto.FetchRequestID(id), ErrorReason: proto.NetworkErrorReasonBlockedByClient})
}
