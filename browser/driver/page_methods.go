package driver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"wright/browser"
)

// page.* methods.

func pageGoto(ctx context.Context, p *browser.Page, np *struct {
	navParams
	URL string `json:"url"`
}, to time.Duration) (any, error) {
	res, err := p.Goto(ctx, np.URL, browser.WaitUntil(np.WaitUntil), to)
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

func pageURL(ctx context.Context, p *browser.Page, _ *pageParams) (any, error) {
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

// pageScreenshot checks its path before the timeout, like pageWaitForURL.
func pageScreenshot(ctx context.Context, p *browser.Page, sp *struct {
	pageParams
	timeoutParams
	Path     string `json:"path"`
	FullPage bool   `json:"full_page"`
	Type     string `json:"type"`
	Quality  int    `json:"quality"`
}) (any, error) {
	if err := checkPath(sp.Path); err != nil {
		return nil, err
	}
	to, err := sp.Timeout.duration()
	if err != nil {
		return nil, err
	}
	opts := browser.ShotOptions{FullPage: sp.FullPage, Format: sp.Type, Quality: sp.Quality}
	if sp.Path == "" {
		// Sent on as Chromium encoded it: no decode and encode again.
		b64, err := p.CaptureBase64(ctx, opts, to)
		if err != nil {
			return nil, err
		}
		return map[string]any{"data": b64}, nil
	}
	img, err := p.Capture(ctx, opts, to)
	if err != nil {
		return nil, err
	}
	return saveImage(sp.Path, img)
}

func pageAriaSnapshot(ctx context.Context, p *browser.Page, ap *struct {
	pageParams
	timeoutParams
	ariaParams
	Ref      string `json:"ref"`
	Selector string `json:"selector"`
}, to time.Duration) (any, error) {
	opts := ap.ariaParams.options()
	opts.Ref, opts.Selector = ap.Ref, ap.Selector
	snap, err := p.AriaSnapshot(ctx, opts, to)
	return map[string]any{"snapshot": snap}, err
}

func pageEvaluate(ctx context.Context, p *browser.Page, ep *struct {
	pageParams
	timeoutParams
	Expression string          `json:"expression"`
	Arg        json.RawMessage `json:"arg"`
}, to time.Duration) (any, error) {
	return value(p.Evaluate(ctx, ep.Expression, ep.Arg, to))
}

func pageKeyboardPress(ctx context.Context, p *browser.Page, kp *struct {
	pageParams
	Key string `json:"key"`
}) (any, error) {
	return nil, p.Keyboard().Press(ctx, kp.Key)
}

func pageKeyboardType(ctx context.Context, p *browser.Page, kp *struct {
	pageParams
	Text  string `json:"text"`
	Delay ms     `json:"delay"`
}) (any, error) {
	d, err := kp.Delay.duration()
	if err != nil {
		return nil, err
	}
	return nil, p.Keyboard().Type(ctx, kp.Text, d)
}

func pageMouseClick(ctx context.Context, p *browser.Page, mp *struct {
	pageParams
	X          *float64 `json:"x"`
	Y          *float64 `json:"y"`
	Button     string   `json:"button"`
	ClickCount int      `json:"click_count"`
}) (any, error) {
	if mp.X == nil || mp.Y == nil {
		return nil, invalid("page.mouse.click needs x and y")
	}
	return nil, p.Mouse().Click(ctx, *mp.X, *mp.Y, browser.MouseButton(mp.Button), mp.ClickCount)
}

func pageMouseMove(ctx context.Context, p *browser.Page, mp *struct {
	pageParams
	X *float64 `json:"x"`
	Y *float64 `json:"y"`
}) (any, error) {
	if mp.X == nil || mp.Y == nil {
		return nil, invalid("page.mouse.move needs x and y")
	}
	return nil, p.Mouse().Move(ctx, *mp.X, *mp.Y)
}

func pageMouseWheel(ctx context.Context, p *browser.Page, mp *struct {
	pageParams
	DeltaX float64 `json:"delta_x"`
	DeltaY float64 `json:"delta_y"`
}) (any, error) {
	return nil, p.Mouse().Wheel(ctx, mp.DeltaX, mp.DeltaY)
}

func pageSetViewportSize(ctx context.Context, p *browser.Page, vp *struct {
	pageParams
	Width  int `json:"width"`
	Height int `json:"height"`
}) (any, error) {
	return nil, p.SetViewportSize(ctx, vp.Width, vp.Height)
}

func pageConsoleMessages(ctx context.Context, p *browser.Page, cp *clearParams) (any, error) {
	return map[string]any{"messages": p.ConsoleMessages(cp.Clear)}, nil
}

func pagePageErrors(ctx context.Context, p *browser.Page, cp *clearParams) (any, error) {
	return map[string]any{"errors": p.PageErrors(cp.Clear)}, nil
}

func pageDialogs(ctx context.Context, p *browser.Page, cp *clearParams) (any, error) {
	return map[string]any{"dialogs": p.Dialogs(cp.Clear)}, nil
}

// saveImage writes a screenshot to path, or answers it as base64 when no
// path is given.
func saveImage(path string, png []byte) (any, error) {
	if path == "" {
		return map[string]any{"data": base64.StdEncoding.EncodeToString(png)}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, browser.WrapError(browser.ErrBrowser, err, "save screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return nil, browser.WrapError(browser.ErrBrowser, err, "save screenshot: %v", err)
	}
	return map[string]any{"path": path}, nil
}
