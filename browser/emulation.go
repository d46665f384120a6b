package browser

import (
	"context"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

// Emulation is what a context's options change on each of its pages.
type Emulation struct {
	UserAgent         string            `json:"user_agent"`
	Locale            string            `json:"locale"`
	TimezoneID        string            `json:"timezone_id"`
	ExtraHTTPHeaders  map[string]string `json:"extra_http_headers"`
	JavaScriptEnabled *bool             `json:"java_script_enabled"`
	BypassCSP         bool              `json:"bypass_csp"`
	ColorScheme       string            `json:"color_scheme"`
	ReducedMotion     string            `json:"reduced_motion"`
	ForcedColors      string            `json:"forced_colors"`
	Contrast          string            `json:"contrast"`
	Offline           *bool             `json:"offline"`
	Geolocation       *struct {
		Latitude  float64  `json:"latitude"`
		Longitude float64  `json:"longitude"`
		Accuracy  *float64 `json:"accuracy"`
	} `json:"geolocation"`
	IsMobile          bool      `json:"is_mobile"`
	HasTouch          bool      `json:"has_touch"`
	DeviceScaleFactor float64   `json:"device_scale_factor"`
	Viewport          *Viewport `json:"viewport"`
}

// Emulate applies e to the page; fields left empty change nothing.
func (p *Page) Emulate(ctx context.Context, e Emulation) error {
	o := p.begin(ctx, 0)
	defer o.end()
	var calls []proto.Request
	if e.UserAgent != "" || e.Locale != "" {
		ua := e.UserAgent
		if ua == "" {
			v, err := proto.BrowserGetVersion{}.Call(o.rodPage())
			if err == nil {
				ua = v.UserAgent
			}
		}
		calls = append(calls, proto.NetworkSetUserAgentOverride{UserAgent: ua, AcceptLanguage: e.Locale})
	}
	if e.Locale != "" {
		calls = append(calls, proto.EmulationSetLocaleOverride{Locale: e.Locale})
	}
	if e.TimezoneID != "" {
		calls = append(calls, proto.EmulationSetTimezoneOverride{TimezoneID: e.TimezoneID})
	}
	if len(e.ExtraHTTPHeaders) > 0 {
		h := proto.NetworkHeaders{}
		for k, v := range e.ExtraHTTPHeaders {
			h[k] = gson.New(v)
		}
		calls = append(calls, proto.NetworkSetExtraHTTPHeaders{Headers: h})
	}
	if e.JavaScriptEnabled != nil && !*e.JavaScriptEnabled {
		calls = append(calls, proto.EmulationSetScriptExecutionDisabled{Value: true})
	}
	if e.BypassCSP {
		calls = append(calls, proto.PageSetBypassCSP{Enabled: true})
	}
	var features []*proto.EmulationMediaFeature
	for name, v := range map[string]string{"prefers-color-scheme": e.ColorScheme, "prefers-reduced-motion": e.ReducedMotion, "forced-colors": e.ForcedColors, "prefers-contrast": e.Contrast} {
		if v != "" {
			if v == "no-override" || v == "null" {
				v = ""
			}
			features = append(features, &proto.EmulationMediaFeature{Name: name, Value: v})
		}
	}
	if len(features) > 0 {
		calls = append(calls, proto.EmulationSetEmulatedMedia{Features: features})
	}
	if e.Offline != nil {
		calls = append(calls, proto.NetworkEmulateNetworkConditions{Offline: *e.Offline, Latency: 0, DownloadThroughput: -1, UploadThroughput: -1})
	}
	if g := e.Geolocation; g != nil {
		acc := 0.0
		if g.Accuracy != nil {
			acc = *g.Accuracy
		}
		calls = append(calls, proto.EmulationSetGeolocationOverride{Latitude: &g.Latitude, Longitude: &g.Longitude, Accuracy: &acc})
	}
	if e.IsMobile || e.HasTouch || e.DeviceScaleFactor > 0 || e.Viewport != nil {
		vp := p.b.opts.viewport()
		if e.Viewport != nil {
			vp = *e.Viewport
		}
		scale := e.DeviceScaleFactor
		if scale == 0 {
			scale = 1
		}
		calls = append(calls, proto.EmulationSetDeviceMetricsOverride{Width: vp.Width, Height: vp.Height, DeviceScaleFactor: scale, Mobile: e.IsMobile})
		if e.HasTouch {
			calls = append(calls, proto.EmulationSetTouchEmulationEnabled{Enabled: true})
		}
	}
	for _, c := range calls {
		if err := callCDP(o.rodPage(), c); err != nil {
			return wrapErr(ErrInvalidParams, err, "%s: %s", c.ProtoReq(), cdpMessage(err))
		}
	}
	return nil
}

// Media is the CSS media a page is rendered for (Playwright's
// emulate_media). Every field is set on each call: "" is no override.
type Media struct {
	Type          string `json:"media"` // screen or print
	ColorScheme   string `json:"color_scheme"`
	ReducedMotion string `json:"reduced_motion"`
	ForcedColors  string `json:"forced_colors"`
	Contrast      string `json:"contrast"`
}

// EmulateMedia renders the page for m, replacing what an earlier call set.
func (p *Page) EmulateMedia(ctx context.Context, m Media) error {
	if err := p.closedErr(); err != nil {
		return err
	}
	o := p.begin(ctx, 0)
	defer o.end()
	req := proto.EmulationSetEmulatedMedia{Media: noOverride(m.Type)}
	for _, f := range []struct{ name, value string }{{"prefers-color-scheme", m.ColorScheme},
		{"prefers-reduced-motion", m.ReducedMotion}, {"forced-colors", m.ForcedColors}, {"prefers-contrast", m.Contrast}} {
		req.Features = append(req.Features, &proto.EmulationMediaFeature{Name: f.name, Value: noOverride(f.value)})
	}
	if err := callCDP(o.rodPage(), req); err != nil {
		return o.fail(err, "emulating media")
	}
	return nil
}

func noOverride(v string) string {
	if v == "null" || v == "no-override" {
		return ""
	}
	return v
}

// *Page -> bool

// IgnoreHTTPSErrors makes the page accept any certificate, for its own
// loads and for request.fetch.
func (p *Page) IgnoreHTTPSErrors(ctx context.Context) error {
	o := p.begin(ctx, 0)
	defer o.end()
	if err := callCDP(o.rodPage(), proto.SecuritySetIgnoreCertificateErrors{Ignore: true}); err != nil {
		return o.fail(err, "ignoring certificate errors")
	}
	p.ignoreCertErr.Store(true)
	return nil
}

func (p *Page) ignoresHTTPSErrors() bool {
	return p.ignoreCertErr.Load()
}

// ---- page-level actions -------------------------------------------------------

// SetViewportSize resizes the page's viewport.
func (p *Page) SetViewportSize(ctx context.Context, width, height int) error {
	if width <= 0 || height <= 0 {
		return newErr(ErrInvalidParams, "viewport width and height must be positive, got %dx%d", width, height)
	}
	o := p.begin(ctx, 0)
	defer o.end()
	if err := callCDP(o.rodPage(), proto.EmulationSetDeviceMetricsOverride{Width: width, Height: height, DeviceScaleFactor: 1}); err != nil {
		return o.fail(err, "resizing the viewport")
	}
	return nil
}
