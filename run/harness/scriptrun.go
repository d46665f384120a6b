package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"wright/model"
	"wright/run/gate"
	"wright/run/judge"
	"wright/run/output"
	"wright/run/rundir"
)

// Verify says which checks a script run gets (`wright rerun --verify`).
type Verify string

const (
	VerifyBoth   Verify = "both"   // the output schema, then the judge
	VerifyJudge  Verify = "judge"  // the judge only
	VerifySchema Verify = "schema" // the output schema only; no model call
	VerifyNone   Verify = "none"   // the script's exit status only
)

// ParseVerify reads a --verify value.
func ParseVerify(s string) (Verify, error) {
	switch v := Verify(s); v {
	case VerifyBoth, VerifyJudge, VerifySchema, VerifyNone:
		return v, nil
	}
	return "", fmt.Errorf("--verify %q: use judge, schema, both or none", s)
}

// ScriptRun is one run of a saved script outside the agent's loop.
type ScriptRun struct {
	// Dir is the exact run directory to make. Required.
	Dir string
	// TaskID, Task and StartURL go into the workspace's task.json; Task is
	// what the judge holds the run to.
	TaskID, Task, StartURL string
	// Script is final_script.py's source. Required.
	Script []byte
	// Args follow the script on its command line (its inputs).
	Args []string
	// Schema is the script's output schema, or nil.
	Schema *output.Schema
	// Crafted: the script is a command-line tool (its --help is run too).
	Crafted bool
	// Verify picks the checks; empty means both with a schema, else judge.
	Verify Verify
}

// ScriptResult is how a script run ended.
type ScriptResult struct {
	RunDir    string
	Workspace string
	// FinalRun is the folder the script ran into (its result.json,
	// screenshots, log and the judge's verdict).
	FinalRun string
	// Verified: the script ran cleanly and passed the chosen checks.
	Verified bool
	// Verdict is the gate's answer (Reason says why on a failure).
	Verdict gate.Verdict
	Verify  Verify
	// JudgeCalls and JudgeUsage are what the judge spent: a script run
	// makes no other model call.
	JudgeCalls int
	JudgeUsage model.Usage
	Seconds    float64
}

// RunScript runs a saved script in a fresh run directory, with the same
// sandbox, URL policy, secrets and browser settings as a run of this
// harness, through the rerun gate (with its inputs as Args), and verifies
// it as s.Verify says. The judge gets the harness's own prompts and the
// task s.Task, never text from the script. An error means the run could
// not be made or checked (a judge that cannot be reached), not that the
// script failed.
func (h *Harness) RunScript(ctx context.Context, s ScriptRun) (ScriptResult, error) {
	start := time.Now()
	if s.Dir == "" || len(s.Script) == 0 {
		return ScriptResult{}, errors.New("run script: no run directory or no script")
	}
	verify, err := scriptVerify(s)
	if err != nil {
		return ScriptResult{}, err
	}
	// The judge's client first: a judge that cannot be configured (no
	// key) fails before anything is made or run.
	j, meter, counter, err := h.scriptJudge(verify)
	if err != nil {
		return ScriptResult{}, err
	}
	run, err := rundir.Create(s.Dir)
	if err != nil {
		return ScriptResult{}, &RunDirError{Err: err}
	}
	r := &runner{h: h, task: Task{ID: s.TaskID, Text: s.Task, StartURL: s.StartURL}, run: run, meter: meter}
	defer r.close()
	run.Redact = h.secrets.RedactBytes
	res := ScriptResult{RunDir: run.Dir, Workspace: run.Workspace, Verify: verify}
	if err := run.WriteJSON(filepath.Join("workspace", "task.json"), map[string]any{
		"task_id": s.TaskID, "task": s.Task, "start_url": s.StartURL,
	}); err != nil {
		return res, err
	}
	if err := os.WriteFile(filepath.Join(run.Workspace, gate.FinalScriptName), s.Script, 0o644); err != nil {
		return res, fmt.Errorf("run script: %w", err)
	}
	env, err := r.scriptEnv()
	if err != nil {
		return res, err
	}
	var schema *output.Schema
	if verify == VerifyBoth || verify == VerifySchema {
		schema = s.Schema
	}
	g := gate.NewRerunGate(gate.RerunOptions{
		Workspace: run.Workspace,
		Judge:     j,
		Timeout:   time.Duration(h.cfg.Gate.RerunTimeoutSeconds * float64(time.Second)),
		Crafted:   s.Crafted,
		Video:     h.cfg.Gate.Video,
		Env:       env,
		Schema:    schema,
		Sandbox:   r.box,
		Args:      s.Args,
	})
	v, err := g.Check(ctx)
	res.Verdict, res.Verified = v, err == nil && v.Pass
	res.JudgeCalls, res.JudgeUsage = counter.count(), r.meter.total()
	if newest, ok, _ := gate.NewestRun(filepath.Join(run.Workspace, gate.FinalRunsDir)); ok {
		res.FinalRun = newest.Path
	}
	res.Seconds = time.Since(start).Seconds()
	return res, err
}

// scriptVerify is the checks s gets: s.Verify, else both with a schema and
// the judge only without one.
func scriptVerify(s ScriptRun) (Verify, error) {
	verify := s.Verify
	if verify == "" {
		verify = VerifyJudge
		if s.Schema != nil {
			verify = VerifyBoth
		}
	}
	if (verify == VerifyBoth || verify == VerifySchema) && s.Schema == nil {
		return "", fmt.Errorf("--verify %s: the script has no output schema", verify)
	}
	return verify, nil
}

// scriptJudge is the judge of a script run, metered and counted; a run
// that verify does not judge gets one that passes every run.
func (h *Harness) scriptJudge(verify Verify) (gate.Judge, *judgeMeter, *countingClient, error) {
	meter := &judgeMeter{}
	var j gate.Judge = passJudge{}
	counter := &countingClient{}
	if verify == VerifyBoth || verify == VerifyJudge {
		client, jm, err := meteredJudge(h.cfg, meter)
		if err != nil {
			return nil, nil, nil, &ConfigError{Err: err}
		}
		meter.price = jm.Price
		counter.Client = client
		j = &judge.RunJudge{Client: counter, Options: judge.ReflectOptions{Model: jm.Name, Endpoint: endpoint(jm)}}
	}
	return j, meter, counter, nil
}

// scriptEnv sets up the script run's sandbox, proxy and browsers and
// returns the environment the script runs with: the parent's without the
// model keys, plus the shell's variables.
func (r *runner) scriptEnv() ([]string, error) {
	h := r.h
	var err error
	if r.sandboxed, err = useSandbox(h.cfg); err != nil {
		return nil, err
	}
	vars := map[string]string{}
	socket, err := r.sandboxSocket()
	if err != nil {
		return nil, err
	}
	pvars, proxyURL, closeProxy, err := workspaceProxy(h.cfg, socket)
	if err != nil {
		return nil, err
	}
	r.onClose(closeProxy)
	if err := r.scriptBrowsers(vars, proxyURL); err != nil {
		return nil, err
	}
	for k, v := range pvars {
		vars[k] = v
	}
	shellVars, err := r.shellEnv(vars)
	if err != nil {
		return nil, err
	}
	if r.sandboxed {
		r.box = sandboxSpec(r.run.Workspace, h.opts.Executable, r.proxySocket, shellVars)
	}
	env := hiddenEnviron(h.cfg.KeyNames())
	for k, v := range shellVars {
		env = append(env, k+"="+v)
	}
	return env, nil
}

// ConfigError is a configuration that cannot run a script (a judge with
// no key): the caller's to fix, reported before anything ran.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// passJudge stands in for the judge when a rerun is not to be judged
// (--verify schema|none): every run it is shown passes, with no call.
type passJudge struct{}

func (passJudge) JudgeRun(context.Context, string, string) (gate.JudgeVerdict, error) {
	one := 1
	return gate.JudgeVerdict{Label: &one, Reasoning: "not judged"}, nil
}

// countingClient counts the judge's model calls.
type countingClient struct {
	model.Client
	mu sync.Mutex
	n  int
}

func (c *countingClient) Complete(ctx context.Context, msgs []model.Message) (model.Reply, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.Client.Complete(ctx, msgs)
}

func (c *countingClient) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
