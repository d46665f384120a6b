package mcp

import (
	"context"
	"fmt"
	"net/netip"

	"wright/agents/session"
	"wright/browser"
	"wright/run/config"
	"wright/trust/secrets"
)

// Sessions are browser sessions opened with the same options: each MCP
// session gets its own Chromium, driver and Python runner.
type Sessions struct{ Options session.Options }

// Tools are session's tools.
func (Sessions) Tools() []session.Tool { return session.Tools() }

// Open starts a session.
func (b Sessions) Open(ctx context.Context) (Browser, error) {
	s, err := session.Open(ctx, b.Options)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// SessionOptions are the browser session options a run's config gives: the
// browser, the URL policy, the secrets, the sandbox and the variables the
// runner must not inherit.
func SessionOptions(cfg *config.Config) (session.Options, error) {
	o := session.Options{
		Executable: cfg.Browser.Executable, CDPURL: cfg.Browser.CDPURL, Headed: !cfg.Browser.Headless,
		Viewport:       browser.Viewport{Width: cfg.Browser.Viewport.Width, Height: cfg.Browser.Viewport.Height},
		AllowedDomains: cfg.Browser.AllowedDomains, BlockedDomains: cfg.Browser.BlockedDomains,
		Sandbox: cfg.Env.Sandbox, HideEnv: cfg.KeyNames(),
	}
	for _, s := range cfg.Browser.AllowedPrivate {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return o, fmt.Errorf("browser.allowed_private: %q is not a CIDR range (e.g. 10.0.0.0/8)", s)
		}
		o.AllowPrivate = append(o.AllowPrivate, p.Masked())
	}
	if len(cfg.Secrets) > 0 {
		set, err := secrets.Load(cfg.Secrets)
		if err != nil {
			return o, err
		}
		o.Secrets = set
	}
	return o, nil
}
