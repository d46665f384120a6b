package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"wright/agent"
	"wright/config"
	"wright/harness"
	"wright/keyring"
	"wright/library"
	"wright/runs"
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
	fl.StringVar(&f.startURL, "start-url", "", "the page to start from")
	fl.StringVar(&f.taskID, "task-id", "", "an id for the task (default: from the task's first words)")
	fl.StringArrayVarP(&f.configs, "config", "c", nil, "config layer: a built-in name ("+strings.Join(config.Builtins(), ", ")+"), a YAML file, or key.path=value (repeatable; later wins)")
	fl.StringVarP(&f.outputDir, "output-dir", "o", "runs", "where run directories are made")
	fl.StringVar(&f.runDir, "run-dir", "", "the exact run directory (instead of <output-dir>/<task_id>_<time>)")
	fl.StringVar(&f.model, "model", "", "model name, or replay:<file.jsonl> (model.name)")
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
	cfg, err := loadRunConfig(f)
	if err != nil {
		return err
	}
	opts := harness.Options{OutputDir: f.outputDir, RunDir: f.runDir}
	task := harness.Task{ID: f.taskID, Text: f.task, StartURL: f.startURL}
	var after func(runs.Result) error
	if f.saveAs != "" {
		// Both are checked before the run, so a bad name loses no run.
		if err := library.CheckName(f.saveAs); err != nil {
			return usageError("--save-as: %v", err)
		}
		lib, err := library.Open(f.library)
		if err != nil {
			return usageError("%v", err)
		}
		after = func(res runs.Result) error { return saveRun(cmd, lib, f.saveAs, cfg, task, res) }
	}
	return runHarnessThen(cmd, cfg, opts, task, f.verbose, f.json, after)
}

// runHarness runs one task through the harness and maps its exit status to
// the process's exit code: 0 Submitted, 130 Interrupted, 1 the others, 2 a
// config or run-directory problem.
func runHarness(cmd *cobra.Command, cfg *config.Config, opts harness.Options, task harness.Task, verbose, asJSON bool) error {
	return runHarnessThen(cmd, cfg, opts, task, verbose, asJSON, nil)
}

// runHarnessThen is runHarness with after called on the result of a run
// that ran (--save-as); its error becomes the command's.
func runHarnessThen(cmd *cobra.Command, cfg *config.Config, opts harness.Options, task harness.Task, verbose, asJSON bool, after func(runs.Result) error) error {
	opts.Warn = func(msg string) { fmt.Fprintln(cmd.ErrOrStderr(), "wright: warning:", msg) }
	// Keys and secret variables named by the config leave this process's
	// environment block too (a re-exec that does not return when there is
	// one to drop).
	if err := keyring.Drop(cfg.KeyNames()); err != nil {
		opts.Warn(err.Error())
	}
	if verbose || isTerminal(os.Stderr) {
		opts.Observer = harness.TextObserver(cmd.ErrOrStderr())
	}
	h, err := harness.Build(cfg, opts)
	if err != nil {
		return usageError("%v", err)
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

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
