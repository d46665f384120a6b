package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"wright/browser"
	"wright/browser/cdpsession"
)

// cdpSessions are a connection's raw CDP sessions (Playwright's
// CDPSession); they end with the connection.
type cdpSessions struct {
	mu   sync.Mutex
	n    int
	byID map[string]*cdpsession.Session
}

// guardedCDP says whether the driver keeps guards that raw CDP would get
// past (a run's URL policy or secrets, a confined FileRoot); its sessions
// are then limited to what stays inside the page (cdpsession.Allowed, and
// checkGuardedParams for the params of what it allows).
func (s *Server) guardedCDP() bool {
	return s.opts.Browser.URLPolicy != nil || s.opts.Browser.Secrets != nil || s.opts.FileRoot != "" || s.sharedBrowser()
}

// cdpNewSession answers cdp.new_session: on a page, or with no page on
// the browser.
func cdpNewSession(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var np struct {
		Page string `json:"page"`
	}
	if err := decode(raw, &np); err != nil {
		return nil, err
	}
	b, err := c.s.browserParam("")
	if err != nil {
		return nil, err
	}
	target := ""
	if np.Page == "" && c.s.sharedBrowser() {
		// A session on the browser target of the warm browser would list,
		// and could attach to, the targets of every other client's context.
		return nil, browser.Errorf(browser.ErrBlockedURL, "new_browser_cdp_session: refused on the warm browser that this run's scripts share, whose targets are other scripts' too; use a page's CDP session (context.new_cdp_session(page))")
	}
	if np.Page != "" {
		p, err := c.s.page(np.Page)
		if err != nil {
			return nil, err
		}
		target = string(p.Rod().TargetID)
	}
	c.cdp.mu.Lock()
	c.cdp.n++
	id := fmt.Sprintf("c%d", c.cdp.n)
	c.cdp.mu.Unlock()
	sess, err := cdpsession.Attach(ctx, cdpsession.Options{
		DevToolsURL: b.DevToolsURL(), Target: target, Guarded: c.s.guardedCDP(),
		OnEvent:  func(method string, params json.RawMessage) { c.cdpEvent(id, method, params) },
		OnDetach: func() { c.cdpDetached(id) },
	})
	if err != nil {
		return nil, browser.WrapError(browser.ErrBrowser, err, "new CDP session: %v", err)
	}
	c.cdp.mu.Lock()
	if c.cdp.byID == nil {
		c.cdp.byID = map[string]*cdpsession.Session{}
	}
	c.cdp.byID[id] = sess
	c.cdp.mu.Unlock()
	return map[string]any{"session": id}, nil
}

func (c *conn) cdpSession(id string) (*cdpsession.Session, error) {
	c.cdp.mu.Lock()
	defer c.cdp.mu.Unlock()
	if s := c.cdp.byID[id]; s != nil {
		return s, nil
	}
	return nil, browser.Errorf(browser.ErrTargetClosed, "CDP session %q: %s", id, cdpsession.ErrDetached)
}

// cdpSend answers cdp.send.
func cdpSend(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var sp struct {
		Session string          `json:"session"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if err := decode(raw, &sp); err != nil {
		return nil, err
	}
	if sp.Method == "" {
		return nil, invalid("cdp.send needs a method (Domain.method, such as Runtime.evaluate)")
	}
	if p := bytes.TrimSpace(sp.Params); len(p) > 0 && p[0] != '{' && string(p) != "null" {
		return nil, invalid("cdp.send: params must be a JSON object")
	}
	s, err := c.cdpSession(sp.Session)
	if err != nil {
		return nil, err
	}
	if c.s.guardedCDP() {
		if err := checkGuardedParams(sp.Method, sp.Params); err != nil {
			return nil, browser.Errorf(browser.ErrBlockedURL, "%s", err)
		}
	}
	res, err := s.Send(ctx, sp.Method, sp.Params)
	switch {
	case errors.Is(err, cdpsession.ErrDetached):
		return nil, browser.Errorf(browser.ErrTargetClosed, "%s: %s", sp.Method, err)
	case errors.Is(err, cdpsession.ErrRefused):
		return nil, browser.Errorf(browser.ErrBlockedURL, "%s", err)
	case err != nil:
		return nil, browser.WrapError(browser.ErrBrowser, err, "%s", err)
	}
	return map[string]any{"result": res}, nil
}

// cdpDetach answers cdp.detach.
func cdpDetach(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var dp struct {
		Session string `json:"session"`
	}
	if err := decode(raw, &dp); err != nil {
		return nil, err
	}
	s, err := c.cdpSession(dp.Session)
	if err != nil {
		return nil, err
	}
	c.cdp.mu.Lock()
	delete(c.cdp.byID, dp.Session)
	c.cdp.mu.Unlock()
	if err := s.Detach(ctx); err != nil {
		return nil, browser.Errorf(browser.ErrTargetClosed, "CDP session %q: %s", dp.Session, err)
	}
	return nil, nil
}

// cdpEvent sends a session's event to the client as cdp.event, redacted
// like every answer.
func (c *conn) cdpEvent(id, method string, params json.RawMessage) {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	c.writeNotification("cdp.event", map[string]any{"session": id, "method": method, "params": params})
}

// cdpDetached tells the client a session ended by itself (its page closed).
func (c *conn) cdpDetached(id string) {
	c.writeNotification("cdp.detached", map[string]any{"session": id})
}

func (c *conn) writeNotification(method string, params any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(map[string]any{"jsonrpc": "2.0", "method": method, "params": params}) != nil {
		return
	}
	out := buf.Bytes()
	if src := c.s.opts.Browser.Secrets; src != nil {
		out = []byte(src.RedactReads(string(out)))
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(out)
}

// endCDPSessions detaches what the connection left attached.
func (c *conn) endCDPSessions() {
	c.cdp.mu.Lock()
	left := c.cdp.byID
	c.cdp.byID = nil
	c.cdp.mu.Unlock()
	for _, s := range left {
		_ = s.Detach(context.Background())
	}
}
