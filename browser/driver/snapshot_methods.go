package driver

import (
	"context"
	"encoding/base64"
	"time"

	"wright/browser"
)

func locatorScreenshot(ctx context.Context, l *browser.Locator, sp *struct {
	locatorParams
	Path string `json:"path"`
}, to time.Duration) (any, error) {
	if err := checkPath(sp.Path); err != nil {
		return nil, err
	}
	png, err := l.Screenshot(ctx, to)
	if err != nil {
		return nil, err
	}
	return saveImage(ctx, sp.Path, png)
}

func locatorAriaSnapshot(ctx context.Context, l *browser.Locator, ap *struct {
	locatorParams
	ariaParams
}, to time.Duration) (any, error) {
	snap, err := l.AriaSnapshot(ctx, ap.ariaParams.options(), to)
	return map[string]any{"snapshot": snap}, err
}

// pageScreenshot checks its path before the timeout, like pageWaitForURL.
func pageScreenshot(ctx context.Context, p *browser.Page, sp *struct {
	pageParams
	timeoutParams
	Path     string `json:"path"`
	FullPage bool   `json:"full_page"`
	Type     string `json:"type"`
	Quality  int    `json:"quality"`
	// Clip (CSS pixels), OmitBackground and Scale ("css" or "device") as in Playwright.
	Clip           *browser.ShotClip `json:"clip"`
	OmitBackground bool              `json:"omit_background"`
	Scale          string            `json:"scale"`
}) (any, error) {
	if err := checkPath(sp.Path); err != nil {
		return nil, err
	}
	to, err := sp.Timeout.duration()
	if err != nil {
		return nil, err
	}
	if sp.Scale != "" && sp.Scale != "css" && sp.Scale != "device" {
		return nil, invalid("screenshot scale must be \"css\" or \"device\", got %q", sp.Scale)
	}
	opts := browser.ShotOptions{FullPage: sp.FullPage, Format: sp.Type, Quality: sp.Quality, Clip: sp.Clip,
		OmitBackground: sp.OmitBackground, CSSScale: sp.Scale == "css"}
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
	return saveImage(ctx, sp.Path, img)
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

// saveImage writes a screenshot to path through the server's path policy,
// or answers it as base64 when no path is given.
func saveImage(ctx context.Context, path string, png []byte) (any, error) {
	if path == "" {
		return map[string]any{"data": base64.StdEncoding.EncodeToString(png)}, nil
	}
	if err := rootOf(ctx).writeFile("save screenshot", path, png); err != nil {
		return nil, err
	}
	return map[string]any{"path": path}, nil
}

// pagePDF answers page.pdf with the document's bytes; the client writes a
// path itself, so no file parameter reaches the driver.
func pagePDF(ctx context.Context, p *browser.Page, pp *struct {
	pageParams
	timeoutParams
	Scale               float64 `json:"scale"`
	DisplayHeaderFooter bool    `json:"display_header_footer"`
	HeaderTemplate      string  `json:"header_template"`
	FooterTemplate      string  `json:"footer_template"`
	PrintBackground     bool    `json:"print_background"`
	Landscape           bool    `json:"landscape"`
	PageRanges          string  `json:"page_ranges"`
	Width               float64 `json:"width"`
	Height              float64 `json:"height"`
	Margin              struct {
		Top    float64 `json:"top"`
		Right  float64 `json:"right"`
		Bottom float64 `json:"bottom"`
		Left   float64 `json:"left"`
	} `json:"margin"`
	PreferCSSPageSize bool `json:"prefer_css_page_size"`
	Outline           bool `json:"outline"`
	Tagged            bool `json:"tagged"`
}) (any, error) {
	to, err := pp.Timeout.duration()
	if err != nil {
		return nil, err
	}
	doc, err := p.PDF(ctx, browser.PDFOptions{
		Scale: pp.Scale, DisplayHeaderFooter: pp.DisplayHeaderFooter, HeaderTemplate: pp.HeaderTemplate,
		FooterTemplate: pp.FooterTemplate, PrintBackground: pp.PrintBackground, Landscape: pp.Landscape,
		PageRanges: pp.PageRanges, Width: pp.Width, Height: pp.Height, MarginTop: pp.Margin.Top,
		MarginRight: pp.Margin.Right, MarginBottom: pp.Margin.Bottom, MarginLeft: pp.Margin.Left,
		PreferCSSPageSize: pp.PreferCSSPageSize, Outline: pp.Outline, Tagged: pp.Tagged,
	}, to)
	if err != nil {
		return nil, err
	}
	return map[string]any{"data": base64.StdEncoding.EncodeToString(doc)}, nil
}
