package browser

import (
	"context"
	"errors"
	"time"

	"wright/browser/aria"
)

// ---- aria snapshots ------------------------------------------------------------

// AriaOptions shape an ARIA snapshot; Ref or Selector scope it to one element.
type AriaOptions struct {
	InteractiveOnly bool
	MaxDepth        int
	MaxChars        int
	Ref             string
	Selector        string
	// NoRefs leaves out the [ref=eN] markers (Playwright's snapshot format,
	// for locator.aria_snapshot and to_match_aria_snapshot).
	NoRefs bool
}

// AriaSnapshot renders the page (or the scoped element) as ARIA snapshot
// YAML, with refs for the elements that can be acted on.
func (p *Page) AriaSnapshot(ctx context.Context, opts AriaOptions, timeout time.Duration) (string, error) {
	if opts.Ref != "" && opts.Selector != "" {
		return "", newErr(ErrInvalidParams, "give ref or selector, not both")
	}
	if opts.MaxDepth < 0 || opts.MaxChars < 0 {
		return "", newErr(ErrInvalidParams, "max_depth and max_chars must be 0 (no limit) or positive")
	}
	if err := p.closedErr(); err != nil {
		return "", err
	}
	var l *Locator
	if opts.Selector != "" {
		var err error
		if l, err = p.Locator(opts.Selector); err != nil {
			return "", err
		}
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	return p.ariaSnapshot(o, opts, l)
}

func (p *Page) ariaSnapshot(o *op, opts AriaOptions, l *Locator) (string, error) {
	ao := aria.Options{InteractiveOnly: opts.InteractiveOnly, MaxDepth: opts.MaxDepth, MaxChars: opts.MaxChars}
	var h handle
	var err error
	switch {
	case opts.Ref != "":
		h, err = p.resolveRef(o, opts.Ref)
	case l != nil:
		h, err = l.waitOne(o, stateAttached, "")
	}
	if err != nil {
		return "", o.fail(err, "")
	}
	if h.obj != "" {
		if ao.Scope, err = p.nodeID(o, h); err != nil {
			return "", o.fail(err, "")
		}
	}
	reg := p.aria
	if opts.NoRefs {
		reg = nil
	}
	snap, err := aria.Snapshot(o.ctx, p.rod, reg, ao)
	if err != nil {
		var stale *aria.StaleRefError
		if errors.As(err, &stale) {
			return "", wrapErr(ErrStaleRef, err, "%s", stale.Error())
		}
		if e := p.closedErr(); e != nil {
			return "", e
		}
		if o.ctx.Err() != nil {
			return "", o.fail(err, "taking the aria snapshot")
		}
		return "", wrapErr(ErrBrowser, err, "aria snapshot: %v", err)
	}
	return snap, nil
}

// AriaSnapshot renders the one element the locator matches.
func (l *Locator) AriaSnapshot(ctx context.Context, opts AriaOptions, timeout time.Duration) (string, error) {
	if opts.Ref != "" || opts.Selector != "" {
		return "", newErr(ErrInvalidParams, "locator.aria_snapshot is scoped by its selector; ref and selector are for page.aria_snapshot")
	}
	o := l.p.begin(ctx, timeout)
	defer o.end()
	return l.p.ariaSnapshot(o, opts, l)
}
