package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"wright/env"
	"wright/internal/scratch"
	"wright/internal/tracing"
	"wright/model"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/output"
	"wright/run/rundir"
	"wright/run/templates"
	"wright/trust/secrets"
)

// Task is what one run is asked to do. An empty ID is made from the
// task's first words.
type Task = agent.Task

// Observer hears runs' progress; Event is what it hears (agent's types,
// named here so callers of the harness need not import agent).
type (
	Observer = agent.Observer
	Event    = agent.Event
)

// Options are what a caller decides beyond the config.
type Options struct {
	// OutputDir is where run directories are made, as
	// <OutputDir>/<task_id>_<YYYYmmdd_HHMMSS> (with _2, _3, ... when that
	// name is taken). Default "runs".
	OutputDir string
	// RunDir, when set, is the exact run directory; it suits one run, not
	// many at once.
	RunDir string
	// Observer hears every run's progress; nil hears nothing. It must be
	// safe for concurrent use when runs share it.
	Observer Observer
	// Warn receives warnings about the configuration; nil discards them.
	Warn func(string)
	// AtEnd, if set, is called once the loop has ended and before the
	// environment closes, with that environment: bench evaluators read the
	// final page through it (env.Prober). ctx is the run's, cancelled or not.
	AtEnd func(ctx context.Context, e env.Environment)
	// Executable is the wright binary the model's code calls as `wright`
	// (`wright reflect`, `wright driver`). Default: this process's own.
	Executable string
	// ScriptsOnly: the harness only runs saved scripts (RunScript), so
	// the agent's model is not checked (a rerun needs the judge's only).
	ScriptsOnly bool
	// SharedBrowser, when set, is the DevTools URL of a Chromium on this
	// machine that runs share (wright bench starts one): each live run
	// opens its own browser context in it (cookies, storage, cache and
	// downloads its own, its traffic through its own policy proxy) instead
	// of launching a browser, and a workspace run's scripts use it as
	// their warm browser, each launch() a context of it. browser.cdp_url,
	// when set, wins.
	SharedBrowser string
}

// Harness starts runs of one configuration. It holds nothing a run
// changes, so any number of Run calls may go on at once.
type Harness struct {
	cfg     *config.Config
	opts    Options
	env     environment
	secrets *secrets.Set
	// modelCfg is cfg.Model with the environment's action field.
	modelCfg model.Config
	// schema is agent.output_schema compiled, or nil.
	schema *output.Schema
}

// RunDirError is a run directory that cannot be made or already holds a
// run: the caller's mistake, reported before anything starts.
type RunDirError struct{ Err error }

func (e *RunDirError) Error() string { return e.Err.Error() }
func (e *RunDirError) Unwrap() error { return e.Err }

// Build checks the configuration (templates, model, judge, mode) and
// returns a harness for it. Its errors are configuration errors.
func Build(cfg *config.Config, opts Options) (*Harness, error) {
	if cfg == nil {
		return nil, errors.New("harness: no config")
	}
	var tpl templates.Set
	for _, t := range []string{cfg.Agent.SystemTemplate, cfg.Agent.InstanceTemplate, cfg.Agent.ObservationTemplate,
		cfg.Agent.FormatErrorTemplate, cfg.Agent.GateRefusalTemplate, cfg.Agent.SummaryUserPrompt} {
		if err := tpl.Check(t); err != nil {
			return nil, err
		}
	}
	e, ok := environments[cfg.Agent.Mode]
	if !ok {
		return nil, fmt.Errorf("config: agent.mode is %q: use %s", cfg.Agent.Mode, strings.Join(Modes(), " or "))
	}
	mc := cfg.Model
	switch mc.ActionField {
	case "", e.kind.Field:
		mc.ActionField = e.kind.Field
	default:
		return nil, fmt.Errorf("config: model.action_field is %q, but agent.mode %s acts with %q: leave it empty", mc.ActionField, cfg.Agent.Mode, e.kind.Field)
	}
	if !opts.ScriptsOnly {
		if _, err := model.New(mc, opts.Warn); err != nil {
			return nil, err
		}
	}
	if requiresGate(cfg) && cfg.Gate.Mode != "file" {
		if _, err := judgeClient(cfg); err != nil {
			return nil, err
		}
	}
	secretSet, err := secrets.Load(cfg.Secrets)
	if err != nil {
		return nil, err
	}
	// Folders a SIGKILLed wright left (profiles, sockets, the shell's
	// private files) go now; a running wright's stay (scratch).
	scratch.Sweep()
	if _, err := privateRanges(cfg); err != nil {
		return nil, err
	}
	schema, err := output.FromConfig(cfg.Agent.OutputSchema)
	if err != nil {
		return nil, err
	}
	if opts.OutputDir == "" {
		opts.OutputDir = "runs"
	}
	if opts.Executable == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("find the wright binary: %w", err)
		}
		opts.Executable = exe
	}
	return &Harness{cfg: cfg, opts: opts, env: e, modelCfg: mc, secrets: secretSet, schema: schema}, nil
}

// Config is the configuration the harness rundir.
func (h *Harness) Config() *config.Config { return h.cfg }

// Run runs one task to its end and returns result.json's content. Every
// exit status is a result, not an error; the error is non-nil when the run
// could not start (then the result holds at most its RunDir) or its files
// could not be saved. Cancelling ctx ends the run as Interrupted. When Run
// returns, every process it started has ended.
func (h *Harness) Run(ctx context.Context, task Task) (rundir.Result, error) {
	if strings.TrimSpace(task.Text) == "" {
		return rundir.Result{}, errors.New("harness: the task is empty")
	}
	if task.ID == "" {
		task.ID = IDFromTask(task.Text)
	}
	run, err := h.createRun(task.ID)
	if err != nil {
		return rundir.Result{}, &RunDirError{Err: err}
	}
	ctx, span := h.startRunSpan(ctx, task, run)
	defer span.End()
	r := &runner{h: h, task: task, run: run, begun: time.Now()}
	defer r.close()
	a, err := r.setup(ctx)
	if err != nil {
		tracing.Fail(span, err)
		return rundir.Result{TaskID: task.ID, RunDir: run.Dir}, err
	}
	res, err := a.Execute(model.WithCacheKey(ctx, cacheKey(run.Dir)), task)
	endRunSpan(span, res, err)
	if h.opts.AtEnd != nil {
		h.opts.AtEnd(ctx, a.Env)
	}
	r.close() // the environment ends before the caller reads the result
	// Every writer redacts what it writes; this is the net under them all
	// (a file one of them forgot, a page the model saved with a value in it).
	if _, serr := h.secrets.RedactTree(run.Dir); serr != nil {
		run.RuntimeError(0, "redact", serr)
	}
	return res, err
}

func (h *Harness) createRun(taskID string) (*rundir.Run, error) {
	if h.opts.RunDir != "" {
		return rundir.Create(h.opts.RunDir)
	}
	return rundir.CreateUnique(h.opts.OutputDir, rundir.DirName(taskID, time.Now()))
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// IDFromTask makes a readable task id from the task's first words.
func IDFromTask(task string) string {
	words := strings.Fields(nonWord.ReplaceAllString(strings.ToLower(task), " "))
	if len(words) > 6 {
		words = words[:6]
	}
	if len(words) == 0 {
		return "task"
	}
	return strings.Join(words, "_")
}

func requiresGate(cfg *config.Config) bool {
	return cfg.Agent.RequireSelfReflectionSuccess && cfg.Gate.Mode != "off"
}

// cacheKey is the run's prompt cache key (OpenAI's prompt_cache_key): one
// per run, since a run's calls share their prefix; a hash, so that the
// task's words in the directory name do not leave the machine.
func cacheKey(runDir string) string {
	sum := sha256.Sum256([]byte(runDir))
	return "wright-run-" + hex.EncodeToString(sum[:8])
}

// endpoint is the base URL a model config reaches; none for recorded
// replies, which reach no endpoint.
func endpoint(mc model.Config) string {
	if strings.HasPrefix(mc.Name, model.ReplayPrefix) {
		return ""
	}
	return model.ResolveBaseURL(mc.API, mc.BaseURL)
}

func joinPath(first, rest string) string {
	if rest == "" {
		return first
	}
	return first + string(os.PathListSeparator) + rest
}

// abs is filepath.Abs that keeps the path when it cannot resolve it.
func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
