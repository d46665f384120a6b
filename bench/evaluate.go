package bench

import (
	"context"
	"encoding/json"
	"strings"

	"wright/model"
	"wright/run/config"
)

// Final is what evaluators read of a finished attempt.
type Final struct {
	ExitStatus string
	Response   string
	GateLabel  *int
	// Page is the final page as the probe read it: URL and one value per
	// expression of ProbeExprs, in order. PageErr says why there is none.
	Page    *PageProbe
	PageErr string
	// RunDir is the attempt's run folder (its workspace, screenshots and
	// bench_eval/), and Config its configuration (the judge's model). A
	// nil Config: no evaluator may call a model.
	RunDir string
	Config *config.Config
}

// PageProbe is the URL and expression values read from a final page.
type PageProbe struct {
	URL    string
	Values []ProbeValue
}

// ProbeValue is one expression's JSON value or error.
type ProbeValue struct {
	Value json.RawMessage
	Err   string
}

// Verdict is what the evaluators made of an attempt.
type Verdict struct {
	// Passed is nil when the attempt is unscored, and Unscored then says
	// why.
	Passed   *bool
	Evals    []EvalResult
	Unscored string
	// Usage is what the evaluators spent on models (the judge), part of
	// the attempt's cost.
	Usage model.Usage
}

// Score applies a task's evaluators to an attempt that ended Submitted;
// other endings fail without evaluation.
func Score(ctx context.Context, t Task, f Final) Verdict {
	yes, no := true, false
	if f.ExitStatus != "Submitted" {
		return Verdict{Passed: &no}
	}
	ev := t.Eval
	if ev == nil {
		switch {
		case f.GateLabel == nil:
			return Verdict{Unscored: "no evaluator, and the gate did not judge this run"}
		case *f.GateLabel == 1:
			return Verdict{Passed: &yes, Evals: []EvalResult{{Kind: "gate", Passed: &yes, Detail: "the judge passed the final run"}}}
		default:
			return Verdict{Passed: &no, Evals: []EvalResult{{Kind: "gate", Passed: &no, Detail: "the judge refused the final run"}}}
		}
	}
	evals, spent := ev.evaluate(ctx, f)
	v := Verdict{Evals: evals, Usage: spent}
	// All must pass; one that could not run makes the attempt unscored
	// unless another already failed it.
	var missing []string
	for _, r := range evals {
		if r.Passed != nil && !*r.Passed {
			v.Passed = &no
			return v
		}
		if r.Passed == nil {
			missing = append(missing, r.Kind+": "+r.Detail)
		}
	}
	if len(missing) > 0 {
		v.Unscored = strings.Join(missing, "; ")
		return v
	}
	v.Passed = &yes
	return v
}
