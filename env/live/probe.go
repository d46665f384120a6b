package live

import (
	"context"
	"errors"
	"time"

	"wright/env"
)

var _ env.Prober = (*Env)(nil)

// probeTimeout bounds each expression a bench evaluator sends.
const probeTimeout = 10 * time.Second

// Probe evaluates expressions on the page the model's `page` names (the
// one the run ended on) and reads its URL, for evaluators after the run.
func (e *Env) Probe(ctx context.Context, exprs []string) (env.Probe, error) {
	e.mu.Lock()
	id := e.pageID
	e.mu.Unlock()
	b := e.srv.Browser()
	if b == nil {
		return env.Probe{}, errors.New("probe: the browser is gone")
	}
	p := b.Page(id)
	if p == nil {
		// The named page was closed; the newest open one is what the user
		// would be looking at.
		pages := b.Pages()
		if len(pages) == 0 {
			return env.Probe{}, errors.New("probe: every page was closed")
		}
		p = pages[len(pages)-1]
	}
	out := env.Probe{URL: p.URL()}
	for _, expr := range exprs {
		v, err := p.Evaluate(ctx, expr, nil, probeTimeout)
		if err != nil {
			out.Values = append(out.Values, env.ProbeValue{Err: err.Error()})
			continue
		}
		out.Values = append(out.Values, env.ProbeValue{Value: v})
	}
	return out, nil
}
