package browser

import (
	"context"

	"github.com/go-rod/rod/lib/proto"

	"wright/browser/apirequest"
)

// ContextDefaults is what a client's browser context gives each page that
// opens in it by itself (a popup, a tab opened from a link): the client
// applies the same to the pages it creates, but a popup must have them
// before its first script runs, which only the driver can do while the
// new target is held (targets.go).
type ContextDefaults struct {
	Emulation         *Emulation `json:"emulation"`
	InitScripts       []string   `json:"init_scripts"`
	Bindings          []string   `json:"bindings"`
	Routing           bool       `json:"routing"`
	IgnoreHTTPSErrors bool       `json:"ignore_https_errors"`
	// HTTPCredentials answer the context's HTTP auth challenges (its pages'
	// and its API requests'); nil: none.
	HTTPCredentials *apirequest.Credentials `json:"http_credentials"`
}

// SetContextDefaults records the defaults of the client's context id ("" is
// the default context); each call replaces the previous ones. They apply to
// the pages opened from then on.
func (b *Browser) SetContextDefaults(id string, d ContextDefaults) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ctxDefaults == nil {
		b.ctxDefaults = map[string]ContextDefaults{}
	}
	b.ctxDefaults[id] = d
}

// inheritContext puts a popup in its opener's context and gives it that
// context's defaults. It runs while the popup is still held, so they are in
// place before its first script.
func (b *Browser) inheritContext(ctx context.Context, p *Page) error {
	op := b.pageByID(p.opener)
	if op == nil {
		return nil
	}
	id := op.ContextID()
	p.setContextID(id)
	b.mu.Lock()
	d, ok := b.ctxDefaults[id]
	b.mu.Unlock()
	if !ok {
		return nil
	}
	if d.Emulation != nil {
		if err := p.Emulate(ctx, *d.Emulation); err != nil {
			return err
		}
	}
	if d.IgnoreHTTPSErrors {
		if err := p.IgnoreHTTPSErrors(ctx); err != nil {
			return err
		}
	}
	if d.HTTPCredentials != nil {
		// Before routing below, whose Fetch.enable then carries the auth handling too.
		p.router.auth.Store(d.HTTPCredentials)
		p.router.authOn.Store(true)
	}
	for _, s := range d.InitScripts {
		if _, err := p.AddInitScriptID(ctx, s); err != nil {
			return err
		}
	}
	for _, name := range d.Bindings {
		if err := p.ExposeBinding(ctx, name); err != nil {
			return err
		}
	}
	if d.Routing || d.HTTPCredentials != nil {
		return p.Router().Enable(ctx, d.Routing)
	}
	return nil
}

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
