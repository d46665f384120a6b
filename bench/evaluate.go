package bench

import (
	"encoding/json"
	"fmt"
	"strings"
	"wright/run/output"
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

// ProbeExprs lists the expressions an eval needs evaluated on the final
// page, in the order Final.Page.Values holds their values. JS checks with a
// URL of their own are probed by opening that URL (see PageChecks).
func (e *Eval) ProbeExprs() []string {
	if e == nil {
		return nil
	}
	var out []string
	for _, c := range e.JS {
		if c.URL == "" {
			out = append(out, c.Expr)
		}
	}
	return out
}

// NeedsPage says whether an eval reads the final page.
func (e *Eval) NeedsPage() bool {
	return e != nil && (len(e.JS) > 0 || e.URL != "")
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
	if ev.Answer != nil {
		evals = append(evals, scoreAnswer(ev.Answer, f.Response))
	}
	if ev.URL != "" {
		r := EvalResult{Kind: "url"}
		if f.Page == nil {
			r.Detail = "no final page to read: " + f.PageErr
		} else {
			ok, detail := MatchURL(ev.URL, f.Page.URL)
			r.Passed, r.Detail = &ok, detail
			if ok {
				r.Detail = f.Page.URL
			}
		}
		evals = append(evals, r)
	}
	i := 0
	for _, c := range ev.JS {
		if c.URL != "" {
			// Reading another URL than the final page's is WebArena's; the
			// harness has no second page to open after the run.
			evals = append(evals, EvalResult{Kind: "js", Detail: "checks on another page (" + c.URL + ") are not supported"})
			continue
		}
		r := EvalResult{Kind: "js"}
		switch {
		case f.Page == nil:
			r.Detail = "no final page to read: " + f.PageErr
		case i >= len(f.Page.Values):
			r.Detail = "the probe returned no value"
		default:
			r = scoreJS(f.Page.Values[i])
		}
		i++
		evals = append(evals, r)
	}
	if ev.Judge != nil {
		r := EvalResult{Kind: "judge", Detail: "the judge did not run"}
		if f.Judge != nil {
			r = *f.Judge
		}
		evals = append(evals, r)
	}
	for _, u := range ev.Unsupported {
		evals = append(evals, EvalResult{Kind: "unsupported", Detail: u})
	}
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

func scoreAnswer(a *AnswerCheck, response string) EvalResult {
	r := EvalResult{Kind: "answer"}
	hasText := a.Exact != nil || len(a.MustInclude) > 0 || a.Regex != "" || a.Number != nil
	if hasText {
		ok, detail := a.CheckText(response)
		if !ok {
			r.Passed, r.Detail = &ok, detail
			return r
		}
	}
	if len(a.Fields) > 0 {
		value, err := output.ParseJSON(response)
		if err != nil {
			// A response that is not JSON fails field checks: the task
			// asked for data and got prose.
			no := false
			r.Passed, r.Detail = &no, "the final response is not JSON: "+err.Error()
			return r
		}
		results, pass, err := output.Evaluate(value, a.Fields)
		if err != nil {
			r.Detail = err.Error()
			return r
		}
		r.Passed = &pass
		var failed []string
		for _, fr := range results {
			if !fr.Pass {
				failed = append(failed, fr.Path+": "+fr.Reason)
			}
		}
		r.Detail = strings.Join(failed, "; ")
		return r
	}
	ok := true
	r.Passed = &ok
	return r
}

// scoreJS reads a js check's value: an object with "pass" is taken as it
// is, anything else passes when truthy.
func scoreJS(v ProbeValue) EvalResult {
	r := EvalResult{Kind: "js"}
	if v.Err != "" {
		r.Detail = "the expression failed: " + v.Err
		return r
	}
	var obj struct {
		Pass   *bool    `json:"pass"`
		Score  *float64 `json:"score"`
		Detail any      `json:"detail"`
	}
	if json.Unmarshal(v.Value, &obj) == nil && obj.Pass != nil {
		r.Passed, r.Score = obj.Pass, obj.Score
		if obj.Detail != nil {
			r.Detail = fmt.Sprint(obj.Detail)
		}
		return r
	}
	var x any
	_ = json.Unmarshal(v.Value, &x)
	ok := truthy(x)
	r.Passed = &ok
	r.Detail = "value " + clip(string(v.Value))
	return r
}

// truthy is JavaScript's truthiness for a JSON value.
func truthy(x any) bool {
	switch v := x.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return v != ""
	}
	return true
}
