package browser

import (
	"context"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"wright/browser/apirequest"
)

// Context is one browser context: its own cookies, storage and cache, the
// pages in it, and what the client set for it (the defaults its popups get,
// its named init scripts). The default context (ID "") is the browser's own
// and lives as long as the browser. Its methods are safe for concurrent use;
// AcceptDownloads is in files.go, APIClient in network.go.
type Context struct {
	b  *Browser
	id string // Chromium's browser context id; "" for the default context
	// cdp is the id CDP calls name: id, except for the default context of
	// a browser attached with Options.FreshContext, which is a context
	// created for it (Browser.freshDefault).
	cdp proto.BrowserBrowserContextID

	// Under b.mu, as the browser's pages are: a popup's context is decided
	// while the browser adopts it.
	own      bool              // NewContext created it (Options.OwnContextsOnly)
	defaults *ContextDefaults  // nil until SetDefaults; replaced, never changed in place
	scripts  map[string]string // the named init scripts, by name (SetScript)
	proxy    *Proxy            // its own proxy (NewContextWithProxy); nil: the browser's
}

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

// Context returns the browser context id names ("" is the default one). An
// id NewContext did not give (a context of an attached browser, a closed
// one, a mistyped id) is a Context all the same: what is asked of it goes
// to Chromium, which refuses it with its own message, as it always has.
func (b *Browser) Context(id string) *Context {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.contextLocked(id)
}

// contextLocked is Context with b.mu held: one Context per id, so what the
// client set on it is found again whichever way the context is reached.
func (b *Browser) contextLocked(id string) *Context {
	c := b.contexts[id]
	if c == nil {
		if b.contexts == nil {
			b.contexts = map[string]*Context{}
		}
		c = &Context{b: b, id: id, cdp: proto.BrowserBrowserContextID(id)}
		b.contexts[id] = c
	}
	return c
}

// DefaultContext is the browser's own context, the one NewPage opens in.
func (b *Browser) DefaultContext() *Context { return b.Context("") }

// NewContext creates an isolated browser context (its own cookies, storage
// and cache).
func (b *Browser) NewContext(ctx context.Context) (*Context, error) {
	return b.NewContextWithProxy(ctx, nil)
}

// freshDefault makes a new context the default one (Options.FreshContext).
func (b *Browser) freshDefault(ctx context.Context) error {
	id, err := b.createContext(ctx, nil)
	if err != nil {
		return err
	}
	b.mu.Lock()
	c := b.contextLocked("")
	c.cdp, c.own = id, true
	b.mu.Unlock()
	return nil
}

// disposeOwnContexts disposes of every context this client created, the
// fresh default one included (Close of an attached browser).
func (b *Browser) disposeOwnContexts(ctx context.Context) {
	b.mu.Lock()
	var ids []proto.BrowserBrowserContextID
	for _, c := range b.contexts {
		if c.own && c.cdp != "" {
			ids = append(ids, c.cdp)
		}
	}
	b.mu.Unlock()
	for _, id := range ids {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_ = proto.TargetDisposeBrowserContext{BrowserContextID: id}.Call(b.rod.Context(cctx))
		cancel()
	}
}

// createContext asks Chromium for an isolated context, through the
// client's policy proxy when it has one, else through px when given
// (proxy.go decides which may apply).
func (b *Browser) createContext(ctx context.Context, px *Proxy) (proto.BrowserBrowserContextID, error) {
	if err := b.alive(); err != nil {
		return "", err
	}
	server, bypass, err := b.contextProxy(px)
	if err != nil {
		return "", err
	}
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	req := proto.TargetCreateBrowserContext{DisposeOnDetach: true, ProxyServer: server, ProxyBypassList: bypass}
	res, err := req.Call(b.rod.Context(ctx))
	if err != nil {
		return "", b.targetErr(wrapErr(ErrBrowser, err, "create a browser context: %s", cdpMessage(err)))
	}
	return res.BrowserContextID, nil
}

// visible says whether a target is this client's to adopt: with
// OwnContextsOnly, only those in a context it created.
func (b *Browser) visible(t *proto.TargetTargetInfo) bool {
	if !b.opts.OwnContextsOnly {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if d := b.contexts[""]; d != nil && d.own && d.cdp == t.BrowserContextID {
		return true // the fresh default context (Options.FreshContext)
	}
	c := b.contexts[string(t.BrowserContextID)]
	return c != nil && c.own
}

// ID is Chromium's id of the context ("" for the default context).
func (c *Context) ID() string { return c.id }

// Browser is the browser the context is in.
func (c *Context) Browser() *Browser { return c.b }

// Pages returns the context's open pages in creation order.
func (c *Context) Pages() []*Page {
	var out []*Page
	for _, p := range c.b.Pages() {
		if p.ContextID() == c.id {
			out = append(out, p)
		}
	}
	return out
}

// SetDefaults records the context's defaults; each call replaces the
// previous ones. They apply to the pages opened from then on.
func (c *Context) SetDefaults(d ContextDefaults) {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	c.defaults = &d
}

// inheritContext puts a popup in its opener's context and gives it that
// context's defaults. It runs while the popup is still held, so they are in
// place before its first script.
func (b *Browser) inheritContext(ctx context.Context, p *Page) error {
	var c *Context
	if op := b.pageByID(p.opener); op != nil {
		c = op.Context()
	} else if c = b.ownContextOf(proto.BrowserBrowserContextID(p.browserContext())); c == nil {
		return nil
	}
	p.setContextID(c.id)
	return c.applyDefaults(ctx, p)
}

// ownContextOf is the context with Chromium's id cdp, when the client made
// it (nil for Chromium's own default context and for unknown ones).
func (b *Browser) ownContextOf(cdp proto.BrowserBrowserContextID) *Context {
	if cdp == "" {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.contexts {
		if c.cdp == cdp {
			return c
		}
	}
	return nil
}

// applyDefaults gives a page that opened by itself in the context the
// context's defaults and named init scripts.
func (c *Context) applyDefaults(ctx context.Context, p *Page) error {
	c.b.mu.Lock()
	d := c.defaults
	c.b.mu.Unlock()
	if d == nil {
		return c.applyScripts(ctx, p)
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
	if err := c.applyScripts(ctx, p); err != nil {
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

// defaultsValue is a copy of the context's defaults, the zero ones when
// none were set.
func (c *Context) defaultsValue() ContextDefaults {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if c.defaults == nil {
		return ContextDefaults{}
	}
	return *c.defaults
}

// Close disposes of the context and every page in it. The default context
// lives as long as the browser: closing it does nothing.
func (c *Context) Close(ctx context.Context) error {
	if c.id == "" {
		return nil
	}
	b := c.b
	outer := ctx
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	if err := (proto.TargetDisposeBrowserContext{BrowserContextID: c.cdp}).Call(b.rod.Context(ctx)); err != nil {
		return wrapErr(ErrBrowser, err, "close the browser context: %s", cdpMessage(err))
	}
	b.mu.Lock()
	c.defaults, c.scripts = nil, nil
	pages := append([]*Page(nil), b.pages...) // closed ones too: their videos may still be written
	b.mu.Unlock()
	// Its pages' videos are whole when the close returns, as a page's are.
	for _, p := range pages {
		if p.ContextID() != c.id || p.Video() == nil {
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

// NewPage opens a new tab at about:blank in the context.
func (c *Context) NewPage(ctx context.Context) (*Page, error) {
	b := c.b
	if err := b.alive(); err != nil {
		return nil, err
	}
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	b.adoptMu.Lock()
	defer b.adoptMu.Unlock()
	// A window of its own keeps each page visible while another is used.
	t, err := proto.TargetCreateTarget{URL: "about:blank", NewWindow: true, BrowserContextID: c.cdp}.Call(b.rod.Context(ctx))
	if err != nil {
		return nil, b.targetErr(wrapErr(ErrBrowser, err, "open a new tab: %s", cdpMessage(err)))
	}
	p, err := b.adopt(ctx, t.TargetID, "", kindCreated)
	if p != nil {
		p.setContextID(c.id)
		if err == nil {
			err = c.applyScripts(ctx, p)
		}
	}
	return p, err
}

// SetScript makes source the context's init script called name: it replaces
// the script set under that name before, in every open page of the context,
// and every page opened in it from now on (a new tab, a popup) runs it
// before its first script. An empty source removes it. One call replaces a
// script that changes often (the fake clock's state, browser/clock) in all
// the context's pages at once.
func (c *Context) SetScript(ctx context.Context, name, source string) error {
	c.b.mu.Lock()
	if c.scripts == nil {
		c.scripts = map[string]string{}
	}
	if source == "" {
		delete(c.scripts, name)
	} else {
		c.scripts[name] = source
	}
	c.b.mu.Unlock()
	for _, p := range c.Pages() {
		if err := p.setNamedScript(ctx, name, source); err != nil && p.closedErr() == nil {
			return err
		}
	}
	return nil
}

// applyScripts gives a page that just opened in the context the context's
// named init scripts.
func (c *Context) applyScripts(ctx context.Context, p *Page) error {
	c.b.mu.Lock()
	scripts := make(map[string]string, len(c.scripts))
	for name, source := range c.scripts {
		scripts[name] = source
	}
	c.b.mu.Unlock()
	for name, source := range scripts {
		if err := p.setNamedScript(ctx, name, source); err != nil {
			return err
		}
	}
	return nil
}

// Cookies lists the context's cookies.
func (c *Context) Cookies(ctx context.Context) ([]*proto.NetworkCookie, error) {
	ctx, cancel := c.b.opContext(ctx, 0)
	defer cancel()
	res, err := proto.StorageGetCookies{BrowserContextID: c.cdp}.Call(c.b.rod.Context(ctx))
	if err != nil {
		return nil, wrapErr(ErrBrowser, err, "read cookies: %s", cdpMessage(err))
	}
	return res.Cookies, nil
}

// SetCookies adds cookies to the context.
func (c *Context) SetCookies(ctx context.Context, cookies []*proto.NetworkCookieParam) error {
	ctx, cancel := c.b.opContext(ctx, 0)
	defer cancel()
	if err := (proto.StorageSetCookies{Cookies: cookies, BrowserContextID: c.cdp}).Call(c.b.rod.Context(ctx)); err != nil {
		return wrapErr(ErrInvalidParams, err, "set cookies: %s", cdpMessage(err))
	}
	return nil
}

// ClearCookies removes every cookie of the context.
func (c *Context) ClearCookies(ctx context.Context) error {
	ctx, cancel := c.b.opContext(ctx, 0)
	defer cancel()
	if err := (proto.StorageClearCookies{BrowserContextID: c.cdp}).Call(c.b.rod.Context(ctx)); err != nil {
		return wrapErr(ErrBrowser, err, "clear cookies: %s", cdpMessage(err))
	}
	return nil
}

// GrantPermissions grants permissions (geolocation, notifications, ...) to
// origin (all origins when empty) in the context; none resets them.
func (c *Context) GrantPermissions(ctx context.Context, perms []string, origin string) error {
	ctx, cancel := c.b.opContext(ctx, 0)
	defer cancel()
	id := c.cdp
	if len(perms) == 0 {
		if err := (proto.BrowserResetPermissions{BrowserContextID: id}).Call(c.b.rod.Context(ctx)); err != nil {
			return wrapErr(ErrBrowser, err, "reset permissions: %s", cdpMessage(err))
		}
		return nil
	}
	list := make([]proto.BrowserPermissionType, 0, len(perms))
	for _, p := range perms {
		list = append(list, permissionType(p))
	}
	if err := (proto.BrowserGrantPermissions{Permissions: list, Origin: origin, BrowserContextID: id}).Call(c.b.rod.Context(ctx)); err != nil {
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
