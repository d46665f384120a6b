package gate

import (
	"context"
	"errors"
)

// Judge gives its verdict on one final run the rerun gate has just made.
// The judge package's RunJudge is the real one; the gate only needs this.
type Judge interface {
	// JudgeRun judges the run folder runDir of workspace and writes its
	// verdict file there. A problem the model can fix is an error wrapping
	// ErrNothingToJudge, or a *PromptError; any other error is the judge's
	// own failure (an unreachable model).
	JudgeRun(ctx context.Context, workspace, runDir string) (JudgeVerdict, error)
}

// JudgeVerdict is what the gate needs of a judge's answer.
type JudgeVerdict struct {
	// Label is 1 (success), 0 (failure) or nil (no readable verdict).
	Label *int
	// Reasoning is the judge's final answer, quoted in a refusal.
	Reasoning string
}

// ErrNothingToJudge marks a problem with the material to be judged (no
// run folder, no screenshots, an image that is missing or not PNG/JPEG):
// the script's fault, not the judge's.
var ErrNothingToJudge = errors.New("nothing to judge")

// PromptError means the judge cannot start because of the prompts the
// model wrote. Path names self_reflect_config.json when the file itself
// cannot be read.
type PromptError struct {
	Path string
	Err  error
}

func (e *PromptError) Error() string { return e.Err.Error() }
func (e *PromptError) Unwrap() error { return e.Err }
