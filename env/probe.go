package env

import (
	"context"
	"encoding/json"
)

// Probe is what a run's last page showed evaluators after the run: its URL
// and the value of each expression asked for, in order.
type Probe struct {
	URL    string       `json:"url"`
	Values []ProbeValue `json:"values"`
}

// ProbeValue is one expression's JSON value, or why it has none.
type ProbeValue struct {
	Value json.RawMessage `json:"value,omitempty"`
	Err   string          `json:"error,omitempty"`
}

// Prober is an environment with a live page that evaluators can read once
// the run has ended and before the environment closes.
type Prober interface {
	Probe(ctx context.Context, exprs []string) (Probe, error)
}
