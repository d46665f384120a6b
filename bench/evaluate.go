package bench

import (
	"encoding/json"
	"strings"
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
	// Judge is the judge evaluator's verdict, when the task has one.
	Judge *EvalResult
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

// Score applies a task's evaluators to an attempt that ended Submitted;
// other endings fail without evaluation. passed is nil when the attempt is
// unscored, and reason then says why.
func Score(t Task, f Final) (passed *bool, evals []EvalResult, reason string) {
	yes, no := true, false
	if f.ExitStatus != "Submitted" {
		return &no, nil, ""
	}
	ev := t.Eval
	if ev == nil {
		switch {
		case f.GateLabel == nil:
			return nil, nil, "no evaluator, and the gate did not judge this run"
		case *f.GateLabel == 1:
			return &yes, []EvalResult{{Kind: "gate", Passed: &yes, Detail: "the judge passed the final run"}}, ""
		default:
			return &no, []EvalResult{{Kind: "gate", Passed: &no, Detail: "the judge refused the final run"}}, ""
		}
	}
	evals = ev.evalResults(f)
	// All must pass; one that could not run makes the attempt unscored
	// unless another already failed it.
	var missing []string
	for _, r := range evals {
		if r.Passed != nil && !*r.Passed {
			return &no, evals, ""
		}
		if r.Passed == nil {
			missing = append(missing, r.Kind+": "+r.Detail)
		}
	}
	if len(missing) > 0 {
		return nil, evals, strings.Join(missing, "; ")
	}
	return &yes, evals, ""
}
