package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"wright/library"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/harness"
	"wright/run/rundir"
	"wright/trust/keyring"
)

type runFlags struct {
	task, startURL, taskID string
	configs                []string
	outputDir, runDir      string
	model, baseURL         string
	stepLimit              int
	mode                   string
	json, verbose          bool
	outputSchema           string
	saveAs, library        string
}

func init() {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run -t TASK [--start-url URL]",
		Short: "Run the agent on one web task",
		Long: `Run the agent on one web task. Each turn the model answers with one JSON action,
wright runs it and shows the model what happened, until the model finishes (and,
in workspace mode, the judge has signed off on its final script) or a limit ends
the run. Everything is saved under the run directory as it happens.

Exit codes: 0 Submitted, 1 any other exit status, 2 a usage or config error,
130 interrupted (SIGINT), 143 terminated (SIGTERM).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTask(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.task, "task", "t", "", "the task, in words (required)")
	fl.StringVar(&f.startURL, "start-url", "", "the page to start from, a whole URL (https://...); without one the model starts on a blank page or in its shell")
	fl.StringVar(&f.taskID, "task-id", "", "an id for the task (default: from the task's first words)")
	fl.StringArrayVarP(&f.configs, "config", "c", nil, "config layer: a built-in name ("+strings.Join(config.Builtins(), ", ")+"), a YAML file, or key.path=value (repeatable; later wins)")
	fl.StringVarP(&f.outputDir, "output-dir", "o", "runs", "the folder run folders are made in (each run gets <task_id>_<time> there)")
	fl.StringVar(&f.runDir, "run-dir", "", "the exact run directory (instead of <output-dir>/<task_id>_<time>)")
	fl.StringVar(&f.model, "model", "", "model name, or replay:<file.jsonl> for recorded replies (model.name); builtin:recorded is for wright bench builtin:demo")
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint (model.base_url)")
	fl.IntVar(&f.stepLimit, "step-limit", 0, "maximum model calls (agent.step_limit)")
	fl.StringVar(&f.mode, "mode", "workspace", "workspace, or browser for live browser mode (the local_browser config)")
	fl.BoolVar(&f.json, "json", false, "print result.json to stdout at the end (with output: the parsed result, when there is an output schema)")
	fl.StringVar(&f.outputSchema, "output-schema", "", "a JSON Schema file (draft 2020-12) the result must satisfy: final_response must be JSON valid against it (agent.output_schema)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "show each step even when stderr is not a terminal")
	fl.StringVar(&f.saveAs, "save-as", "", "when the run ends Submitted with the judge's label 1, save its script in the library under this name (see wright scripts)")
	fl.StringVar(&f.library, "library", "", "the script library (default $"+library.EnvDir+", else the user's data directory)")
	rootCmd.AddCommand(cmd)
}

// loadRunConfig turns the run flags into config layers and overrides.
func loadRunConfig(f runFlags) (*config.Config, error) {
	layers := f.configs
	switch f.mode {
	case "workspace":
	case "browser":
		layers = append([]string{"local_browser"}, layers...)
	default:
		return nil, usageError("--mode %q: use workspace or browser", f.mode)
	}
	if f.model == recordedModel {
		return nil, usageError("--model %s answers only the tasks of the built-in demo suite: use it with `wright bench builtin:demo --model %s`, or watch `wright demo`; for `wright run`, name a model (--model gpt-4.1-mini) or a recording (--model replay:FILE.jsonl)", recordedModel, recordedModel)
	}
	overrides := map[string]any{}
	if f.model != "" {
		overrides["model.name"] = f.model
	}
	if f.baseURL != "" {
		overrides["model.base_url"] = f.baseURL
	}
	if f.stepLimit != 0 {
		overrides["agent.step_limit"] = f.stepLimit
	}
	if f.outputSchema != "" {
		overrides["agent.output_schema"] = f.outputSchema
	}
	cfg, err := config.Load(layers, overrides)
	if err != nil {
		return nil, usageError("%v", err)
	}
	return cfg, nil
}

// runTask is `wright run`: flags to config, one harness run, the exit
// status to an exit code.
func runTask(cmd *cobra.Command, f runFlags) error {
	if strings.TrimSpace(f.task) == "" {
		return usageError("a task is required: wright run -t \"what to do\" [--start-url URL]")
	}
	if err := checkStartURL(f.startURL); err != nil {
		return err
	}
	cfg, err := loadRunConfig(f)
	if err != nil {
		return err
	}
	opts := harness.Options{OutputDir: f.outputDir, RunDir: f.runDir}
	var built func()
	if f.startURL == "" {
		// Said once the run is sure to start, so that it never stands
		// before an error that has nothing to do with it.
		built = func() {
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: note: no --start-url: the model starts %s and finds its own way\n",
				map[string]string{"browser": "on a blank page", "workspace": "in its shell"}[f.mode])
		}
	}
	task := harness.Task{ID: f.taskID, Text: f.task, StartURL: f.startURL}
	var after func(rundir.Result) error
	if f.saveAs != "" {
		// Both are checked before the run, so a bad name loses no run.
		if err := library.CheckName(f.saveAs); err != nil {
			return usageError("--save-as: %v", err)
		}
		lib, err := library.Open(f.library)
		if err != nil {
			return usageError("%v", err)
		}
		after = func(res rundir.Result) error { return saveRun(cmd, lib, f.saveAs, cfg, task, res) }
	}
	return runHarnessThen(cmd, cfg, opts, task, f.verbose, f.json, built, after)
}

// runHarness runs one task through the harness and maps its exit status to
// the process's exit code: 0 Submitted, 130 Interrupted, 1 the others, 2 a
// config or run-directory problem.
func runHarness(cmd *cobra.Command, cfg *config.Config, opts harness.Options, task harness.Task, verbose, asJSON bool) error {
	return runHarnessThen(cmd, cfg, opts, task, verbose, asJSON, nil, nil)
}

// runHarnessThen is runHarness with built called once the harness took the
// config (nil for nothing), and after called on the result of a run that
// ran (--save-as), whose error becomes the command's.
func runHarnessThen(cmd *cobra.Command, cfg *config.Config, opts harness.Options, task harness.Task, verbose, asJSON bool, built func(), after func(rundir.Result) error) error {
	opts.Warn = func(msg string) { fmt.Fprintln(cmd.ErrOrStderr(), "wright: warning:", msg) }
	// Keys and secret variables named by the config leave this process's
	// environment block too (a re-exec that does not return when there is
	// one to drop).
	if err := keyring.Drop(cfg.KeyNames()); err != nil {
		opts.Warn(err.Error())
	}
	opts.Observer = newRunObserver(cmd.ErrOrStderr(), verbose || isTerminal(os.Stderr))
	h, err := harness.Build(cfg, opts)
	if err != nil {
		return usageError("%v", err)
	}
	if built != nil {
		built()
	}
	res, err := h.Run(cmd.Context(), task)
	var dirErr *harness.RunDirError
	switch {
	case errors.As(err, &dirErr):
		return usageError("%v", dirErr)
	case err != nil && res.ExitStatus == "":
		return err // nothing ran
	case err != nil:
		fmt.Fprintln(cmd.ErrOrStderr(), "wright: saving the run:", err)
	}
	fmt.Fprint(cmd.ErrOrStderr(), endLines(res))
	if asJSON {
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintln(cmd.OutOrStdout(), string(b))
	}
	if after != nil {
		if err := after(res); err != nil {
			return err
		}
	}
	switch res.ExitStatus {
	case agent.Submitted:
		return nil
	case agent.Interrupted:
		return &exitError{code: interruptedCode(), err: errSilent}
	}
	return &exitError{code: 1, err: errSilent}
}

// checkStartURL refuses a start URL that is not one, before any model
// call is spent on it: an absolute URL with a scheme, and a host for the
// network schemes.
func checkStartURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	hint := "give a whole URL, such as https://example.com/ or http://127.0.0.1:8000/"
	switch {
	case err != nil:
		return usageError("--start-url %q is not a URL (%v): %s", raw, err, hint)
	case u.Scheme == "" || u.Opaque != "" && (u.Scheme == "http" || u.Scheme == "https"):
		return usageError("--start-url %q is not a URL: %s", raw, hint)
	case (u.Scheme == "http" || u.Scheme == "https") && u.Host == "":
		return usageError("--start-url %q has no host: %s", raw, hint)
	}
	switch u.Scheme {
	case "http", "https", "file", "about", "data":
		return nil
	}
	return usageError("--start-url %q: a browser cannot open the scheme %q: %s", raw, u.Scheme, hint)
}

// runObserver is what `wright run` prints: every step on a terminal (or
// with -v), and always the run's folder as the command line named it, so a
// log from CI says where to look.
type runObserver struct {
	w     io.Writer
	steps agent.Observer // nil when steps are not shown
}

func newRunObserver(w io.Writer, showSteps bool) agent.Observer {
	o := &runObserver{w: w}
	if showSteps {
		o.steps = harness.TextObserver(w)
	}
	return o
}

func (o *runObserver) Observe(e agent.Event) {
	switch e.Kind {
	case agent.RunStarted:
		fmt.Fprintf(o.w, "wright: run %s\n", displayPath(e.RunDir))
	case agent.RunEnded:
		// endLines says it from result.json, the judge's spending included.
	default:
		if o.steps != nil {
			o.steps.Observe(e)
		}
	}
}

// endLines is how a run ended, in one line (and the reason on a second when
// it did not submit): status, steps, tokens and cost with the judge's (the
// endpoint's counts, or wright's estimate marked est. where it reported
// none), and the run folder.
func endLines(res rundir.Result) string {
	if res.ExitStatus == "" {
		return ""
	}
	tokens, cost := res.Usage.TotalTokens, res.Usage.Cost
	judge := ""
	if j := res.JudgeUsage; j != nil && (j.TotalTokens > 0 || j.Cost > 0) {
		tokens, cost = tokens+j.TotalTokens, cost+j.Cost
		judge = fmt.Sprintf(" (judge %d tokens, $%.4f)", j.TotalTokens, j.Cost)
	}
	line := fmt.Sprintf("wright: %s after %s, %s, $%.4f%s — %s\n", res.ExitStatus, harness.Plural(res.Steps, "step"),
		harness.RunTokens(tokens, res.EstimatedPromptTokens), cost, judge, displayPath(res.RunDir))
	if res.ExitStatus != agent.Submitted && res.Message != "" {
		line += "wright: why: " + strings.TrimSpace(res.Message) + "\n"
	}
	if res.RunDir != "" {
		line += "wright: to read it: wright review " + shellWord(displayPath(res.RunDir)) + "\n"
	}
	return line
}

// displayPath shows a path under the working directory relative to it, as
// the command line gave it (runs/x), and any other path whole.
func displayPath(p string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return rel
	}
	return p
}

// shellWord quotes a path for a command line a user copies, when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+:@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
