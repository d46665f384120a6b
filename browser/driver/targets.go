package driver

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"wright/browser"
)

// The lookups every method starts from: the current browser, the page a
// request names, the locator it describes.

func (s *Server) current() (*browser.Browser, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.browser, s.browserID
}

func (s *Server) page(id string) (*browser.Page, error) {
	if id == "" {
		return nil, invalid("missing \"page\" (a page id such as p1)")
	}
	b, _ := s.current()
	if b == nil {
		return nil, invalid("no browser yet: call browser.launch first")
	}
	p := b.Page(id)
	if p == nil {
		var open []string
		for _, op := range b.Pages() {
			open = append(open, op.ID())
		}
		return nil, invalid("unknown page %q; open pages: %s", id, strings.Join(open, ", "))
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	s.probe.touch(id)
	return p, nil
}

func (s *Server) locator(lp locatorParams) (*browser.Locator, time.Duration, error) {
	p, err := s.page(lp.Page)
	if err != nil {
		return nil, 0, err
	}
	if lp.Selector == "" {
		return nil, 0, invalid("missing \"selector\"")
	}
	to, err := lp.Timeout.duration()
	if err != nil {
		return nil, 0, err
	}
	l, err := p.Locator(lp.Selector)
	return l, to, err
}

func (s *Server) browserParam(id string) (*browser.Browser, error) {
	b, bid := s.current()
	if b == nil {
		return nil, invalid("no browser yet: call browser.launch first")
	}
	if id != "" && id != bid {
		return nil, browser.Errorf(browser.ErrTargetClosed, "browser %q is gone; the current browser is %s", id, bid)
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	return b, nil
}

type launchParams struct {
	Headless    *bool             `json:"headless"`
	Viewport    *browser.Viewport `json:"viewport"`
	SlowMo      ms                `json:"slow_mo"`
	Timeout     ms                `json:"timeout"`
	Executable  string            `json:"executable"`
	CDPURL      string            `json:"cdp_url"`
	CDPHeaders  map[string]string `json:"cdp_headers"` // sent to cdp_url's endpoint only
	UserDataDir string            `json:"user_data_dir"`
	Args        []string          `json:"args"`
	Proxy       *browser.Proxy    `json:"proxy"` // Playwright's launch(proxy=...): a browser of its own
}

// launch starts the server's browser, or returns the live one it has.
func (s *Server) launch(ctx context.Context, lp launchParams) (*browser.Browser, string, error) {
	s.launchMu.Lock()
	defer s.launchMu.Unlock()
	if b, id := s.current(); b != nil && b.Err() == nil {
		return b, id, nil
	}
	opts, err := s.launchOptions(lp)
	if err != nil {
		return nil, "", err
	}
	if err := s.harLaunch(&opts); err != nil {
		return nil, "", err
	}
	lctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	shared := s.opts.Warm != nil && lp.plain()
	if shared {
		u, err := s.opts.Warm(lctx)
		if err != nil {
			return nil, "", browser.WrapError(browser.ErrBrowser, err, "start the warm browser: %v", err)
		}
		opts.CDPURL, opts.FreshContext, opts.OwnContextsOnly = u, true, true
		opts.Args = nil // the warm browser's flags are its own
	}
	b, err := browser.Launch(lctx, opts)
	if err != nil {
		return nil, "", err
	}
	s.mu.Lock()
	s.browsers++
	id := fmt.Sprintf("b%d", s.browsers)
	s.browser, s.browserID, s.shared = b, id, shared
	s.mu.Unlock()
	s.harLaunched(b, id)
	return b, id, nil
}

// plain says the launch asks for nothing a browser of its own would need,
// so a context of the warm browser serves it (ServerOptions.Warm).
func (lp launchParams) plain() bool {
	return (lp.Headless == nil || *lp.Headless) && lp.Executable == "" && lp.CDPURL == "" &&
		lp.UserDataDir == "" && len(lp.Args) == 0 && lp.Proxy == nil
}

// sharedBrowser says the current browser is a context of the warm one.
func (s *Server) sharedBrowser() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shared
}

// launchOptions are the server's defaults with the request's params over
// them; the URL policy is the server's alone.
func (s *Server) launchOptions(lp launchParams) (browser.Options, error) {
	opts := s.opts.Browser
	if lp.Headless != nil {
		opts.Headed = !*lp.Headless
	}
	if lp.Viewport != nil {
		if lp.Viewport.Width <= 0 || lp.Viewport.Height <= 0 {
			return opts, invalid("viewport needs positive width and height")
		}
		opts.Viewport = *lp.Viewport
	}
	var err error
	if lp.SlowMo != 0 {
		if opts.SlowMo, err = lp.SlowMo.duration(); err != nil {
			return opts, err
		}
	}
	if lp.Timeout != 0 {
		if opts.Timeout, err = lp.Timeout.duration(); err != nil {
			return opts, err
		}
	}
	if lp.Executable != "" {
		opts.Executable = lp.Executable
	}
	if lp.CDPURL != "" {
		// The headers go with the endpoint the request names, never to
		// one the server was configured with.
		opts.CDPURL, opts.CDPHeaders = lp.CDPURL, lp.CDPHeaders
	}
	if lp.UserDataDir != "" {
		if !filepath.IsAbs(lp.UserDataDir) {
			return opts, invalid("user_data_dir must be an absolute path, got %q", lp.UserDataDir)
		}
		opts.UserDataDir = lp.UserDataDir
	}
	opts.Args = append(append([]string{}, opts.Args...), lp.Args...)
	if lp.Proxy != nil {
		opts.Proxy = lp.Proxy // browser.Launch refuses it under the server's URL policy
	}
	opts.PageIDs = &s.pageIDs
	return opts, nil
}
