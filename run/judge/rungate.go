package judge

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"wright/model"
	"wright/run/gate"
)

// RunJudge is the judge the rerun gate asks about each run it makes: the
// two-stage Reflect on that run's screenshots and log, with the prompts of
// the workspace's self_reflect_config.json when the model wrote one.
type RunJudge struct {
	// Client is the judge's model. Required.
	Client model.Client
	// Options carry the judge settings (prompts, model name, retries,
	// concurrency, warnings); JudgeRun fills in Workspace, RunDir and
	// Output itself.
	Options ReflectOptions
	// ConfigPath, when set and the file exists, is a
	// self_reflect_config.json read on every check; its prompts replace
	// Options.Prompts.
	ConfigPath string
}

// JudgeRun judges runDir and writes its verdict file there.
func (j *RunJudge) JudgeRun(ctx context.Context, workspace, runDir string) (gate.JudgeVerdict, error) {
	if j.Client == nil {
		return gate.JudgeVerdict{}, errors.New("no judge model client")
	}
	opts := j.Options
	if j.ConfigPath != "" {
		if _, err := os.Stat(j.ConfigPath); err == nil {
			cfg, err := LoadReflectConfig(j.ConfigPath, workspace)
			if err != nil {
				return gate.JudgeVerdict{}, &gate.PromptError{Path: j.ConfigPath, Err: err}
			}
			// The judge's prompts stay the harness's own; what the
			// model wrote is data in the user messages.
			opts.Prompts, opts.AgentNotes = DefaultPrompts(), AgentNotes(cfg.Prompts)
		}
	}
	opts.Workspace, opts.RunDir, opts.Output = workspace, runDir, filepath.Join(runDir, gate.VerdictName)
	opts.Images, opts.ConfigImages = nil, nil // the judge sees this run's screenshots, nothing else
	res, err := Reflect(ctx, j.Client, opts)
	var cfgErr *ConfigError
	if errors.As(err, &cfgErr) {
		return gate.JudgeVerdict{}, &gate.PromptError{Err: err}
	}
	if err != nil {
		return gate.JudgeVerdict{}, err
	}
	return gate.JudgeVerdict{Label: res.PredictedLabel, Reasoning: res.FinalResponse}, nil
}
