package driver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"wright/browser"
)

func init() {
	// page.frame_owner: a handle on the element holding a frame the client
	// learned of from page.frameattached (Playwright's Frame objects).
	methods["page.frame_owner"] = onPage(func(ctx context.Context, p *browser.Page, fp *struct {
		pageParams
		Frame string `json:"frame"`
	}) (any, error) {
		h, err := p.FrameOwner(ctx, fp.Frame)
		if err != nil {
			return nil, err
		}
		return map[string]any{"handle": h}, nil
	})
}

func init() {
	// request.fetch: Playwright's APIRequestContext (page.request.get(...)),
	// made by the driver so that the URL policy and the context's cookies
	// apply.
	methods["request.fetch"] = func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var p struct {
			Browser           string            `json:"browser"`
			Context           string            `json:"context"`
			URL               string            `json:"url"`
			Method            string            `json:"method"`
			Headers           map[string]string `json:"headers"`
			PostData          string            `json:"post_data"` // base64
			Timeout           ms                `json:"timeout"`
			MaxRedirects      int               `json:"max_redirects"`
			IgnoreHTTPSErrors bool              `json:"ignore_https_errors"`
		}
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		b, err := c.s.browserParam(p.Browser)
		if err != nil {
			return nil, err
		}
		body, err := base64.StdEncoding.DecodeString(p.PostData)
		if err != nil {
			return nil, browser.Errorf(browser.ErrInvalidParams, "post_data must be base64: %v", err)
		}
		to, err := p.Timeout.duration()
		if err != nil {
			return nil, err
		}
		r, err := b.Fetch(ctx, browser.FetchRequest{Context: p.Context, URL: p.URL, Method: p.Method, Headers: p.Headers,
			Body: body, Timeout: to, MaxRedirects: p.MaxRedirects, IgnoreHTTPSErrors: p.IgnoreHTTPSErrors})
		if err != nil {
			return nil, err
		}
		headers := make([]map[string]string, 0, len(r.Headers))
		for _, h := range r.Headers {
			headers = append(headers, map[string]string{"name": h[0], "value": h[1]})
		}
		return map[string]any{"url": r.URL, "status": r.Status, "status_text": r.StatusText, "headers": headers,
			"body": base64.StdEncoding.EncodeToString(r.Body)}, nil
	}
}

func init() {
	methods["page.remove_init_script"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		ID string `json:"id"`
	}) (any, error) {
		return nil, p.RemoveInitScript(ctx, rp.ID)
	})
}
