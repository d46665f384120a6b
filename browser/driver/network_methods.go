package driver

import (
	"context"
	"encoding/base64"
	"time"

	"wright/browser"
)

// requestFetch answers request.fetch.
func requestFetch(ctx context.Context, p *browser.Page, fp *struct {
	pageParams
	timeoutParams
	URL          string            `json:"url"`
	Method       string            `json:"http_method"`
	Headers      map[string]string `json:"headers"`
	PostData     string            `json:"post_data"` // base64
	MaxRedirects *int              `json:"max_redirects"`
}, to time.Duration) (any, error) {
	data, err := base64.StdEncoding.DecodeString(fp.PostData)
	if err != nil {
		return nil, invalid("post_data must be base64: %v", err)
	}
	req := browser.FetchRequest{URL: fp.URL, Method: fp.Method, Headers: fp.Headers, PostData: data, MaxRedirects: -1}
	if fp.MaxRedirects != nil {
		req.MaxRedirects = *fp.MaxRedirects
	}
	return p.Fetch(ctx, req, to)
}

// networkResponseBody answers network.response_body.
func networkResponseBody(ctx context.Context, p *browser.Page, rp *struct {
	pageParams
	Request string `json:"request"`
}) (any, error) {
	body, err := p.ResponseBody(ctx, rp.Request)
	if err != nil {
		return nil, err
	}
	return map[string]any{"data": base64.StdEncoding.EncodeToString(body)}, nil
}

// pageSetRouting answers page.set_routing.
func pageSetRouting(ctx context.Context, p *browser.Page, rp *struct {
	pageParams
	Enabled bool `json:"enabled"`
}) (any, error) {
	return nil, p.Router().Enable(ctx, rp.Enabled)
}

type routeParams struct {
	pageParams
	Route string `json:"route"`
}

// routeContinue answers route.continue.
func routeContinue(ctx context.Context, p *browser.Page, rp *struct {
	routeParams
	browser.RouteOverrides
}) (any, error) {
	return nil, p.Router().Continue(ctx, rp.Route, rp.RouteOverrides)
}

// routeFulfill answers route.fulfill.
func routeFulfill(ctx context.Context, p *browser.Page, rp *struct {
	routeParams
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}) (any, error) {
	return nil, p.Router().Fulfill(ctx, rp.Route, rp.Status, rp.Headers, rp.Body)
}

// routeAbort answers route.abort.
func routeAbort(ctx context.Context, p *browser.Page, rp *struct {
	routeParams
	ErrorCode string `json:"error_code"`
}) (any, error) {
	return nil, p.Router().Abort(ctx, rp.Route, rp.ErrorCode)
}

// websocketCheck answers websocket.check (a WebSocket route connecting to
// its server).
func websocketCheck(ctx context.Context, p *browser.Page, wp *struct {
	pageParams
	URL string `json:"url"`
}) (any, error) {
	return nil, p.CheckWebSocket(wp.URL)
}
