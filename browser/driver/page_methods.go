package driver

import (
	"context"
	"encoding/json"
	"time"

	"wright/browser"
	"wright/browser/apirequest"
)

func pageEmulateMedia(ctx context.Context, p *browser.Page, mp *struct {
	pageParams
	browser.Media
}) (any, error) {
	return nil, p.EmulateMedia(ctx, mp.Media)
}

// pageCloseBeforeUnload answers page.close_before_unload: Playwright's page.close(run_before_unload=True).
func pageCloseBeforeUnload(ctx context.Context, p *browser.Page, _ *pageParams) (any, error) {
	return nil, p.CloseRunningBeforeUnload(ctx)
}

// pageIgnoreHTTPSErrors answers page.ignore_https_errors.
func pageIgnoreHTTPSErrors(ctx context.Context, p *browser.Page, _ *pageParams) (any, error) {
	return nil, p.IgnoreHTTPSErrors(ctx)
}

// pageSetHTTPCredentials answers page.set_http_credentials.
func pageSetHTTPCredentials(ctx context.Context, p *browser.Page, cp *struct {
	pageParams
	HTTPCredentials *apirequest.Credentials `json:"http_credentials"`
}) (any, error) {
	return nil, p.SetHTTPCredentials(ctx, cp.HTTPCredentials)
}

// page.* methods.

func pageGoto(ctx context.Context, p *browser.Page, np *struct {
	navParams
	URL     string `json:"url"`
	Referer string `json:"referer"`
}, to time.Duration) (any, error) {
	res, err := p.GotoReferer(ctx, np.URL, np.Referer, browser.WaitUntil(np.WaitUntil), to)
	if err != nil {
		return nil, err
	}
	var status any
	if res.Status != 0 {
		status = res.Status
	}
	return map[string]any{"url": res.URL, "status": status}, nil
}

func pageReload(ctx context.Context, p *browser.Page, np *navParams, to time.Duration) (any, error) {
	u, err := p.Reload(ctx, browser.WaitUntil(np.WaitUntil), to)
	return map[string]any{"url": u}, err
}

func pageGoBack(ctx context.Context, p *browser.Page, np *navParams, to time.Duration) (any, error) {
	return history(p.GoBack(ctx, browser.WaitUntil(np.WaitUntil), to))
}

func pageGoForward(ctx context.Context, p *browser.Page, np *navParams, to time.Duration) (any, error) {
	return history(p.GoForward(ctx, browser.WaitUntil(np.WaitUntil), to))
}

// history answers go_back and go_forward: the new URL, or null when there
// was nowhere to go.
func history(u string, ok bool, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if !ok {
		return map[string]any{"url": nil}, nil
	}
	return map[string]any{"url": u}, nil
}

// pageURL answers page.url, for a page that has closed too: Playwright's
// page.url stays the URL the page last showed, which a "close" handler
// reads.
func pageURL(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var pp pageParams
	if err := decode(raw, &pp); err != nil {
		return nil, err
	}
	if b, _ := c.s.current(); b != nil && pp.Page != "" {
		if p := b.Page(pp.Page); p != nil && p.Err() != nil {
			return map[string]any{"url": p.URL()}, nil
		}
	}
	p, err := c.s.page(pp.Page)
	if err != nil {
		return nil, err
	}
	return map[string]any{"url": p.URL()}, nil
}

func pageTitle(ctx context.Context, p *browser.Page, _ *pageParams) (any, error) {
	t, err := p.Title(ctx)
	return map[string]any{"title": t}, err
}

func pageContent(ctx context.Context, p *browser.Page, _ *pageParams) (any, error) {
	h, err := p.Content(ctx)
	return map[string]any{"html": h}, err
}

func pageBringToFront(ctx context.Context, p *browser.Page, _ *pageParams) (any, error) {
	return nil, p.BringToFront(ctx)
}

// closePage closes a page; when a probe was asked for and this is the last
// open page, the page is read first.
func closePage(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var params pageParams
	if err := decode(raw, &params); err != nil {
		return nil, err
	}
	p, err := c.s.page(params.pageID())
	if err != nil {
		return nil, err
	}
	b, _ := c.s.current()
	c.s.probe.beforeClose(ctx, b, p)
	return nil, p.Close(ctx)
}

func pageWaitForLoadState(ctx context.Context, p *browser.Page, wp *struct {
	pageParams
	timeoutParams
	State string `json:"state"`
}, to time.Duration) (any, error) {
	return nil, p.WaitForLoadState(ctx, browser.WaitUntil(wp.State), to)
}

// pageWaitForURL checks its url before the timeout (the protocol's order
// of errors), so it converts the timeout itself.
func pageWaitForURL(ctx context.Context, p *browser.Page, wp *struct {
	navParams
	URL string `json:"url"`
}) (any, error) {
	if wp.URL == "" {
		return nil, invalid("missing \"url\" (exact, glob with * or **, or /regex/)")
	}
	to, err := wp.Timeout.duration()
	if err != nil {
		return nil, err
	}
	u, err := p.WaitForURL(ctx, wp.URL, browser.WaitUntil(wp.WaitUntil), to)
	return map[string]any{"url": u}, err
}

func pageWaitForSelector(ctx context.Context, l *browser.Locator, wp *struct {
	locatorParams
	State string `json:"state"`
}, to time.Duration) (any, error) {
	return nil, l.Page().WaitForSelector(ctx, wp.Selector, browser.ElementState(wp.State), to)
}

func pageSetViewportSize(ctx context.Context, p *browser.Page, vp *struct {
	pageParams
	Width  int `json:"width"`
	Height int `json:"height"`
}) (any, error) {
	return nil, p.SetViewportSize(ctx, vp.Width, vp.Height)
}

func pageConsoleMessages(ctx context.Context, p *browser.Page, cp *logParams) (any, error) {
	if cp.Filter == "since-navigation" {
		return map[string]any{"messages": p.ConsoleMessagesOfDocument(cp.Clear)}, nil
	}
	return map[string]any{"messages": p.ConsoleMessages(cp.Clear)}, nil
}

func pagePageErrors(ctx context.Context, p *browser.Page, cp *logParams) (any, error) {
	if cp.Filter == "since-navigation" {
		return map[string]any{"errors": p.PageErrorsOfDocument(cp.Clear)}, nil
	}
	return map[string]any{"errors": p.PageErrors(cp.Clear)}, nil
}

// logParams are a page log's: clear it after reading, and filter
// "since-navigation" for only the current document's entries.
type logParams struct {
	clearParams
	Filter string `json:"filter"`
}

func pageDialogs(ctx context.Context, p *browser.Page, cp *clearParams) (any, error) {
	return map[string]any{"dialogs": p.Dialogs(cp.Clear)}, nil
}

// pageEmulate answers page.emulate.
func pageEmulate(ctx context.Context, p *browser.Page, ep *struct {
	pageParams
	browser.Emulation
}) (any, error) {
	return nil, p.Emulate(ctx, ep.Emulation)
}
