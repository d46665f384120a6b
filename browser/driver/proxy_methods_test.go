package driver

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"wright/browser"
)

// A driver with a URL policy (a run's) refuses a script's proxy, per
// launch and per context, and saying why; a proxy launch never takes the
// warm browser that other clients share.
func TestProxyRefusedUnderTheDriversPolicy(t *testing.T) {
	needBrowser(t)
	allow := func(string) error { return nil }
	var warmed atomic.Bool
	warm := func(context.Context) (string, error) {
		warmed.Store(true)
		return "", errors.New("no warm browser in this test")
	}
	c, _, _, _ := pipeDriverWith(t, ServerOptions{Browser: browser.Options{URLPolicy: allow}, Warm: warm})
	c.fail("browser.launch", map[string]any{"proxy": map[string]any{"server": "localhost:3128"}}, codeBadParams,
		browser.ErrInvalidParams, "refused", "URL policy")
	if warmed.Load() {
		t.Errorf("a launch with a proxy asked for the shared warm browser")
	}

	c, _, _, _ = pipeDriverWith(t, ServerOptions{Browser: browser.Options{URLPolicy: allow}})
	c.call("browser.launch", map[string]any{})
	c.fail("browser.new_context", map[string]any{"proxy": map[string]any{"server": "localhost:3128"}}, codeBadParams,
		browser.ErrInvalidParams, "refused", "URL policy")
	c.call("browser.new_context", map[string]any{}) // without a proxy, as before

	// A standalone driver (no policy) honours both.
	c, _, _, _ = pipeDriverWith(t, ServerOptions{})
	c.call("browser.launch", map[string]any{"proxy": map[string]any{"server": "localhost:3128", "bypass": "example.com"}})
	c.call("browser.new_context", map[string]any{"proxy": map[string]any{"server": "socks5://127.0.0.1:1080", "username": "u", "password": ""}})
	c.fail("browser.new_context", map[string]any{"proxy": map[string]any{"server": "ftp://127.0.0.1:21"}}, codeBadParams,
		browser.ErrInvalidParams, "scheme")
}
