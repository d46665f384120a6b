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
		return b.applyNamedScripts(ctx, p, id)
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
	if err := b.applyNamedScripts(ctx, p, id); err != nil {
		return err
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
	req := proto.TargetCreateBrowserContext{DisposeOnDetach: true}
	if b.opts.ContextProxy != "" {
		req.ProxyServer, req.ProxyBypassList = b.opts.ContextProxy, "<-loopback>"
	}
	res, err := req.Call(b.rod.Context(ctx))
	if err != nil {
		return "", b.targetErr(wrapErr(ErrBrowser, err, "create a browser context: %s", cdpMessage(err)))
	}
	id := string(res.BrowserContextID)
	b.mu.Lock()
	if b.own == nil {
		b.own = map[string]bool{}
	}
	b.own[id] = true
	b.mu.Unlock()
	return id, nil
}

// visible says whether a target is this client's to adopt: with
// OwnContextsOnly, only those in a context it created.
func (b *Browser) visible(t *proto.TargetTargetInfo) bool {
	if !b.opts.OwnContextsOnly {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.own[string(t.BrowserContextID)]
}

// CloseContext disposes of a context and every page in it.
func (b *Browser) CloseContext(ctx context.Context, id string) error {
	outer := ctx
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	if err := (proto.TargetDisposeBrowserContext{BrowserContextID: proto.BrowserBrowserContextID(id)}).Call(b.rod.Context(ctx)); err != nil {
		return wrapErr(ErrBrowser, err, "close the browser context: %s", cdpMessage(err))
	}
	b.mu.Lock()
	delete(b.ctxDefaults, id)
	delete(b.ctxScripts, id)
	pages := append([]*Page(nil), b.pages...)
	b.mu.Unlock()
	// Its pages' videos are whole when the close returns, as a page's are.
	for _, p := range pages {
		if p.ContextID() != id || p.Video() == nil {
			continue
		}
		for !p.isClosed() && ctx.Err() == nil {
			select {
			case <-p.changedChan():
			case <-ctx.Done():
			}
		}
		_ = p.waitVideo(outer)
	}
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
		if err == nil {
			err = b.applyNamedScripts(ctx, p, id)
		}
	}
	return p, err
}

// SetContextScript makes source the context's init script called name ("" is
// the default context): it replaces the script set under that name before, in
// every open page of the context, and every page opened in it from now on (a
// new tab, a popup) runs it before its first script. An empty source removes
// it. One call replaces a script that changes often (the fake clock's state,
// browser/clock) in all the context's pages at once.
func (b *Browser) SetContextScript(ctx context.Context, id, name, source string) error {
	b.mu.Lock()
	if b.ctxScripts == nil {
		b.ctxScripts = map[string]map[string]string{}
	}
	if b.ctxScripts[id] == nil {
		b.ctxScripts[id] = map[string]string{}
	}
	if source == "" {
		delete(b.ctxScripts[id], name)
	} else {
		b.ctxScripts[id][name] = source
	}
	b.mu.Unlock()
	for _, p := range b.Pages() {
		if p.ContextID() != id {
			continue
		}
		if err := p.setNamedScript(ctx, name, source); err != nil && p.closedErr() == nil {
			return err
		}
	}
	return nil
}

// applyNamedScripts gives a page that just opened in context id the
// context's named init scripts.
func (b *Browser) applyNamedScripts(ctx context.Context, p *Page, id string) error {
	b.mu.Lock()
	scripts := make(map[string]string, len(b.ctxScripts[id]))
	for name, source := range b.ctxScripts[id] {
		scripts[name] = source
	}
	b.mu.Unlock()
	for name, source := range scripts {
		if err := p.setNamedScript(ctx, name, source); err != nil {
			return err
		}
	}
	return nil
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
