package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"wright/model"
	"wright/run/judge"
)

// "judge": the two-stage screenshot judge on the attempt's run, with the
// suite's rubric (true, a rubric, or {"rubric": ...}; false asks nothing).
func init() {
	RegisterEvaluator(Kind{Name: "judge", Order: 40, Decode: func(raw json.RawMessage, _ Options) (Evaluator, error) {
		if string(raw) == "false" {
			return nil, nil
		}
		j := &JudgeCheck{}
		var rubric string
		if json.Unmarshal(raw, &rubric) == nil {
			j.Rubric = rubric
		} else if string(raw) != "true" {
			if err := json.Unmarshal(raw, j); err != nil {
				return nil, fmt.Errorf("want true, a rubric or {\"rubric\": ...}: %v", err)
			}
		}
		return j, nil
	}})
}

// JudgeCheck asks the screenshot judge, with the suite's own rubric.
type JudgeCheck struct {
	Rubric string `json:"rubric,omitempty"`
}

// maxJudgedImages bounds the screenshots the judge evaluator sends: a long
// live run takes one per step, and the last ones show where it ended.
const maxJudgedImages = 12

// Evaluate scores the attempt with the judge, the suite's rubric added to
// the verdict prompt as the criterion. Its usage is the judge's, which the
// bench counts into the attempt's cost.
func (j *JudgeCheck) Evaluate(ctx context.Context, f Final) ([]EvalResult, model.Usage) {
	r := EvalResult{Kind: "judge"}
	if f.Config == nil {
		// Without the attempt's configuration there is no judge model.
		r.Detail = "the judge did not run"
		return []EvalResult{r}, model.Usage{}
	}
	images := runScreenshots(f.RunDir)
	if len(images) == 0 {
		r.Detail = "no screenshots to judge"
		return []EvalResult{r}, model.Usage{}
	}
	if len(images) > maxJudgedImages {
		images = images[len(images)-maxJudgedImages:]
	}
	jm, err := f.Config.JudgeModel()
	if err != nil {
		r.Detail = "judge model: " + err.Error()
		return []EvalResult{r}, model.Usage{}
	}
	jm.ResponseFormat = model.FormatNone
	client, err := model.New(jm, nil)
	if err != nil {
		r.Detail = "judge model: " + err.Error()
		return []EvalResult{r}, model.Usage{}
	}
	prompts := judge.DefaultPrompts()
	prompts.FinalVerdictUser += "\n\nThe benchmark's criterion for success, which decides your verdict:\n" + literal(j.Rubric) +
		"\n\nThe agent's final answer:\n" + literal(f.Response)
	res, err := judge.Reflect(ctx, client, judge.ReflectOptions{
		Workspace: filepath.Join(f.RunDir, "workspace"),
		Images:    images,
		Prompts:   prompts,
		Model:     jm.Name,
		Output:    filepath.Join(f.RunDir, "bench_eval", "judge_result.json"),
	})
	if err != nil {
		r.Detail = "the judge did not answer: " + err.Error()
		var ce *judge.ConfigError
		if errors.As(err, &ce) {
			r.Detail = "judge configuration: " + err.Error()
		}
		return []EvalResult{r}, model.Usage{}
	}
	if res.PredictedLabel == nil {
		r.Detail = "the judge gave no Status line"
		return []EvalResult{r}, res.Usage
	}
	ok := *res.PredictedLabel == 1
	r.Passed = &ok
	r.Detail = fmt.Sprintf("%d screenshot(s); %s", len(images), lastLine(res.FinalResponse))
	return []EvalResult{r}, res.Usage
}

// literal escapes braces so text reaches the judge as written rather than
// as prompt placeholders; empty text says so.
func literal(s string) string {
	if strings.TrimSpace(s) == "" {
		s = "(none given: judge whether the task was achieved)"
	}
	return strings.NewReplacer("{", "{{", "}", "}}").Replace(s)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return clip(lines[len(lines)-1])
}
