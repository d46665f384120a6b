package browser

import (
	"context"

	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

// NewContext creates an isolated browser context (its own cookies, storage
// and cache) and returns its id.
func (b *Browser) NewContext(ctx context.Context) (string, error) {
	if err := b.alive(); err != nil {
		return "", err
	}
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	res, err := proto.TargetCreateBrowserContext{DisposeOnDetach: true}.Call(b.rod.Context(ctx))
	if err != nil {
		return "", b.targetErr(wrapErr(ErrBrowser, err, "create a browser context: %s", cdpMessage(err)))
	}
	return string(res.BrowserContextID), nil
}

// CloseContext disposes of a context and every page in it.
func (b *Browser) CloseContext(ctx context.Context, id string) error {
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	if err := (proto.TargetDisposeBrowserContext{BrowserContextID: proto.BrowserBrowserContextID(id)}).Call(b.rod.Context(ctx)); err != nil {
		return wrapErr(ErrBrowser, err, "close the browser context: %s", cdpMessage(err))
	}
	b.mu.Lock()
	delete(b.ctxDefaults, id)
	b.mu.Unlock()
	return nil
}

// NewPageIn opens a new tab at about:blank in the context id ("" is the
// default context).
func (b *Browser) NewPageIn(ctx context.Context, id string) (*Page, error) {
	if id == "" {
		return b.NewPage(ctx)
	}
	if err := b.alive(); err != nil {
		return nil, err
	}
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	b.adoptMu.Lock()
	defer b.adoptMu.Unlock()
	t, err := proto.TargetCreateTarget{URL: "about:blank", NewWindow: true, BrowserContextID: proto.BrowserBrowserContextID(id)}.Call(b.rod.Context(ctx))
	if err != nil {
		return nil, b.targetErr(wrapErr(ErrBrowser, err, "open a new tab: %s", cdpMessage(err)))
	}
	p, err := b.adopt(ctx, t.TargetID, "", kindCreated)
	if p != nil {
		p.setContextID(id)
	}
	return p, err
}

// Cookies lists the context's cookies ("" is the default context).
func (b *Browser) Cookies(ctx context.Context, id string) ([]*proto.NetworkCookie, error) {
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	res, err := proto.StorageGetCookies{BrowserContextID: proto.BrowserBrowserContextID(id)}.Call(b.rod.Context(ctx))
	if err != nil {
		return nil, wrapErr(ErrBrowser, err, "read cookies: %s", cdpMessage(err))
	}
	return res.Cookies, nil
}

// SetCookies adds cookies to the context.
func (b *Browser) SetCookies(ctx context.Context, id string, cookies []*proto.NetworkCookieParam) error {
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	if err := (proto.StorageSetCookies{Cookies: cookies, BrowserContextID: proto.BrowserBrowserContextID(id)}).Call(b.rod.Context(ctx)); err != nil {
		return wrapErr(ErrInvalidParams, err, "set cookies: %s", cdpMessage(err))
	}
	return nil
}

// ClearCookies removes every cookie of the context.
func (b *Browser) ClearCookies(ctx context.Context, id string) error {
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	if err := (proto.StorageClearCookies{BrowserContextID: proto.BrowserBrowserContextID(id)}).Call(b.rod.Context(ctx)); err != nil {
		return wrapErr(ErrBrowser, err, "clear cookies: %s", cdpMessage(err))
	}
	return nil
}

// GrantPermissions grants permissions (geolocation, notifications, ...) to
// origin (all origins when empty) in the context; none resets them.
func (b *Browser) GrantPermissions(ctx context.Context, id string, perms []string, origin string) error {
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	if len(perms) == 0 {
		if err := (proto.BrowserResetPermissions{BrowserContextID: proto.BrowserBrowserContextID(id)}).Call(b.rod.Context(ctx)); err != nil {
			return wrapErr(ErrBrowser, err, "reset permissions: %s", cdpMessage(err))
		}
		return nil
	}
	list := make([]proto.BrowserPermissionType, 0, len(perms))
	for _, p := range perms {
		list = append(list, permissionType(p))
	}
	if err := (proto.BrowserGrantPermissions{Permissions: list, Origin: origin, BrowserContextID: proto.BrowserBrowserContextID(id)}).Call(b.rod.Context(ctx)); err != nil {
		return wrapErr(ErrInvalidParams, err, "grant permissions: %s", cdpMessage(err))
	}
	return nil
}

// permissionType maps Playwright's permission names onto CDP's.
func permissionType(name string) proto.BrowserPermissionType {
	switch name {
	case "geolocation":
		return proto.BrowserPermissionTypeGeolocation
	case "notifications":
		return proto.BrowserPermissionTypeNotifications
	case "camera":
		return proto.BrowserPermissionTypeVideoCapture
	case "microphone":
		return proto.BrowserPermissionTypeAudioCapture
	case "clipboard-read":
		return proto.BrowserPermissionTypeClipboardReadWrite
	case "clipboard-write":
		return proto.BrowserPermissionTypeClipboardSanitizedWrite
	case "midi":
		return proto.BrowserPermissionTypeMidi
	case "midi-sysex":
		return proto.BrowserPermissionTypeMidiSysex
	case "background-sync":
		return proto.BrowserPermissionTypeBackgroundSync
	case "payment-handler":
		return proto.BrowserPermissionTypePaymentHandler
	case "storage-access":
		return proto.BrowserPermissionTypeStorageAccess
	}
	return proto.BrowserPermissionType(name)
}

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
	for name, v := range map[string]string{"prefers-color-scheme": e.ColorScheme, "prefers-reduced-motion": e.ReducedMotion, "forced-colors": e.ForcedColors} {
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
