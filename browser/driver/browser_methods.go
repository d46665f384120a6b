package driver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"wright/browser"
)

// browser.* methods.

func browserLaunch(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var lp launchParams
	if err := decode(raw, &lp); err != nil {
		return nil, err
	}
	b, id, err := c.s.launch(ctx, lp)
	if err != nil {
		return nil, err
	}
	res := map[string]any{"browser": id, "pages": pageIDs(b.Pages())}
	// Playwright's browser.version; a browser that cannot say is still launched.
	if v, err := b.Version(ctx); err == nil {
		res["version"] = v
	}
	return res, nil
}

func browserNewPage(ctx context.Context, b *browser.Browser) (any, error) {
	p, err := b.NewPage(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"page": p.ID()}, nil
}

func browserPages(ctx context.Context, b *browser.Browser) (any, error) {
	list := []map[string]any{}
	for _, p := range b.Pages() {
		tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		title, _ := p.Title(tctx)
		cancel()
		var opener any
		if p.Opener() != "" {
			opener = p.Opener()
		}
		// context lets a client of a browser it attached to place the tabs
		// that others opened there since (Playwright lists them in the
		// browser's default context).
		list = append(list, map[string]any{"page": p.ID(), "url": p.URL(), "title": title, "opener": opener, "context": p.ContextID()})
	}
	return map[string]any{"pages": list}, nil
}

// browserClose closes the current browser; closing one that is already
// gone is not an error.
func browserClose(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var bp struct {
		Browser string `json:"browser"`
	}
	if err := decode(raw, &bp); err != nil {
		return nil, err
	}
	b, bid := c.s.current()
	if b == nil || (bp.Browser != "" && bp.Browser != bid) {
		return map[string]any{}, nil // nothing to close
	}
	if err := c.s.probe.finish(ctx, b); err != nil {
		c.s.logf("%v", err)
	}
	return map[string]any{}, b.Close(ctx)
}

func pageIDs(ps []*browser.Page) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.ID())
	}
	return out
}

// cookieOut is a cookie in Playwright's shape.
func cookieOut(c *proto.NetworkCookie) map[string]any {
	same := string(c.SameSite)
	if same == "" {
		same = "Lax"
	}
	expires := c.Expires
	if c.Session {
		expires = -1
	}
	return map[string]any{"name": c.Name, "value": c.Value, "domain": c.Domain, "path": c.Path, "expires": expires,
		"httpOnly": c.HTTPOnly, "secure": c.Secure, "sameSite": same}
}

type cookieIn struct {
	Name     string   `json:"name"`
	Value    string   `json:"value"`
	URL      string   `json:"url"`
	Domain   string   `json:"domain"`
	Path     string   `json:"path"`
	Expires  *float64 `json:"expires"`
	HTTPOnly bool     `json:"httpOnly"`
	Secure   bool     `json:"secure"`
	SameSite string   `json:"sameSite"`
}

func (c cookieIn) param() (*proto.NetworkCookieParam, error) {
	if c.URL == "" && (c.Domain == "" || c.Path == "") {
		return nil, browser.Errorf(browser.ErrInvalidParams, "cookie %q needs a url, or a domain and a path", c.Name)
	}
	p := &proto.NetworkCookieParam{Name: c.Name, Value: c.Value, URL: c.URL, Domain: c.Domain, Path: c.Path,
		HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: proto.NetworkCookieSameSite(c.SameSite)}
	if c.Expires != nil && *c.Expires > 0 {
		t := proto.TimeSinceEpoch(*c.Expires)
		p.Expires = t
	}
	return p, nil
}

type ctxParams struct {
	Browser string `json:"browser"`
	Context string `json:"context"`
}

// onContext adapts a method of the browser context that an optional
// "browser" and "context" name ("" the default context). It reads only
// those two before finding the context; the handler decodes the params
// itself, refusing unknown fields.
func onContext(run func(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error)) handler {
	return func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var cp struct {
			Browser string `json:"browser"`
			Context string `json:"context"`
		}
		if err := json.Unmarshal(orEmpty(raw), &cp); err != nil {
			return nil, browser.Errorf(browser.ErrInvalidParams, "bad params: %v", err)
		}
		b, err := c.s.browserParam(cp.Browser)
		if err != nil {
			return nil, err
		}
		return run(ctx, b.Context(cp.Context), raw)
	}
}

// browserNewContext answers browser.new_context.
func browserNewContext(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error) {
	var p struct {
		ctxParams
		Proxy *browser.Proxy `json:"proxy"` // refused where the browser's network is a run's (package browser)
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	nc, err := bc.Browser().NewContextWithProxy(ctx, p.Proxy)
	if err != nil {
		return nil, err
	}
	return map[string]any{"context": nc.ID()}, nil
}

// contextClose answers context.close (the default context lives as long as
// the browser: closing it does nothing).
func contextClose(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error) {
	var p ctxParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return nil, bc.Close(ctx)
}

// contextNewPage answers context.new_page.
func contextNewPage(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error) {
	var p ctxParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	pg, err := bc.NewPage(ctx)
	if err != nil {
		return nil, err
	}
	return map[string]any{"page": pg.ID()}, nil
}

// contextCookies answers context.cookies.
func contextCookies(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error) {
	var p ctxParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	cs, err := bc.Cookies(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(cs))
	for _, c := range cs {
		out = append(out, cookieOut(c))
	}
	return map[string]any{"cookies": out}, nil
}

// contextAddCookies answers context.add_cookies.
func contextAddCookies(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error) {
	var p struct {
		ctxParams
		Cookies []cookieIn `json:"cookies"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	params := make([]*proto.NetworkCookieParam, 0, len(p.Cookies))
	for _, c := range p.Cookies {
		cp, err := c.param()
		if err != nil {
			return nil, err
		}
		params = append(params, cp)
	}
	return nil, bc.SetCookies(ctx, params)
}

// contextClearCookies answers context.clear_cookies.
func contextClearCookies(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error) {
	var p ctxParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return nil, bc.ClearCookies(ctx)
}

// contextGrantPermissions answers context.grant_permissions.
func contextGrantPermissions(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error) {
	var p struct {
		ctxParams
		Permissions []string `json:"permissions"`
		Origin      string   `json:"origin"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	return nil, bc.GrantPermissions(ctx, p.Permissions, p.Origin)
}

// contextSetDefaults answers context.set_defaults.
func contextSetDefaults(ctx context.Context, bc *browser.Context, raw json.RawMessage) (any, error) {
	var p struct {
		ctxParams
		browser.ContextDefaults
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	bc.SetDefaults(p.ContextDefaults)
	return nil, nil
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}

// selectorsRegister answers selectors.register.
func selectorsRegister(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var sp struct {
		Browser       string `json:"browser"`
		Name          string `json:"name"`
		Source        string `json:"source"`
		ContentScript bool   `json:"content_script"`
	}
	if err := decode(raw, &sp); err != nil {
		return nil, err
	}
	b, err := c.s.browserParam(sp.Browser)
	if err != nil {
		return nil, err
	}
	return map[string]any{}, b.RegisterSelectorEngine(sp.Name, sp.Source, sp.ContentScript)
}
