package bench

import (
	"encoding/json"
	"strings"

	"wright/run/output"
)

// answerEvaluator is "answer": the final response checked as text (exact,
// must_include, regex, number) or field by field as JSON.
type answerEvaluator struct{}

func (answerEvaluator) Key() string { return "answer" }

func (answerEvaluator) Decode(raw json.RawMessage, _ Options, ev *Eval) error {
	var a AnswerCheck
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return err
	}
	if err := a.validate(); err != nil {
		return err
	}
	ev.Answer = &a
	return nil
}

func (answerEvaluator) Page(*Eval) ([]string, bool) { return nil, false }

func (answerEvaluator) Score(ev *Eval, f Final, _ []ProbeValue) []EvalResult {
	if ev.Answer == nil {
		return nil
	}
	return []EvalResult{scoreAnswer(ev.Answer, f.Response)}
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
