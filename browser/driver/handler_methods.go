package driver

import (
	"context"
	"encoding/base64"
	"time"

	"wright/browser"
)

func init() { addLocatorHandlerMethods() }

// addLocatorHandlerMethods adds Playwright's locator handlers: the driver
// checks them before each action attempt and asks the client to run the
// one whose locator is visible (page.locator_handler events).
func addLocatorHandlerMethods() {
	methods["page.add_locator_handler"] = onPage(func(ctx context.Context, p *browser.Page, ap *struct {
		pageParams
		Selector    string `json:"selector"`
		Description string `json:"description"`
		NoWaitAfter bool   `json:"no_wait_after"`
	}) (any, error) {
		uid, err := p.LocatorHandlers().Add(ap.Selector, ap.Description, ap.NoWaitAfter)
		if err != nil {
			return nil, err
		}
		return map[string]any{"uid": uid}, nil
	})
	methods["page.remove_locator_handler"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		UID int `json:"uid"`
	}) (any, error) {
		p.LocatorHandlers().Remove(rp.UID)
		return nil, nil
	})
	methods["page.resolve_locator_handler"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		UID    int  `json:"uid"`
		Remove bool `json:"remove"`
	}) (any, error) {
		p.LocatorHandlers().Resolve(rp.UID, rp.Remove)
		return nil, nil
	})
	methods["request.fetch"] = onPageTimed(func(ctx context.Context, p *browser.Page, fp *struct {
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
	})
	methods["page.ignore_https_errors"] = onPage(func(ctx context.Context, p *browser.Page, _ *pageParams) (any, error) {
		return nil, p.IgnoreHTTPSErrors(ctx)
	})
	methods["page.run_locator_handlers"] = onPageTimed(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		timeoutParams
	}, to time.Duration) (any, error) {
		return nil, p.LocatorHandlers().Run(ctx, to)
	})
}
