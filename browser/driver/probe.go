package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"wright/browser"
	"wright/browser/probe"
)

// prober keeps track of the page a client used last and reads it at the
// end. Every method is safe on a nil *prober (no probe asked).
type prober struct {
	req *probe.Request

	mu      sync.Mutex
	last    string        // id of the page a request named last
	taken   *probe.Result // read just before the last open page closed
	written bool
}

func newProber(req *probe.Request) *prober {
	if req == nil {
		return nil
	}
	return &prober{req: req}
}

// touch records that a request acted on page id.
func (pr *prober) touch(id string) {
	if pr == nil {
		return
	}
	pr.mu.Lock()
	pr.last = id
	pr.mu.Unlock()
}

// beforeClose reads p if it is the last open page of b: after it closes
// there is nothing left to read.
func (pr *prober) beforeClose(ctx context.Context, b *browser.Browser, p *browser.Page) {
	if pr == nil || b == nil {
		return
	}
	for _, other := range b.Pages() {
		if other.ID() != p.ID() && other.Err() == nil {
			return
		}
	}
	r := pr.read(ctx, p, "last page closed")
	pr.mu.Lock()
	pr.taken = &r
	pr.mu.Unlock()
}

// finish reads the page used last (or the newest open one) when the script
// ends, falls back to what beforeClose read, and writes the result once.
func (pr *prober) finish(ctx context.Context, b *browser.Browser) error {
	if pr == nil {
		return nil
	}
	pr.mu.Lock()
	if pr.written {
		pr.mu.Unlock()
		return nil
	}
	pr.written = true
	last, taken := pr.last, pr.taken
	pr.mu.Unlock()
	var res *probe.Result
	if b != nil {
		p := b.Page(last)
		if p == nil || p.Err() != nil {
			p = nil
			for _, op := range b.Pages() {
				if op.Err() == nil {
					p = op
				}
			}
		}
		if p != nil {
			r := pr.read(ctx, p, "end")
			res = &r
		}
	}
	if res == nil {
		res = taken
	}
	if res == nil {
		res = &probe.Result{When: "no page was ever open"}
	}
	b2, err := json.Marshal(res)
	if err != nil {
		return err
	}
	tmp := pr.req.Out + ".tmp"
	if err := os.WriteFile(tmp, b2, 0o644); err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	return os.Rename(tmp, filepath.Clean(pr.req.Out))
}

func (pr *prober) read(ctx context.Context, p *browser.Page, when string) probe.Result {
	r := probe.Result{URL: p.URL(), When: when}
	for _, expr := range pr.req.Exprs {
		v, err := p.Evaluate(ctx, expr, nil, 10*time.Second)
		if err != nil {
			r.Values = append(r.Values, probe.Value{Err: err.Error()})
			continue
		}
		r.Values = append(r.Values, probe.Value{Value: v})
	}
	return r
}
