package bench

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"wright/model"
	"wright/run/config"
	"wright/run/judge"
)

// maxJudgedImages bounds the screenshots the judge evaluator sends: a long
// live run takes one per step, and the last ones show where it ended.
const maxJudgedImages = 12

// judgeAttempt scores an attempt with the two-stage screenshot judge, the
// suite's rubric added to the verdict prompt as the criterion. It returns the
// judge's usage so the bench counts its cost.
func judgeAttempt(ctx context.Context, cfg *config.Config, runDir string, check *JudgeCheck, final string) (EvalResult, model.Usage) {
	r := EvalResult{Kind: "judge"}
	images := runScreenshots(runDir)
	if len(images) == 0 {
		r.Detail = "no screenshots to judge"
		return r, model.Usage{}
	}
	if len(images) > maxJudgedImages {
		images = images[len(images)-maxJudgedImages:]
	}
	jm, err := cfg.JudgeModel()
	if err != nil {
		r.Detail = "judge model: " + err.Error()
		return r, model.Usage{}
	}
	jm.ResponseFormat = model.FormatNone
	client, err := model.New(jm, nil)
	if err != nil {
		r.Detail = "judge model: " + err.Error()
		return r, model.Usage{}
	}
	prompts := judge.DefaultPrompts()
	prompts.FinalVerdictUser += "\n\nThe benchmark's criterion for success, which decides your verdict:\n" + literal(check.Rubric) +
		"\n\nThe agent's final answer:\n" + literal(final)
	res, err := judge.Reflect(ctx, client, judge.ReflectOptions{
		Workspace: filepath.Join(runDir, "workspace"),
		Images:    images,
		Prompts:   prompts,
		Model:     jm.Name,
		Output:    filepath.Join(runDir, "bench_eval", "judge_result.json"),
	})
	if err != nil {
		r.Detail = "the judge did not answer: " + err.Error()
		var ce *judge.ConfigError
		if errors.As(err, &ce) {
			r.Detail = "judge configuration: " + err.Error()
		}
		return r, model.Usage{}
	}
	if res.PredictedLabel == nil {
		r.Detail = "the judge gave no Status line"
		return r, res.Usage
	}
	ok := *res.PredictedLabel == 1
	r.Passed = &ok
	r.Detail = fmt.Sprintf("%d screenshot(s); %s", len(images), lastLine(res.FinalResponse))
	return r, res.Usage
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
