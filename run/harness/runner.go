package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"wright/internal/scratch"
	"wright/model"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/gate"
	"wright/run/judge"
	"wright/run/judge/keyproxy"
	"wright/run/output"
	"wright/run/rundir"
	"wright/trust/keyring"
	"wright/trust/sandbox"
	"wright/trust/secrets"
)

// runner is one run's parts. Everything it starts is ended by close.
type runner struct {
	h       *Harness
	task    Task
	run     *rundir.Run
	closers []func()
	// meter sums the judge's spending inside the run; verify checks the
	// seal of a verdict (gate.mode file).
	meter  *judgeMeter
	verify func([]byte, string) error
	// sandboxed: the model's processes run under bubblewrap; proxySocket
	// is then where the policy proxy serves them (workspace mode).
	sandboxed   bool
	proxySocket string
	box         *sandbox.Spec // the sandbox of the model's processes, nil without one
	spawned     bool          // the scripts' browsers come from wright (scriptBrowsers)
	warm        *warmBrowser  // the scripts' warm Chromium (scriptBrowsers); nil without one
	scriptRun   bool          // RunScript's: a saved script rerun, whatever its mode
	begun       time.Time     // when Run began
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
	run.Redact = r.h.secrets.RedactBytes
	r.meter = &judgeMeter{}
	if jm, err := cfg.JudgeModel(); err == nil {
		r.meter.price = jm.Price
	}
	keyEnv := cfg.Model.APIKeyEnv
	if keyEnv == "" {
		keyEnv = model.DefaultKeyEnv(cfg.Model.API)
	}
	if redacted, err := cfg.Redacted(append(r.h.secrets.Values(), keyring.Getenv(keyEnv))...); err == nil {
		_ = run.WriteFile("config.yaml", redacted)
	}
	if err := run.WriteJSON(filepath.Join("workspace", "task.json"), map[string]any{
		"task_id": r.task.ID, "task": r.task.Text, "start_url": r.task.StartURL,
	}); err != nil {
		return nil, err
	}
	if err := r.seed(); err != nil {
		return nil, err
	}
	sandboxed, err := useSandbox(cfg)
	if err != nil {
		return nil, err
	}
	r.sandboxed = sandboxed
	judgeVars, err := r.judgeAccess(ctx)
	if err != nil {
		run.RuntimeError(0, "judge", err)
		return nil, fmt.Errorf("judge access: %w", err)
	}
	if err := r.trustVars(ctx, judgeVars); err != nil {
		run.RuntimeError(0, "judge", err)
		return nil, err
	}
	shellVars, err := r.shellEnv(judgeVars)
	if err != nil {
		return nil, err
	}
	schema := r.outputSchema()
	if err := r.saveOutputSchema(schema, shellVars); err != nil {
		return nil, err
	}
	if r.sandboxed {
		r.box = sandboxSpec(run.Workspace, r.h.opts.Executable, r.proxySocket, shellVars)
		for _, p := range cfg.Env.SandboxReadOnly {
			r.box.ReadOnly = append(r.box.ReadOnly, config.Abs(p))
		}
	}
	g, err := r.gate(shellVars, schema)
	if err != nil {
		return nil, err
	}
	environment, err := r.h.env.start(ctx, setup{cfg: cfg, run: run, task: r.task, vars: shellVars, secrets: r.h.secrets, sandbox: r.box, sharedBrowser: r.h.opts.SharedBrowser})
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
		Vars:             templateVars(cfg, run, r.h.secrets, r.spawned),
		JudgeUsage:       r.meter.total,
		Redact:           r.h.secrets.Redact,
		OutputSchema:     schema,
		Begun:            r.begun,
	}, nil
}

// templateVars are what the prompts need from beyond the agent section.
func templateVars(cfg *config.Config, run *rundir.Run, set *secrets.Set, spawned bool) map[string]any {
	return map[string]any{
		"workspace":               run.Workspace,
		"mode":                    cfg.Agent.Mode,
		"command_timeout_seconds": cfg.Env.CommandTimeoutSeconds,
		"require_reflection":      requiresGate(cfg),
		"crafted":                 cfg.Gate.Crafted,
		"step_timeout_seconds":    cfg.Env.StepTimeoutSeconds,
		"aria_snapshot":           cfg.Env.AriaSnapshot,
		"secrets":                 promptSecrets(cfg, set, spawned),
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
func (r *runner) gate(shellVars map[string]string, schema *output.Schema) (gate.Gate, error) {
	cfg, run := r.h.cfg, r.run
	if !requiresGate(cfg) {
		return gate.Open{}, nil
	}
	if cfg.Gate.Mode == "file" {
		g := gate.NewFileGate(run.Workspace)
		g.Verify = r.verify
		g.Schema = schema
		return g, nil
	}
	client, _, err := meteredJudge(cfg, r.meter)
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
		Trace:   cfg.Gate.Trace,
		Video:   cfg.Gate.Video,
		Env:     env,
		Schema:  schema,
		Sandbox: r.box,
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
	if jm.API != "" {
		vars[keyproxy.APIEnv] = jm.API
	}
	keyEnv := jm.APIKeyEnv
	if keyEnv == "" {
		keyEnv = model.DefaultKeyEnv(jm.API)
	}
	base := endpoint(jm)
	key := keyring.Getenv(keyEnv)
	if key == "" && !r.sandboxed {
		// A keyless local server: the shell can call it directly (a
		// sandbox has no network of its own, so it goes by the socket).
		vars["WRIGHT_MODEL_BASE_URL"] = base
		return vars, nil
	}
	// Unix socket paths are limited to about 100 bytes, so the socket lives
	// in a short temporary directory of its own rather than in the run
	// directory.
	dir, err := scratch.MkdirTemp("", "judge-")
	if err != nil {
		return nil, err
	}
	proxy, err := keyproxy.StartFor(ctx, keyproxy.Upstream{API: jm.API, BaseURL: base, Key: key}, filepath.Join(dir, "model.sock"), r.meter.addProxied)
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
	vars, err := ScriptVars(r.h.cfg, r.run.Dir, r.run.Workspace, r.h.opts.Executable)
	if err != nil {
		return nil, err
	}
	// The shell finds wright through PathPrepend; its PATH is its own.
	delete(vars, "PATH")
	for k, v := range extra {
		vars[k] = v
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

// trustVars starts what keeps the run's boundaries: the harness's own judge
// (gate.mode file: only a verdict it sealed counts) and, in workspace mode,
// the policy proxy the shell's tools go through. Their variables join vars.
func (r *runner) trustVars(ctx context.Context, vars map[string]string) error {
	cfg := r.h.cfg
	if requiresGate(cfg) && cfg.Gate.Mode == "file" {
		hvars, verify, closeHarness, err := harnessJudge(ctx, cfg, r.run, r.meter, r.outputSchema())
		if err != nil {
			return fmt.Errorf("judge: %w", err)
		}
		r.onClose(closeHarness)
		r.verify = verify
		for k, v := range hvars {
			vars[k] = v
		}
	}
	// A sandbox has no network but this proxy: in browser mode too, for
	// the scripts the rerun gate runs in it.
	if cfg.Agent.Mode == "workspace" || r.sandboxed {
		socket, err := r.sandboxSocket()
		if err != nil {
			return err
		}
		pvars, proxyURL, closeProxy, err := workspaceProxy(cfg, socket)
		if err != nil {
			return err
		}
		r.onClose(closeProxy)
		if err := r.scriptBrowsers(vars, proxyURL); err != nil {
			return err
		}
		for k, v := range pvars {
			vars[k] = v
		}
	}
	return nil
}

// seed puts the task's Files into the workspace. A path that leaves the
// workspace is an error, not a file written elsewhere.
func (r *runner) seed() error {
	for rel, data := range r.task.Files {
		clean := filepath.Clean(rel)
		if filepath.IsAbs(clean) || clean == "." || strings.HasPrefix(clean, "..") {
			return fmt.Errorf("seed the workspace: %q is not a path inside it", rel)
		}
		if err := r.run.WriteFile(filepath.Join("workspace", clean), data); err != nil {
			return fmt.Errorf("seed the workspace: %w", err)
		}
	}
	return nil
}
