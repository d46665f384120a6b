package driver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"time"
	"wright/browser"

	"github.com/go-rod/rod/lib/proto"
)

func init() { addPlaywrightHandlers() }

// addPlaywrightHandlers adds the methods the Playwright-compatible client
// builds on: calls with value transfer and handles, element handles, init
// scripts.
func addPlaywrightHandlers() {
	addEventHandlers()
	addInputHandlers()
	addBindingHandlers()
	addContextHandlers()
	addRouteHandlers()
	methods["js.call"] = onPageTimed(func(ctx context.Context, p *browser.Page, cp *struct {
		pageParams
		timeoutParams
		Source       string          `json:"source"`
		Arg          json.RawMessage `json:"arg"`
		Handles      []string        `json:"handles"`
		Element      string          `json:"element"`
		Context      string          `json:"context"`
		ReturnHandle bool            `json:"return_handle"`
	}, to time.Duration) (any, error) {
		return p.Call(ctx, browser.JSCall{Source: cp.Source, Arg: cp.Arg, Handles: cp.Handles, Element: cp.Element, Context: cp.Context, ReturnHandle: cp.ReturnHandle}, to)
	})
	methods["js.dispose"] = onPage(func(ctx context.Context, p *browser.Page, dp *struct {
		pageParams
		Handle string `json:"handle"`
	}) (any, error) {
		return nil, p.Dispose(ctx, dp.Handle)
	})
	methods["locator.element_handles"] = onLocator(func(ctx context.Context, l *browser.Locator, _ *locatorParams, to time.Duration) (any, error) {
		hs, err := l.ElementHandles(ctx, to)
		return map[string]any{"handles": hs}, err
	})
	methods["locator.evaluate_all"] = onLocator(func(ctx context.Context, l *browser.Locator, ep *struct {
		locatorParams
		Source  string          `json:"source"`
		Arg     json.RawMessage `json:"arg"`
		Handles []string        `json:"handles"`
	}, to time.Duration) (any, error) {
		return l.EvaluateAll(ctx, browser.JSCall{Source: ep.Source, Arg: ep.Arg, Handles: ep.Handles}, to)
	})
	methods["page.add_init_script"] = onPage(func(ctx context.Context, p *browser.Page, ip *struct {
		pageParams
		Source string `json:"source"`
	}) (any, error) {
		id, err := p.AddInitScriptID(ctx, ip.Source)
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": id}, nil
	})
}

// notify writes a JSON-RPC notification (no id) to the connection.
func (c *conn) notify(ev browser.Event) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "method": ev.Method, "params": ev.Params}); err != nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(buf.Bytes())
}

// endSubscription ends the connection's event subscription, if any.
func endSubscription(c *conn) {
	c.subMu.Lock()
	cancel := c.unsubscribe
	c.unsubscribe = nil
	c.subMu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func addEventHandlers() {
	methods["events.subscribe"] = func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var sp struct {
			Browser string `json:"browser"`
			Dialogs bool   `json:"dialogs"`
		}
		if err := decode(raw, &sp); err != nil {
			return nil, err
		}
		b, err := c.s.browserParam(sp.Browser)
		if err != nil {
			return nil, err
		}
		endSubscription(c)
		cancel := b.Subscribe(c.notify, sp.Dialogs)
		c.subMu.Lock()
		c.unsubscribe = cancel
		c.subMu.Unlock()
		return nil, nil
	}
	methods["events.unsubscribe"] = func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		endSubscription(c)
		return nil, nil
	}
	methods["page.dialog_answer"] = onPage(func(ctx context.Context, p *browser.Page, dp *struct {
		pageParams
		Accept     bool    `json:"accept"`
		PromptText *string `json:"prompt_text"`
	}) (any, error) {
		return nil, p.AnswerDialog(ctx, dp.Accept, dp.PromptText)
	})
	methods["network.response_body"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		Request string `json:"request"`
	}) (any, error) {
		body, err := p.ResponseBody(ctx, rp.Request)
		if err != nil {
			return nil, err
		}
		return map[string]any{"data": base64.StdEncoding.EncodeToString(body)}, nil
	})
}

func addInputHandlers() {
	type keyParams struct {
		pageParams
		Key string `json:"key"`
	}
	methods["page.keyboard.down"] = onPage(func(ctx context.Context, p *browser.Page, kp *keyParams) (any, error) {
		return nil, p.Keyboard().Down(ctx, kp.Key)
	})
	methods["page.keyboard.up"] = onPage(func(ctx context.Context, p *browser.Page, kp *keyParams) (any, error) {
		return nil, p.Keyboard().Up(ctx, kp.Key)
	})
	methods["page.keyboard.insert_text"] = onPage(func(ctx context.Context, p *browser.Page, tp *struct {
		pageParams
		Text string `json:"text"`
	}) (any, error) {
		return nil, p.Keyboard().InsertText(ctx, tp.Text)
	})
	type buttonParams struct {
		pageParams
		Button     browser.MouseButton `json:"button"`
		ClickCount int                 `json:"click_count"`
	}
	methods["page.mouse.down"] = onPage(func(ctx context.Context, p *browser.Page, bp *buttonParams) (any, error) {
		return nil, p.Mouse().Button(ctx, bp.Button, bp.ClickCount, true)
	})
	methods["page.mouse.up"] = onPage(func(ctx context.Context, p *browser.Page, bp *buttonParams) (any, error) {
		return nil, p.Mouse().Button(ctx, bp.Button, bp.ClickCount, false)
	})
	methods["page.mouse.move_steps"] = onPage(func(ctx context.Context, p *browser.Page, mp *struct {
		pageParams
		X     float64 `json:"x"`
		Y     float64 `json:"y"`
		Steps int     `json:"steps"`
	}) (any, error) {
		return nil, p.Mouse().MoveSteps(ctx, mp.X, mp.Y, mp.Steps)
	})
}

func addBindingHandlers() {
	methods["page.expose_binding"] = onPage(func(ctx context.Context, p *browser.Page, bp *struct {
		pageParams
		Name string `json:"name"`
	}) (any, error) {
		return nil, p.ExposeBinding(ctx, bp.Name)
	})
	methods["page.binding_result"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		Name    string          `json:"name"`
		Context int             `json:"context"`
		ID      int             `json:"id"`
		OK      bool            `json:"ok"`
		Value   json.RawMessage `json:"value"`
	}) (any, error) {
		return nil, p.SettleBinding(ctx, rp.Name, rp.Context, rp.ID, rp.OK, rp.Value)
	})
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

func addContextHandlers() {
	type ctxParams struct {
		Browser string `json:"browser"`
		Context string `json:"context"`
	}
	onContext := func(run func(ctx context.Context, b *browser.Browser, id string, raw json.RawMessage) (any, error)) handler {
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
			return run(ctx, b, cp.Context, raw)
		}
	}
	methods["browser.new_context"] = onContext(func(ctx context.Context, b *browser.Browser, _ string, raw json.RawMessage) (any, error) {
		var p ctxParams
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		id, err := b.NewContext(ctx)
		return map[string]any{"context": id}, err
	})
	methods["context.close"] = onContext(func(ctx context.Context, b *browser.Browser, id string, raw json.RawMessage) (any, error) {
		var p ctxParams
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		if id == "" {
			return nil, nil // the default context lives as long as the browser
		}
		return nil, b.CloseContext(ctx, id)
	})
	methods["context.new_page"] = onContext(func(ctx context.Context, b *browser.Browser, id string, raw json.RawMessage) (any, error) {
		var p ctxParams
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		pg, err := b.NewPageIn(ctx, id)
		if err != nil {
			return nil, err
		}
		return map[string]any{"page": pg.ID()}, nil
	})
	methods["context.cookies"] = onContext(func(ctx context.Context, b *browser.Browser, id string, raw json.RawMessage) (any, error) {
		var p ctxParams
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		cs, err := b.Cookies(ctx, id)
		if err != nil {
			return nil, err
		}
		out := make([]map[string]any, 0, len(cs))
		for _, c := range cs {
			out = append(out, cookieOut(c))
		}
		return map[string]any{"cookies": out}, nil
	})
	methods["context.add_cookies"] = onContext(func(ctx context.Context, b *browser.Browser, id string, raw json.RawMessage) (any, error) {
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
		return nil, b.SetCookies(ctx, id, params)
	})
	methods["context.clear_cookies"] = onContext(func(ctx context.Context, b *browser.Browser, id string, raw json.RawMessage) (any, error) {
		var p ctxParams
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		return nil, b.ClearCookies(ctx, id)
	})
	methods["context.grant_permissions"] = onContext(func(ctx context.Context, b *browser.Browser, id string, raw json.RawMessage) (any, error) {
		var p struct {
			ctxParams
			Permissions []string `json:"permissions"`
			Origin      string   `json:"origin"`
		}
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		return nil, b.GrantPermissions(ctx, id, p.Permissions, p.Origin)
	})
	methods["context.set_defaults"] = onContext(func(ctx context.Context, b *browser.Browser, id string, raw json.RawMessage) (any, error) {
		var p struct {
			ctxParams
			browser.ContextDefaults
		}
		if err := decode(raw, &p); err != nil {
			return nil, err
		}
		b.SetContextDefaults(id, p.ContextDefaults)
		return nil, nil
	})
	methods["page.emulate"] = onPage(func(ctx context.Context, p *browser.Page, ep *struct {
		pageParams
		browser.Emulation
	}) (any, error) {
		return nil, p.Emulate(ctx, ep.Emulation)
	})
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}

func addRouteHandlers() {
	methods["page.set_routing"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		pageParams
		Enabled bool `json:"enabled"`
	}) (any, error) {
		return nil, p.Router().Enable(ctx, rp.Enabled)
	})
	type routeParams struct {
		pageParams
		Route string `json:"route"`
	}
	methods["route.continue"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		routeParams
		browser.RouteOverrides
	}) (any, error) {
		return nil, p.Router().Continue(ctx, rp.Route, rp.RouteOverrides)
	})
	methods["route.fulfill"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		routeParams
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}) (any, error) {
		return nil, p.Router().Fulfill(ctx, rp.Route, rp.Status, rp.Headers, rp.Body)
	})
	methods["route.abort"] = onPage(func(ctx context.Context, p *browser.Page, rp *struct {
		routeParams
		ErrorCode string `json:"error_code"`
	}) (any, error) {
		return nil, p.Router().Abort(ctx, rp.Route, rp.ErrorCode)
	})
}
