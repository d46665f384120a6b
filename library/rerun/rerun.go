// Package rerun reuses a saved script: it runs a library script with new
// inputs in a fresh run folder through the harness (the sandbox, URL policy
// and secrets of a run), verifies that run with the output schema and the
// judge, records it in the script's history and, when asked, heals a
// script that no longer works with an agent run that must pass the gate
// on a fresh run of its repair. `wright rerun`, `wright heal`, `wright
// scripts check` and `wright bench --library` all come here.
package rerun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"wright/library"
	"wright/run/config"
	"wright/run/harness"
	"wright/run/output"
)

// Options are one rerun.
type Options struct {
	Library *library.Library
	Name    string
	// Params are name=value inputs (--param).
	Params []string
	// Verify is judge, schema, both, none or "" (both with a schema, else
	// judge).
	Verify string
	// OutputDir, when set, is where the rerun folder is made instead of
	// the script's reruns/ folder.
	OutputDir string
	// RunDir, when set, is the exact rerun folder (a bench's attempt).
	RunDir string
	// StartURL, when set, replaces the saved start URL (the site moved).
	StartURL string
	// Config is the run configuration: the judge's model, the sandbox,
	// the browser; and, for a heal, the agent. Required.
	Config *config.Config
	// Heal starts an agent run to repair a script whose rerun fails.
	Heal bool
	// AllowInterfaceChange saves a repair that changes the interface.
	AllowInterfaceChange bool
	// HealStepLimit and HealCostLimit bound a heal (0: 40 steps; the
	// config's cost limit).
	HealStepLimit int
	HealCostLimit float64
	// Observer hears a heal's steps; nil hears nothing.
	Observer harness.Observer
	Warn     func(string)
}

// Report is what a rerun did: `wright rerun --json` prints it, and it is
// saved as rerun.json in the rerun folder.
type Report struct {
	Name     string         `json:"name"`
	Version  int            `json:"version"`
	Verified bool           `json:"verified"`
	Reason   string         `json:"reason,omitempty"`
	Verify   string         `json:"verify"`
	Inputs   map[string]any `json:"inputs"`
	Task     string         `json:"task"`
	// Output is the answer: result.json parsed (checked against the
	// schema when there is one).
	Output any `json:"output,omitempty"`
	// RunDir is the rerun's folder; FinalRun the folder the script ran
	// into (its log, screenshots, result.json, verdict).
	RunDir   string  `json:"run_dir"`
	FinalRun string  `json:"final_run,omitempty"`
	Seconds  float64 `json:"seconds"`
	// ModelCalls, Tokens and Cost are the judge's, the only model a
	// rerun asks.
	ModelCalls int     `json:"model_calls"`
	Tokens     int     `json:"tokens"`
	Cost       float64 `json:"cost"`
	Heal       *Heal   `json:"heal,omitempty"`
	// ErrorTail is, when the script did not run cleanly, the end of its
	// output that says why: the script's line that raised and the error
	// (harness.ErrorTail). Its whole log is final_script_log.txt in
	// FinalRun.
	ErrorTail string `json:"error_tail,omitempty"`
}

// Heal is what a heal did.
type Heal struct {
	RunDir     string   `json:"run_dir"`
	ExitStatus string   `json:"exit_status"`
	Saved      int      `json:"saved_version,omitempty"`
	Refused    string   `json:"refused,omitempty"`
	Changes    []string `json:"interface_changes,omitempty"`
	ModelCalls int      `json:"model_calls"`
	Tokens     int      `json:"tokens"`
	Cost       float64  `json:"cost"`
	Seconds    float64  `json:"seconds"`
}

// Prepared is a rerun whose inputs have been checked: nothing has run.
type Prepared struct {
	o      Options
	saved  library.Saved
	args   []string
	values map[string]any
	task   string
	schema *output.Schema
	verify harness.Verify
	cfg    *config.Config
	// inner: a heal's rerun of its new version, which the outer rerun's
	// history line accounts for.
	inner bool
}

// Prepare checks the script, the inputs and the verification against the
// saved interface. Its errors that wrap *library.UsageError (an unknown,
// missing or mistyped parameter, an unknown script) are the caller's
// mistakes: nothing has run.
func Prepare(o Options) (*Prepared, error) {
	if o.Library == nil || o.Config == nil {
		return nil, errors.New("rerun: no library or no config")
	}
	saved, err := o.Library.Latest(o.Name)
	if errors.Is(err, library.ErrNotFound) {
		return nil, &library.UsageError{Msg: err.Error()}
	}
	if err != nil {
		return nil, err
	}
	args, values, err := saved.Interface.Inputs(o.Params)
	if err != nil {
		return nil, err
	}
	task, err := library.Fill(saved.Template, values)
	if err != nil {
		return nil, fmt.Errorf("%s v%d: %w", o.Name, saved.Version.Version, err)
	}
	text, err := saved.Schema()
	if err != nil {
		return nil, err
	}
	var schema *output.Schema
	if text != "" {
		if schema, err = output.Compile([]byte(text), filepath.Join(saved.Dir, library.SchemaFile)); err != nil {
			return nil, fmt.Errorf("%s v%d: %w", o.Name, saved.Version.Version, err)
		}
	}
	var verify harness.Verify
	if o.Verify != "" {
		if verify, err = harness.ParseVerify(o.Verify); err != nil {
			return nil, &library.UsageError{Msg: err.Error()}
		}
		if schema == nil && (verify == harness.VerifyBoth || verify == harness.VerifySchema) {
			return nil, &library.UsageError{Msg: fmt.Sprintf("--verify %s: %s has no output schema (use judge or none)", verify, o.Name)}
		}
	}
	cfg, err := scriptConfig(o.Config, saved)
	if err != nil {
		return nil, &library.UsageError{Msg: err.Error()}
	}
	return &Prepared{o: o, saved: saved, args: args, values: values, task: task, schema: schema, verify: verify, cfg: cfg}, nil
}

// scriptConfig is the run config with the script's own URL policy (when
// the config sets none) and the secrets it needs checked.
func scriptConfig(base *config.Config, saved library.Saved) (*config.Config, error) {
	cfg := *base
	if len(cfg.Browser.AllowedDomains) == 0 && len(saved.AllowedDomains) > 0 {
		cfg.Browser.AllowedDomains = slices.Clone(saved.AllowedDomains)
	}
	if len(cfg.Browser.BlockedDomains) == 0 && len(saved.BlockedDomains) > 0 {
		cfg.Browser.BlockedDomains = slices.Clone(saved.BlockedDomains)
	}
	var missing []string
	for _, s := range saved.Secrets {
		if _, ok := cfg.Secrets[s]; !ok {
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s needs the secret(s) %s: define them under secrets: in a config layer (-c)", saved.Name, strings.Join(missing, ", "))
	}
	return &cfg, nil
}

// Saved is the version the rerun runs.
func (p *Prepared) Saved() library.Saved { return p.saved }

// Inputs are every parameter's value, defaults filled in.
func (p *Prepared) Inputs() map[string]any { return p.values }

// Run runs the prepared rerun, heals it when asked and it fails, and
// appends it to the script's history. The error is non-nil only when the
// rerun could not be carried out (an unreachable judge, a broken library);
// a script that fails is a Report with Verified false and its Reason.
func (p *Prepared) Run(ctx context.Context) (Report, error) {
	o, saved := p.o, p.saved
	start := time.Now()
	h, err := harness.Build(p.cfg, harness.Options{Warn: o.Warn, ScriptsOnly: true})
	if err != nil {
		return Report{}, &library.UsageError{Msg: err.Error()}
	}
	dir := o.Library.RerunDir(o.Name, saved.Version.Version, start)
	if o.OutputDir != "" {
		dir = filepath.Join(o.OutputDir, filepath.Base(o.Name+"_"+filepath.Base(dir)))
	}
	if o.RunDir != "" {
		dir = o.RunDir
	}
	startURL := saved.StartURL
	if o.StartURL != "" {
		startURL = o.StartURL
	}
	script, err := saved.Script()
	if err != nil {
		return Report{}, err
	}
	res, err := h.RunScript(ctx, harness.ScriptRun{
		Dir: dir, TaskID: o.Name, Task: p.task, StartURL: startURL,
		Script: script, Args: p.args, Schema: p.schema, Crafted: saved.Crafted, Verify: p.verify,
	})
	rep := Report{
		Name: o.Name, Version: saved.Version.Version, Verified: res.Verified, Verify: string(res.Verify),
		Inputs: p.values, Task: p.task, RunDir: res.RunDir, FinalRun: res.FinalRun,
		ModelCalls: res.JudgeCalls, Tokens: res.JudgeUsage.TotalTokens, Cost: res.JudgeUsage.Cost,
	}
	if err != nil {
		var dirErr *harness.RunDirError
		var cfgErr *harness.ConfigError
		if errors.As(err, &dirErr) || errors.As(err, &cfgErr) {
			return rep, &library.UsageError{Msg: err.Error()}
		}
		rep.Reason = "the rerun could not be carried out: " + err.Error()
		rep.Seconds = time.Since(start).Seconds()
		p.record(rep)
		return rep, err
	}
	if !res.Verified {
		rep.Reason = res.Verdict.Reason
		if rep.Reason == "" {
			rep.Reason = firstLine(res.Verdict.Message)
		}
		rep.ErrorTail = res.ErrorTail
	}
	rep.Output = readOutput(res.FinalRun)
	if !res.Verified && o.Heal {
		if err := p.heal(ctx, &rep, startURL); err != nil {
			rep.Seconds = time.Since(start).Seconds()
			p.record(rep)
			return rep, err
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	if err := writeReport(rep); err != nil && o.Warn != nil {
		o.Warn(err.Error())
	}
	if err := p.record(rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// record appends the rerun to the script's history.
func (p *Prepared) record(rep Report) error {
	if p.inner {
		return nil
	}
	verified := rep.Verified
	ev := library.Event{
		Kind: library.EventRerun, Version: p.saved.Version.Version, Inputs: rep.Inputs, Verify: rep.Verify,
		Verified: &verified, Reason: rep.Reason, Output: rep.Output, Seconds: rep.Seconds,
		ModelCalls: rep.ModelCalls, Tokens: rep.Tokens, Cost: rep.Cost, RunDir: rep.RunDir,
	}
	if h := rep.Heal; h != nil {
		ev.Healed, ev.HealRun, ev.HealCalls, ev.HealTokens, ev.HealCost = h.Saved, h.RunDir, h.ModelCalls, h.Tokens, h.Cost
	}
	return p.o.Library.Append(p.o.Name, ev)
}

// readOutput is a final run's result.json parsed, or nil.
func readOutput(finalRun string) any {
	if finalRun == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(finalRun, output.ResultFile))
	if err != nil {
		return nil
	}
	v, err := output.ParseJSON(string(b))
	if err != nil {
		return nil
	}
	return v
}

func writeReport(rep Report) error {
	if rep.RunDir == "" {
		return nil
	}
	return writeJSON(filepath.Join(rep.RunDir, "rerun.json"), rep)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
