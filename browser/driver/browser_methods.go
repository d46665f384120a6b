package driver

import (
	"context"
	"encoding/json"
	"time"

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
	return map[string]any{"browser": id, "pages": pageIDs(b.Pages())}, nil
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
		list = append(list, map[string]any{"page": p.ID(), "url": p.URL(), "title": title, "opener": opener})
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
	return map[string]any{}, b.Close(ctx)
}

func pageIDs(ps []*browser.Page) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.ID())
	}
	return out
}
