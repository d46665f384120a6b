package judge

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The built-in judge prompts, used for any prompt self_reflect_config.json
// leaves out. They were written for wright. The placeholders each stage
// understands are listed in stage1Vars and stage2Vars.

const defaultImageJudgeSystem = `You review screenshots taken by a browser automation script. You see one screenshot at a time and judge only what is visible in it: page content, URLs, form values, messages, errors. You do not assume anything happened that the screenshot does not show. You are strict: a page that merely looks plausible is not evidence that the task was done.`

const defaultImageJudgeUser = `The script was meant to carry out this task:
{task}

Attached is screenshot {image_index} of {image_count} ({image_name}), in the order the script took them.

Rate how well this screenshot shows the task being carried out correctly:
5 - clearly shows the task completed, or a required step done exactly right
4 - shows correct progress, with only minor doubts
3 - unclear: the relevant part is not visible, or it could go either way
2 - shows a problem: wrong page, wrong item, wrong value, or missing data
1 - shows a failure: an error, a blank or broken page, a login wall, a CAPTCHA, or something unrelated to the task

Answer in exactly this form, with nothing before the Score line:
Score: <a whole number from 1 to 5>
Reasoning: <two to five sentences naming the concrete things you see that justify the score>`

const defaultFinalVerdictSystem = `You decide whether a browser automation run accomplished its task. You get the task, the script's own output log, a reviewer's notes on each screenshot, and the screenshots themselves. Base your decision on evidence: what the screenshots show and what the log reports. A run that crashed, stopped early, acted on the wrong item, or reports an answer the screenshots do not support has failed. When the evidence is missing or ambiguous, the run has failed. Your last line is always the verdict.`

const defaultFinalVerdictUser = `Task:
{task}

Output log of the run (final_script_log.txt):
----- log start -----
{action_history_log}
----- log end -----

Notes on each screenshot (score 1-5, 0 means the note could not be read):
{image_reasonings}

All {image_count} screenshots are attached, in the order they were taken.

Decide whether the run accomplished the whole task. Check that:
- every part of the task was done, on the right site, item and values;
- the log shows no unhandled error, traceback or early exit;
- if the task asks for information, the answer the script reports is visible in, or supported by, the screenshots.

Explain your reasoning briefly, then end with exactly one of these lines:
Status: success
Status: failure`

// Prompts are the four texts of the two-stage judge.
type Prompts struct {
	ImageJudgeSystem   string `json:"image_judge_system_prompt"`
	ImageJudgeUser     string `json:"image_judge_user_prompt"`
	FinalVerdictSystem string `json:"final_verdict_system_prompt"`
	FinalVerdictUser   string `json:"final_verdict_user_prompt"`
}

// ReflectConfigFile is self_reflect_config.json: the prompts, and optionally
// the images to judge (paths relative to the workspace) instead of the
// newest run's screenshots.
type ReflectConfigFile struct {
	Prompts
	Images []string `json:"images,omitempty"`
}

// DefaultPrompts returns the built-in judge prompts.
func DefaultPrompts() Prompts {
	return Prompts{
		ImageJudgeSystem:   defaultImageJudgeSystem,
		ImageJudgeUser:     defaultImageJudgeUser,
		FinalVerdictSystem: defaultFinalVerdictSystem,
		FinalVerdictUser:   defaultFinalVerdictUser,
	}
}

// DefaultReflectConfigJSON is the built-in self_reflect_config.json, for the
// harness to write into a new workspace and for `wright reflect
// --print-default-config`.
func DefaultReflectConfigJSON() []byte {
	b, _ := json.MarshalIndent(ReflectConfigFile{Prompts: DefaultPrompts()}, "", "  ")
	return append(b, '\n')
}

// ConfigError is a problem with the judge's configuration or the command
// line, as opposed to a failure of the judge itself: `wright reflect` exits
// 2 on it.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

func configErrorf(format string, args ...any) error {
	return &ConfigError{Err: fmt.Errorf(format, args...)}
}

// promptKeys are the config keys, in the order error messages list them.
var promptKeys = []string{
	"image_judge_system_prompt",
	"image_judge_user_prompt",
	"final_verdict_system_prompt",
	"final_verdict_user_prompt",
}

// LoadReflectConfig reads a self_reflect_config.json. Each prompt may be
// given inline or as "<key>_file", a path relative to the config's folder;
// a prompt given neither way is the built-in one. Unknown keys are an error,
// so a misspelt prompt name is not silently replaced by the default.
//
// Prompt files are read only when they are regular files inside root (the
// workspace), after links are resolved; an empty root means the config's
// own folder.
func LoadReflectConfig(path string, root ...string) (ReflectConfigFile, error) {
	base := filepath.Dir(path)
	if len(root) > 0 && root[0] != "" {
		base = root[0]
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return ReflectConfigFile{}, configErrorf("read judge config: %w", err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return ReflectConfigFile{}, configErrorf("judge config %s is not a JSON object: %w", path, err)
	}
	cfg := ReflectConfigFile{Prompts: DefaultPrompts()}
	fields := map[string]*string{
		"image_judge_system_prompt":   &cfg.ImageJudgeSystem,
		"image_judge_user_prompt":     &cfg.ImageJudgeUser,
		"final_verdict_system_prompt": &cfg.FinalVerdictSystem,
		"final_verdict_user_prompt":   &cfg.FinalVerdictUser,
	}
	known := map[string]bool{"images": true}
	for _, k := range promptKeys {
		known[k], known[k+"_file"] = true, true
	}
	for k := range raw {
		if !known[k] {
			return ReflectConfigFile{}, configErrorf("judge config %s: unknown key %q (known: %s, each also as <key>_file, and images)", path, k, strings.Join(promptKeys, ", "))
		}
	}
	for _, k := range promptKeys {
		inline, hasInline := raw[k]
		file, hasFile := raw[k+"_file"]
		if hasInline && hasFile {
			return ReflectConfigFile{}, configErrorf("judge config %s: give %s or %s_file, not both", path, k, k)
		}
		switch {
		case hasInline:
			var s string
			if err := json.Unmarshal(inline, &s); err != nil {
				return ReflectConfigFile{}, configErrorf("judge config %s: %s must be a string: %w", path, k, err)
			}
			if strings.TrimSpace(s) != "" {
				*fields[k] = s
			}
		case hasFile:
			var rel string
			if err := json.Unmarshal(file, &rel); err != nil || rel == "" {
				return ReflectConfigFile{}, configErrorf("judge config %s: %s_file must be a non-empty path string", path, k)
			}
			p := rel
			if !filepath.IsAbs(p) {
				p = filepath.Join(filepath.Dir(path), rel)
			}
			text, err := readInside(base, p)
			if err != nil {
				return ReflectConfigFile{}, configErrorf("judge config %s: %s_file: %w", path, k, err)
			}
			*fields[k] = string(text)
		}
	}
	if imgs, ok := raw["images"]; ok && string(imgs) != "null" {
		if err := json.Unmarshal(imgs, &cfg.Images); err != nil {
			return ReflectConfigFile{}, configErrorf("judge config %s: images must be a list of paths: %w", path, err)
		}
	}
	if err := cfg.Prompts.validate(); err != nil {
		return ReflectConfigFile{}, &ConfigError{Err: fmt.Errorf("judge config %s: %w", path, err)}
	}
	return cfg, nil
}

// Placeholders each stage fills. Listed here so a config can be checked
// before any model call.
var (
	stage1Vars = []string{"task", "image_index", "image_count", "image_name", "image_path"}
	stage2Vars = []string{"task", "action_history_log", "image_reasonings", "image_count"}
)

func dummyVars(names []string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = ""
	}
	return m
}

// validate fills every prompt with empty values to find unknown
// placeholders and stray braces up front.
func (p Prompts) validate() error {
	checks := []struct {
		key, text string
		vars      []string
	}{
		{"image_judge_system_prompt", p.ImageJudgeSystem, stage1Vars},
		{"image_judge_user_prompt", p.ImageJudgeUser, stage1Vars},
		{"final_verdict_system_prompt", p.FinalVerdictSystem, stage2Vars},
		{"final_verdict_user_prompt", p.FinalVerdictUser, stage2Vars},
	}
	var errs []error
	for _, c := range checks {
		if _, err := FillPrompt(c.text, dummyVars(c.vars)); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.key, err))
		}
	}
	return errors.Join(errs...)
}
