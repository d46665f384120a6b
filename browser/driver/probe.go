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
)

// ProbeEnv names the environment variable that asks `wright driver` for a
// probe: the path of a JSON ProbeRequest. The bench sets it when it reruns
// a final script, to read the page the script ended on.
const ProbeEnv = "WRIGHT_PROBE"

// ProbeRequest asks the driver to evaluate expressions on the page a script
// was last active on, when the script ends, and to write a ProbeResult.
type ProbeRequest struct {
	Exprs []string `json:"exprs"`
	Out   string   `json:"out"`
}

// ProbeResult is what the driver writes to ProbeRequest.Out.
type ProbeResult struct {
	URL    string       `json:"url"`
	Values []ProbeValue `json:"values"`
	// When says which moment was read: "end" (the script ended with the
	// page open) or "last page closed" (the script closed every page, and
	// the last one was read just before it closed).
	When string `json:"when"`
}

// ProbeValue is one expression's value or error.
type ProbeValue struct {
	Value json.RawMessage `json:"value,omitempty"`
	Err   string          `json:"error,omitempty"`
}

// LoadProbeRequest reads the request named by $WRIGHT_PROBE; nil when unset.
func LoadProbeRequest() (*ProbeRequest, error) {
	path := os.Getenv(ProbeEnv)
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ProbeEnv, err)
	}
	var r ProbeRequest
	if err := json.Unmarshal(b, &r); err != nil || r.Out == "" {
		return nil, fmt.Errorf("%s: %s is not a probe request with an out path", ProbeEnv, path)
	}
	return &r, nil
}

// prober keeps track of the page a client used last and reads it at the
// end. Every method is safe on a nil *prober (no probe asked).
type prober struct {
	req *ProbeRequest

	mu      sync.Mutex
	last    string       // id of the page a request named last
	taken   *ProbeResult // read just before the last open page closed
	written bool
}

func newProber(req *ProbeRequest) *prober {
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
	var res *ProbeResult
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
		res = &ProbeResult{When: "no page was ever open"}
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

func (pr *prober) read(ctx context.Context, p *browser.Page, when string) ProbeResult {
	r := ProbeResult{URL: p.URL(), When: when}
	for _, expr := range pr.req.Exprs {
		v, err := p.Evaluate(ctx, expr, nil, 10*time.Second)
		if err != nil {
			r.Values = append(r.Values, ProbeValue{Err: err.Error()})
			continue
		}
		r.Values = append(r.Values, ProbeValue{Value: v})
	}
	return r
}
