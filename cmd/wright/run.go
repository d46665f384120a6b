package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"wright/agent"
	"wright/browser"
	"wright/browser/python"
	"wright/config"
	"wright/env"
	"wright/env/live"
	"wright/env/workspace"
	"wright/gate"
	"wright/gate/keyproxy"
	"wright/keyring"
	"wright/model"
	"wright/runs"
	"wright/secrets"
	"wright/templates"
)

type runFlags struct {
	task, startURL, taskID string
	configs                []string
	outputDir, runDir      string
	model, baseURL         string
	stepLimit              int
	mode                   string
	json, verbose          bool
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
	fl.BoolVar(&f.json, "json", false, "print result.json to stdout at the end")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "show each step even when stderr is not a terminal")
	rootCmd.AddCommand(cmd)
}

func runTask(cmd *cobra.Command, f runFlags) error {
	ctx := cmd.Context()
	if strings.TrimSpace(f.task) == "" {
		return usageError("a task is required: wright run -t \"what to do\" [--start-url URL]")
	}
	layers := f.configs
	switch f.mode {
	case "workspace":
	case "browser":
		layers = append([]string{"local_browser"}, layers...)
	default:
		return usageError("--mode %q: use workspace or browser", f.mode)
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
	cfg, err := config.Load(layers, overrides)
	if err != nil {
		return usageError("%v", err)
	}
	// Keys named by the config leave this process's environment block
	// too (a re-exec that does not return when there is one to drop).
	if err := keyring.Drop(cfg.KeyNames()); err != nil {
		fmt.Fprintln(cmd.ErrOrStderr(), "wright: warning:", err)
	}
	secretSet, err := secrets.Load(cfg.Secrets)
	if err != nil {
		return usageError("%v", err)
	}
	var tpl templates.Set
	for _, t := range []string{cfg.Agent.SystemTemplate, cfg.Agent.InstanceTemplate, cfg.Agent.ObservationTemplate,
		cfg.Agent.FormatErrorTemplate, cfg.Agent.GateRefusalTemplate, cfg.Agent.SummaryUserPrompt} {
		if err := tpl.Check(t); err != nil {
			return usageError("%v", err)
		}
	}
	warn := func(msg string) { fmt.Fprintln(cmd.ErrOrStderr(), "wright: warning:", msg) }
	client, err := model.New(cfg.Model, warn)
	if err != nil {
		return usageError("%v", err)
	}

	taskID := f.taskID
	if taskID == "" {
		taskID = idFromTask(f.task)
	}
	dir := f.runDir
	if dir == "" {
		dir = filepath.Join(f.outputDir, runs.DirName(taskID, time.Now()))
	}
	run, err := runs.Create(dir)
	if err != nil {
		return usageError("%v", err)
	}
	run.Redact = secretSet.RedactBytes
	secret := keyring.Getenv(cfg.Model.APIKeyEnv)
	if redacted, err := cfg.Redacted(append(secretSet.Values(), secret)...); err == nil {
		_ = run.WriteFile("config.yaml", redacted)
	}
	task := agent.Task{ID: taskID, Text: f.task, StartURL: f.startURL}
	if err := writeTaskJSON(run, task); err != nil {
		return err
	}

	meter := &judgeMeter{}
	if jm, err := cfg.JudgeModel(); err == nil {
		meter.price = jm.Price
	}
	judgeVars, closeJudge, err := judgeAccess(ctx, cfg, meter)
	if err != nil {
		run.RuntimeError(0, "judge", err)
		return fmt.Errorf("judge access: %w", err)
	}
	defer closeJudge()
	var verify func([]byte, string) error
	if requiresGate(cfg) && cfg.Gate.Mode == "file" {
		hvars, v, closeHarness, err := harnessJudge(ctx, cfg, run, meter)
		if err != nil {
			run.RuntimeError(0, "judge", err)
			return fmt.Errorf("judge: %w", err)
		}
		defer closeHarness()
		for k, val := range hvars {
			judgeVars[k] = val
		}
		verify = v
	}
	if cfg.Agent.Mode == "workspace" {
		pvars, closeProxy, err := workspaceProxy(cfg)
		if err != nil {
			return usageError("%v", err)
		}
		defer closeProxy()
		for k, val := range pvars {
			judgeVars[k] = val
		}
	}
	shellVars, err := shellEnv(run, cfg, judgeVars)
	if err != nil {
		return err
	}
	g, err := newGate(cfg, run, shellVars, verify, meter)
	if err != nil {
		return usageError("%v", err)
	}
	var environment env.Environment
	if cfg.Agent.Mode == "browser" {
		environment, err = newLive(ctx, run, cfg, f.startURL, shellVars, secretSet)
	} else {
		environment, err = newWorkspace(ctx, run, cfg, shellVars)
	}
	if err != nil {
		run.RuntimeError(0, "environment", err)
		return fmt.Errorf("start workspace: %w", err)
	}
	defer environment.Close()

	progress := io.Writer(nil)
	if f.verbose || isTerminal(os.Stderr) {
		progress = cmd.ErrOrStderr()
	}
	a := &agent.Agent{
		Settings: agent.Settings{
			StepLimit:                  cfg.Agent.StepLimit,
			CostLimit:                  cfg.Agent.CostLimit,
			MaxConsecutiveFormatErrors: cfg.Agent.MaxConsecutiveFormatErrors,
			ActionField:                cfg.Model.ActionField,
			SystemTemplate:             cfg.Agent.SystemTemplate,
			InstanceTemplate:           cfg.Agent.InstanceTemplate,
			ObservationTemplate:        cfg.Agent.ObservationTemplate,
			FormatErrorTemplate:        cfg.Agent.FormatErrorTemplate,
			GateRefusalTemplate:        cfg.Agent.GateRefusalTemplate,
			AttachScreenshot:           cfg.Model.AttachObservationScreenshot,
			KeepLastNObservations:      cfg.Agent.KeepLastNObservations,
			SummaryEveryNSteps:         cfg.Agent.SummaryEveryNSteps,
			CompactAtTokens:            cfg.Agent.CompactAtTokens,
			SummaryPrompt:              cfg.Agent.SummaryUserPrompt,
			ModelName:                  cfg.Model.Name,
			Mode:                       cfg.Agent.Mode,
			Vars: map[string]any{
				"workspace":               run.Workspace,
				"mode":                    cfg.Agent.Mode,
				"command_timeout_seconds": cfg.Env.CommandTimeoutSeconds,
				"require_reflection":      requiresGate(cfg),
				"crafted":                 cfg.Gate.Crafted,
				"step_timeout_seconds":    cfg.Env.StepTimeoutSeconds,
				"secrets":                 promptSecrets(cfg, secretSet),
			},
		},
		Model:      client,
		Env:        environment,
		Gate:       g,
		Run:        run,
		Progress:   progress,
		JudgeUsage: meter.total,
		Redact:     secretSet.Redact,
	}
	if progress != nil {
		fmt.Fprintf(progress, "wright: run %s\n", run.Dir)
	}
	res, err := a.Execute(ctx, task)
	environment.Close()
	if err != nil {
		fmt.Fprintln(cmd.ErrOrStderr(), "wright: saving the run:", err)
	}
	if f.json {
		b, _ := json.MarshalIndent(res, "", "  ")
		fmt.Fprintln(cmd.OutOrStdout(), string(b))
	}
	if progress != nil {
		fmt.Fprintf(progress, "wright: %s after %d steps, %d tokens, $%.4f — %s\n", res.ExitStatus, res.Steps, res.Usage.TotalTokens, res.Usage.Cost, run.Dir)
	}
	switch res.ExitStatus {
	case agent.Submitted:
		return nil
	case agent.Interrupted:
		return &exitError{code: interruptedCode(), err: errSilent}
	}
	return &exitError{code: 1, err: errSilent}
}

func requiresGate(cfg *config.Config) bool {
	return cfg.Agent.RequireSelfReflectionSuccess && cfg.Gate.Mode != "off"
}

// newGate picks the completion gate: open, the verdict file, or a rerun of
// the final script by the harness itself.
//
// The file gate accepts only verdicts verify passes (sealed by this run's
// harness); the rerun gate makes its own.
func newGate(cfg *config.Config, run *runs.Run, shellVars map[string]string, verify func([]byte, string) error, meter *judgeMeter) (gate.Gate, error) {
	if !requiresGate(cfg) {
		return gate.Open{}, nil
	}
	if cfg.Gate.Mode == "file" {
		g := gate.NewFileGate(run.Workspace)
		g.Verify = verify
		return g, nil
	}
	judge, jm, err := judgeClient(cfg, meter)
	if err != nil {
		return nil, err
	}
	env := hiddenEnviron(cfg.KeyNames())
	for k, v := range shellVars {
		env = append(env, k+"="+v)
	}
	return gate.NewRerunGate(gate.RerunOptions{
		Workspace:  run.Workspace,
		Client:     judge,
		Reflect:    gate.ReflectOptions{Model: jm.Name},
		ConfigPath: filepath.Join(run.Workspace, "self_reflect_config.json"),
		Timeout:    time.Duration(cfg.Gate.RerunTimeoutSeconds * float64(time.Second)),
		Crafted:    cfg.Gate.Crafted,
		Env:        env,
	}), nil
}

// judgeAccess lets `wright reflect` and `wright image-qa`, run by the model
// inside its shell, reach the judge without the key ever entering the shell:
// a Unix-socket proxy adds the key on the way out.
func judgeAccess(ctx context.Context, cfg *config.Config, meter *judgeMeter) (map[string]string, func(), error) {
	vars := map[string]string{}
	jm, err := cfg.JudgeModel()
	if err != nil {
		return nil, nil, err
	}
	if replay, ok := strings.CutPrefix(jm.Name, model.ReplayPrefix); ok {
		vars[keyproxy.ModelEnv] = model.ReplayPrefix + config.Abs(replay)
		return vars, func() {}, nil
	}
	vars[keyproxy.ModelEnv] = jm.Name
	keyEnv := jm.APIKeyEnv
	if keyEnv == "" {
		keyEnv = model.DefaultAPIKeyEnv
	}
	base := endpoint(jm)
	key := keyring.Getenv(keyEnv)
	if key == "" {
		// A keyless local server: the shell can call it directly.
		vars["WRIGHT_MODEL_BASE_URL"] = base
		return vars, func() {}, nil
	}
	// Unix socket paths are limited to about 100 bytes, so the socket lives
	// in a short temporary directory rather than in the run directory.
	dir, err := os.MkdirTemp("", "wright-judge-")
	if err != nil {
		return nil, nil, err
	}
	proxy, err := keyproxy.StartMetered(ctx, base, key, filepath.Join(dir, "model.sock"), meter.addTokens)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	for _, kv := range proxy.Env(jm.Name) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return vars, func() { proxy.Close(); os.RemoveAll(dir) }, nil
}

// endpoint is the base URL a model config reaches.
func endpoint(mc model.Config) string {
	for _, u := range []string{mc.BaseURL, os.Getenv("OPENAI_BASE_URL")} {
		if u != "" {
			return u
		}
	}
	return model.DefaultBaseURL
}

// shellEnv is what the model's code gets on top of this process's
// environment (from which every key variable is removed).
func shellEnv(run *runs.Run, cfg *config.Config, extra map[string]string) (map[string]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the wright binary: %w", err)
	}
	vars := map[string]string{}
	for k, v := range cfg.Env.Env {
		vars[k] = v
	}
	for k, v := range extra {
		vars[k] = v
	}
	ws := run.Workspace
	vars["WORKSPACE_DIR"] = ws
	vars["TASK_JSON"] = filepath.Join(ws, "task.json")
	vars["FINAL_SCRIPT_PATH"] = filepath.Join(ws, "final_script.py")
	vars["WRIGHT_BIN"] = exe
	// The browser client goes beside the run, not in the workspace, so the
	// model's file listings stay its own.
	lib := filepath.Join(run.Dir, "lib", "python")
	if _, err := python.Install(lib); err != nil {
		return nil, fmt.Errorf("install the browser client: %w", err)
	}
	vars["PYTHONPATH"] = joinPath(lib, os.Getenv("PYTHONPATH"))
	if cfg.Browser.Executable != "" {
		vars["WRIGHT_BROWSER"] = config.Abs(cfg.Browser.Executable)
	}
	if cfg.Browser.CDPURL != "" {
		vars["WRIGHT_CDP_URL"] = cfg.Browser.CDPURL
	}
	return vars, nil
}

func newWorkspace(ctx context.Context, run *runs.Run, cfg *config.Config, vars map[string]string) (env.Environment, error) {
	return workspace.New(ctx, workspace.Options{
		Dir:         run.Workspace,
		Env:         vars,
		HideEnv:     cfg.KeyNames(),
		PathPrepend: []string{filepath.Dir(vars["WRIGHT_BIN"])},
		Timeout:     time.Duration(cfg.Env.CommandTimeoutSeconds * float64(time.Second)),
		OutputLimit: cfg.Env.OutputTruncationChars,
		RecentFiles: 8,
	})
}

// newLive starts live browser mode: one persistent Python process bound to
// one live page.
func newLive(ctx context.Context, run *runs.Run, cfg *config.Config, startURL string, vars map[string]string, secretSet *secrets.Set) (env.Environment, error) {
	private, err := privateRanges(cfg)
	if err != nil {
		return nil, err
	}
	return live.New(ctx, live.Options{
		AllowPrivate: private,
		Workspace:    run.Workspace,
		LibDir:       filepath.Join(run.Dir, "lib", "live"),
		TaskJSON:     filepath.Join(run.Workspace, "task.json"),
		StartURL:     startURL,
		Browser: browser.Options{
			Executable: config.Abs(cfg.Browser.Executable),
			CDPURL:     cfg.Browser.CDPURL,
			Headed:     !cfg.Browser.Headless,
			Viewport:   browser.Viewport{Width: cfg.Browser.Viewport.Width, Height: cfg.Browser.Viewport.Height},
			Timeout:    time.Duration(cfg.Browser.TimeoutMS) * time.Millisecond,
			Env:        hiddenEnviron(cfg.KeyNames()),
			Secrets:    secretSet.Reveal,
		},
		AllowedDomains: cfg.Browser.AllowedDomains,
		BlockedDomains: cfg.Browser.BlockedDomains,
		StepTimeout:    time.Duration(cfg.Env.StepTimeoutSeconds * float64(time.Second)),
		AriaChars:      cfg.Env.AriaSnapshotChars,
		OutputLimit:    cfg.Env.OutputTruncationChars,
		Env:            vars,
		HideEnv:        cfg.KeyNames(),
		Redact:         secretSet.Redact,
	})
}

// hiddenEnviron is this process's environment without the named variables.
func hiddenEnviron(hide []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(hide, name) {
			out = append(out, kv)
		}
	}
	return out
}

func joinPath(first, rest string) string {
	if rest == "" {
		return first
	}
	return first + string(os.PathListSeparator) + rest
}

func writeTaskJSON(run *runs.Run, task agent.Task) error {
	return run.WriteJSON(filepath.Join("workspace", "task.json"), map[string]any{
		"task_id": task.ID, "task": task.Text, "start_url": task.StartURL,
	})
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// idFromTask makes a readable id from the task's first words.
func idFromTask(task string) string {
	words := strings.Fields(nonWord.ReplaceAllString(strings.ToLower(task), " "))
	if len(words) > 6 {
		words = words[:6]
	}
	if len(words) == 0 {
		return "task"
	}
	return strings.Join(words, "_")
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
