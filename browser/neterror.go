package browser

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

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
