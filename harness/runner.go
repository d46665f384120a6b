package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"wright/agent"
	"wright/browser/python"
	"wright/config"
	"wright/gate"
	"wright/judge"
	"wright/judge/keyproxy"
	"wright/model"
	"wright/runs"
)

// runner is one run's parts. Everything it starts is ended by close.
type runner struct {
	h       *Harness
	task    Task
	run     *runs.Run
	closers []func()
}

func (r *runner) onClose(f func()) { r.closers = append(r.closers, f) }

// close ends what setup started, newest first. It is safe to call twice.
func (r *runner) close() {
	for i := len(r.closers) - 1; i >= 0; i-- {
		r.closers[i]()
	}
	r.closers = nil
}

// setup writes the run's first files and starts its parts: the judge's
// key proxy, the gate, the environment and the model.
func (r *runner) setup(ctx context.Context) (*agent.Agent, error) {
	cfg, run := r.h.cfg, r.run
	if redacted, err := cfg.Redacted(os.Getenv(cfg.Model.APIKeyEnv)); err == nil {
		_ = run.WriteFile("config.yaml", redacted)
	}
	if err := run.WriteJSON(filepath.Join("workspace", "task.json"), map[string]any{
		"task_id": r.task.ID, "task": r.task.Text, "start_url": r.task.StartURL,
	}); err != nil {
		return nil, err
	}
	judgeVars, err := r.judgeAccess(ctx)
	if err != nil {
		run.RuntimeError(0, "judge", err)
		return nil, fmt.Errorf("judge access: %w", err)
	}
	shellVars, err := r.shellEnv(judgeVars)
	if err != nil {
		return nil, err
	}
	g, err := r.gate(shellVars)
	if err != nil {
		return nil, err
	}
	environment, err := r.h.env.start(ctx, setup{cfg: cfg, run: run, task: r.task, vars: shellVars})
	if err != nil {
		run.RuntimeError(0, "environment", err)
		return nil, fmt.Errorf("start workspace: %w", err)
	}
	r.onClose(func() { environment.Close() })
	client, err := model.New(r.h.modelCfg, r.h.opts.Warn)
	if err != nil {
		return nil, err
	}
	return &agent.Agent{
		Config:           cfg.Agent,
		Model:            client,
		Env:              environment,
		Gate:             g,
		Dir:              run,
		Observer:         r.h.opts.Observer,
		AttachScreenshot: cfg.Model.AttachObservationScreenshot,
		ModelName:        cfg.Model.Name,
		Vars:             templateVars(cfg, run),
	}, nil
}

// templateVars are what the prompts need from beyond the agent section.
func templateVars(cfg *config.Config, run *runs.Run) map[string]any {
	return map[string]any{
		"workspace":               run.Workspace,
		"mode":                    cfg.Agent.Mode,
		"command_timeout_seconds": cfg.Env.CommandTimeoutSeconds,
		"require_reflection":      requiresGate(cfg),
		"crafted":                 cfg.Gate.Crafted,
		"step_timeout_seconds":    cfg.Env.StepTimeoutSeconds,
	}
}

// judgeClient is the judge's model client; the judge answers in labelled
// prose, not in the action protocol's JSON.
func judgeClient(cfg *config.Config) (model.Client, error) {
	jm, err := cfg.JudgeModel()
	if err != nil {
		return nil, err
	}
	jm.ResponseFormat = model.FormatNone
	judge, err := model.New(jm, nil)
	if err != nil {
		return nil, fmt.Errorf("judge model: %w", err)
	}
	return judge, nil
}

// gate picks the completion gate: open, the verdict file, or a rerun of
// the final script by the harness itself.
func (r *runner) gate(shellVars map[string]string) (gate.Gate, error) {
	cfg, run := r.h.cfg, r.run
	if !requiresGate(cfg) {
		return gate.Open{}, nil
	}
	if cfg.Gate.Mode == "file" {
		return gate.NewFileGate(run.Workspace), nil
	}
	client, err := judgeClient(cfg)
	if err != nil {
		return nil, err
	}
	jm, _ := cfg.JudgeModel()
	env := hiddenEnviron(cfg.KeyNames())
	for k, v := range shellVars {
		env = append(env, k+"="+v)
	}
	return gate.NewRerunGate(gate.RerunOptions{
		Workspace: run.Workspace,
		Judge: &judge.RunJudge{
			Client:     client,
			Options:    judge.ReflectOptions{Model: jm.Name},
			ConfigPath: filepath.Join(run.Workspace, gate.ReflectConfig),
		},
		Timeout: time.Duration(cfg.Gate.RerunTimeoutSeconds * float64(time.Second)),
		Crafted: cfg.Gate.Crafted,
		Env:     env,
	}), nil
}

// judgeAccess lets `wright reflect` and `wright image-qa`, run by the model
// inside its shell, reach the judge without the key ever entering the shell:
// a Unix-socket proxy adds the key on the way out.
func (r *runner) judgeAccess(ctx context.Context) (map[string]string, error) {
	vars := map[string]string{}
	jm, err := r.h.cfg.JudgeModel()
	if err != nil {
		return nil, err
	}
	if replay, ok := strings.CutPrefix(jm.Name, model.ReplayPrefix); ok {
		vars[keyproxy.ModelEnv] = model.ReplayPrefix + config.Abs(replay)
		return vars, nil
	}
	vars[keyproxy.ModelEnv] = jm.Name
	keyEnv := jm.APIKeyEnv
	if keyEnv == "" {
		keyEnv = model.DefaultAPIKeyEnv
	}
	base := endpoint(jm)
	key := os.Getenv(keyEnv)
	if key == "" {
		// A keyless local server: the shell can call it directly.
		vars["WRIGHT_MODEL_BASE_URL"] = base
		return vars, nil
	}
	// Unix socket paths are limited to about 100 bytes, so the socket lives
	// in a short temporary directory of its own rather than in the run
	// directory.
	dir, err := os.MkdirTemp("", "wright-judge-")
	if err != nil {
		return nil, err
	}
	proxy, err := keyproxy.Start(ctx, base, key, filepath.Join(dir, "model.sock"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	r.onClose(func() { proxy.Close(); os.RemoveAll(dir) })
	for _, kv := range proxy.Env(jm.Name) {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	return vars, nil
}

// shellEnv is what the model's code gets on top of this process's
// environment (from which every key variable is removed).
func (r *runner) shellEnv(extra map[string]string) (map[string]string, error) {
	cfg, run := r.h.cfg, r.run
	vars := map[string]string{}
	for k, v := range cfg.Env.Vars {
		vars[k] = v
	}
	for k, v := range extra {
		vars[k] = v
	}
	ws := run.Workspace
	vars["WORKSPACE_DIR"] = ws
	vars["TASK_JSON"] = filepath.Join(ws, "task.json")
	vars["FINAL_SCRIPT_PATH"] = filepath.Join(ws, "final_script.py")
	vars["WRIGHT_BIN"] = r.h.opts.Executable
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
