package bench

import (
	"encoding/json"
	"fmt"
)

// judgeEvaluator is "judge": the screenshot judge on the attempt's final
// run, with the suite's rubric (true, a rubric, or {"rubric": ...}). The
// executor runs the judge (judge.go) and hands its verdict in Final.Judge.
type judgeEvaluator struct{}

func (judgeEvaluator) Key() string { return "judge" }

func (judgeEvaluator) Decode(raw json.RawMessage, _ Options, ev *Eval) error {
	if string(raw) == "false" {
		return nil
	}
	j := &JudgeCheck{}
	var rubric string
	if json.Unmarshal(raw, &rubric) == nil {
		j.Rubric = rubric
	} else if string(raw) != "true" {
		if err := json.Unmarshal(raw, j); err != nil {
			return fmt.Errorf("want true, a rubric or {\"rubric\": ...}: %v", err)
		}
	}
	ev.Judge = j
	return nil
}

func (judgeEvaluator) Page(*Eval) ([]string, bool) { return nil, false }

func (judgeEvaluator) Score(ev *Eval, f Final, _ []ProbeValue) []EvalResult {
	if ev.Judge == nil {
		return nil
	}
	r := EvalResult{Kind: "judge", Detail: "the judge did not run"}
	if f.Judge != nil {
		r = *f.Judge
	}
	return []EvalResult{r}
}
