package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"wright/browser"
)

// decode reads params into dst, refusing unknown fields so a misspelt
// parameter is an error rather than silently ignored.
func decode(raw json.RawMessage, dst any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "json: ")
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// The protocol's messages have always named the duration type
			// as it was called when the driver lived in package browser.
			msg = strings.Replace(msg, " of type driver.ms", " of type browser.ms", 1)
		}
		return invalid("bad params: %s", msg)
	}
	return nil
}

// invalid is an InvalidParams error: the client's request is wrong.
func invalid(format string, args ...any) error {
	return browser.Errorf(browser.ErrInvalidParams, format, args...)
}

// ms is a duration in milliseconds as the protocol sends it.
type ms float64

func (m ms) duration() (time.Duration, error) {
	if m < 0 {
		return 0, invalid("timeouts and delays are milliseconds >= 0, got %v", float64(m))
	}
	return time.Duration(float64(m) * float64(time.Millisecond)), nil
}

// The params structs keep the names (and stay anonymous where they were):
// decode's errors name them, and those messages are part of the protocol.

type pageParams struct {
	Page string `json:"page"`
}

type timeoutParams struct {
	Timeout ms `json:"timeout"`
}

type locatorParams struct {
	Page     string `json:"page"`
	Selector string `json:"selector"`
	Timeout  ms     `json:"timeout"`
}

type navParams struct {
	pageParams
	timeoutParams
	WaitUntil string `json:"wait_until"`
}

type ariaParams struct {
	InteractiveOnly bool `json:"interactive_only"`
	MaxDepth        int  `json:"max_depth"`
	MaxChars        int  `json:"max_chars"`
	NoRefs          bool `json:"no_refs"`
}

func (a ariaParams) options() browser.AriaOptions {
	return browser.AriaOptions{InteractiveOnly: a.InteractiveOnly, MaxDepth: a.MaxDepth, MaxChars: a.MaxChars, NoRefs: a.NoRefs}
}

type clearParams struct {
	pageParams
	Clear bool `json:"clear"`
}

type clickParams struct {
	locatorParams
	Button     string         `json:"button"`
	ClickCount int            `json:"click_count"`
	Delay      ms             `json:"delay"`
	Force      bool           `json:"force"`
	Modifiers  []string       `json:"modifiers"`
	Position   *browser.Point `json:"position"`
	Steps      int            `json:"steps"`
	Scroll     string         `json:"scroll"` // "none": act only where the element already is in view
	// NoWaitAfter: return without waiting for a navigation the click starts.
	NoWaitAfter bool `json:"no_wait_after"`
}

// These methods are promoted into every params struct that embeds the
// type, which is how the adapters reach the shared fields.
func (pp pageParams) pageID() string { return pp.Page }

func (tp timeoutParams) timeout() ms { return tp.Timeout }

func (lp locatorParams) locParams() locatorParams { return lp }

// handler answers one method.
type handler func(ctx context.Context, c *conn, params json.RawMessage) (any, error)

// The adapters below hold the steps every method starts with, so each
// handler is only its own params and the one call it makes. They also put
// the server's path policy in the context (withRoot), for the handlers
// that touch files and get no connection.

// onBrowser adapts a method of the browser named by an optional "browser".
func onBrowser(run func(ctx context.Context, b *browser.Browser) (any, error)) handler {
	return func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var bp struct {
			Browser string `json:"browser"`
		}
		if err := decode(raw, &bp); err != nil {
			return nil, err
		}
		b, err := c.s.browserParam(bp.Browser)
		if err != nil {
			return nil, err
		}
		return run(withRoot(ctx, c.s.files()), b)
	}
}

// onPage adapts a page method: it decodes the params, refusing unknown
// fields, and finds the page they name.
func onPage[P interface{ pageID() string }](run func(ctx context.Context, p *browser.Page, params *P) (any, error)) handler {
	return func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var params P
		if err := decode(raw, &params); err != nil {
			return nil, err
		}
		p, err := c.s.page(params.pageID())
		if err != nil {
			return nil, err
		}
		return run(withRoot(ctx, c.s.files()), p, &params)
	}
}

// onPageTimed is onPage for methods with a "timeout", which it converts
// after finding the page.
func onPageTimed[P interface {
	pageID() string
	timeout() ms
}](run func(ctx context.Context, p *browser.Page, params *P, to time.Duration) (any, error)) handler {
	return onPage(func(ctx context.Context, p *browser.Page, params *P) (any, error) {
		to, err := (*params).timeout().duration()
		if err != nil {
			return nil, err
		}
		return run(ctx, p, params, to)
	})
}

// onLocator adapts a method on the locator that "page" and "selector"
// name, passing on its converted "timeout".
func onLocator[P interface{ locParams() locatorParams }](run func(ctx context.Context, l *browser.Locator, params *P, to time.Duration) (any, error)) handler {
	return func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var params P
		if err := decode(raw, &params); err != nil {
			return nil, err
		}
		l, to, err := c.s.locator(params.locParams())
		if err != nil {
			return nil, err
		}
		return run(withRoot(ctx, c.s.files()), l, &params, to)
	}
}

// plain adapts the locator methods whose only params are the locator's own.
func plain(run func(ctx context.Context, l *browser.Locator, to time.Duration) (any, error)) handler {
	return onLocator(func(ctx context.Context, l *browser.Locator, _ *locatorParams, to time.Duration) (any, error) {
		return run(ctx, l, to)
	})
}

// value is the result of the many methods that answer a single value.
func value(v any, err error) (any, error) {
	return map[string]any{"value": v}, err
}

// oneOrMany reads a param that may be one item or a list.
func oneOrMany[T any](raw json.RawMessage, name string) ([]T, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one T
	if err := json.Unmarshal(raw, &one); err == nil {
		return []T{one}, nil
	}
	var many []T
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, invalid("%s must be one %T or a list of them", name, one)
	}
	return many, nil
}

func checkPath(path string) error {
	if path != "" && !filepath.IsAbs(path) {
		return invalid("path must be absolute (the client resolves relative paths), got %q", path)
	}
	return nil
}
