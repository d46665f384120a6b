package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"wright/browser/probe"
	"wright/env"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/harness"
	"wright/run/rundir"
)

// HarnessExecutor runs attempts through the harness, one run each, and
// scores them.
type HarnessExecutor struct {
	// Config returns the configuration of one attempt (the bench's layers,
	// the task's mode and config, the model). Its error is a usage error.
	Config func(t Task, attempt int) (*config.Config, error)
	// Executable is the wright binary (`wright driver`, `wright reflect`).
	Executable string
	Warn       func(string)
	// RerunTimeout bounds the rerun of a final script for page evaluators.
	RerunTimeout time.Duration
	// Reuse, when set, serves script tasks from the script library.
	Reuse *Reuse

	// Endpoints are the remote browsers the workers share (browser.cdp_urls
	// and browser.cdp_urls_file). Nil: they are read from the first
	// attempt's config.
	Endpoints *Endpoints

	// Shared, when set, is the browser the live attempts share, each in a
	// context of its own, when they have no remote browser.
	Shared *SharedBrowser

	endpointsOnce sync.Once
	endpointsErr  error
}

var endpointStatus = regexp.MustCompile(`model endpoint answered (\d{3})`)

// Run runs one attempt, on the worker's remote browser when the bench has
// a rotation of them.
func (x *HarnessExecutor) Run(ctx context.Context, a Attempt) (Record, error) {
	cfg, err := x.Config(a.Task, a.N)
	if err != nil {
		return Record{}, &FatalError{Err: err}
	}
	pool, err := x.endpoints(cfg)
	if err != nil {
		return Record{}, &FatalError{Err: err}
	}
	if pool == nil || cfg.Browser.CDPURL != "" {
		if x.Shared.Fits(cfg) {
			return x.runShared(ctx, cfg, a)
		}
		return x.run(ctx, cfg, a, "")
	}
	// An endpoint is checked before the attempt (a dead one costs no run)
	// and after it: one that died meanwhile makes the result the
	// browser's failure, not the model's.
	i := -1
	for i < 0 {
		var url string
		if i, url, err = pool.For(a.Worker); err != nil {
			return Record{ExitStatus: "EnvironmentError"}, &FatalError{Err: err}
		}
		if perr := pool.Check(ctx, i); perr != nil {
			x.warn(fmt.Sprintf("the remote browser %s does not answer (%v): out of rotation, %d of %d left", url, perr, pool.Live(), pool.Len()))
			i = -1
			continue
		}
		cfg.Browser.CDPURL = url
	}
	rec, err := x.run(ctx, cfg, a, "")
	if ctx.Err() == nil {
		if perr := pool.Check(ctx, i); perr != nil {
			x.warn(fmt.Sprintf("the remote browser %s stopped answering (%v): out of rotation, %d of %d left; its attempt is retried on another", cfg.Browser.CDPURL, perr, pool.Live(), pool.Len()))
			return Record{ExitStatus: "EnvironmentError", Seconds: rec.Seconds}, &EndpointLostError{URL: cfg.Browser.CDPURL, Reason: perr}
		}
	}
	return rec, err
}

func (x *HarnessExecutor) warn(msg string) {
	if x.Warn != nil {
		x.Warn(msg)
	}
}

// endpoints is the bench's rotation of remote browsers, read once.
func (x *HarnessExecutor) endpoints(cfg *config.Config) (*Endpoints, error) {
	x.endpointsOnce.Do(func() {
		if x.Endpoints != nil {
			return
		}
		urls, err := ReadEndpoints(cfg.Browser.CDPURLs, cfg.Browser.CDPURLsFile)
		x.Endpoints, x.endpointsErr = NewEndpoints(urls), err
	})
	return x.Endpoints, x.endpointsErr
}

// runShared runs a live attempt in its own context of the shared browser.
// If that browser ended meanwhile, whatever the run made of it, the
// attempt is the browser's failure and is retried on a new one.
func (x *HarnessExecutor) runShared(ctx context.Context, cfg *config.Config, a Attempt) (Record, error) {
	start := time.Now()
	lease, err := x.Shared.Take(ctx, a.Worker)
	if err != nil {
		// Ctrl-C while the shared browser starts is an interrupt, as
		// while the attempt's own browser would start (notStarted).
		return notStarted(ctx, cfg, err, start)
	}
	rec, err := x.run(ctx, cfg, a, lease.URL)
	if lease.Lost() && ctx.Err() == nil {
		return Record{ExitStatus: "EnvironmentError", Mode: cfg.Agent.Mode, Seconds: rec.Seconds, AttemptSeconds: rec.AttemptSeconds}, &BrowserLostError{}
	}
	return rec, err
}

// run runs one attempt through the harness, on the shared browser at
// shared when that is set, and scores it.
func (x *HarnessExecutor) run(ctx context.Context, cfg *config.Config, a Attempt, shared string) (Record, error) {
	begun := time.Now()
	var spent Record // a failed rerun's cost, counted into the agent run
	if x.Reuse != nil && x.Reuse.Library != nil && a.Task.Script != "" {
		rec, done, failed := x.reuseScript(ctx, cfg, a)
		if done {
			return rec, nil
		}
		spent = failed
	}
	var probe *PageProbe
	var probeErr string
	var probing time.Duration // the live page's probe, part of the scoring
	live := cfg.Agent.Mode == "browser"
	opts := x.harnessOptions(a)
	opts.SharedBrowser = shared
	if live && a.Task.Eval.NeedsPage() {
		opts.AtEnd = func(ctx context.Context, e env.Environment) {
			began := time.Now()
			probe, probeErr = probeLive(ctx, e, a.Task.Eval.ProbeExprs())
			probing = time.Since(began)
		}
	}
	h, err := harness.Build(cfg, opts)
	if err != nil {
		return Record{}, &FatalError{Err: err}
	}
	start := time.Now()
	res, err := h.Run(ctx, harness.Task{ID: a.Task.ID, Text: a.Task.Text, StartURL: a.Task.StartURL, OutputSchema: a.Task.Schema})
	if err != nil && res.ExitStatus == "" {
		return notStarted(ctx, cfg, err, start)
	}
	rec := x.agentRecord(ctx, cfg, a, res, spent)
	if stop, err := endedEarly(rec, res); stop {
		return rec, err
	}
	scoring := time.Now()
	if rec.ExitStatus == string(agent.Submitted) && !live && a.Task.Eval.NeedsPage() {
		probe, probeErr = x.rerun(ctx, cfg, a, res.RunDir, shared)
	}
	v := Score(ctx, a.Task, Final{
		ExitStatus: rec.ExitStatus, Response: rec.FinalResponse, GateLabel: rec.GateLabel,
		Page: probe, PageErr: probeErr, RunDir: res.RunDir, Config: cfg,
	})
	rec.Passed, rec.Evals, rec.Unscored = v.Passed, v.Evals, v.Unscored
	// What the evaluators spent (the judge) is part of the attempt's cost.
	rec.Cost += v.Usage.Cost
	rec.Tokens += v.Usage.TotalTokens
	rec.PromptTokens += v.Usage.PromptTokens
	rec.CachedTokens += v.Usage.CachedTokens
	rec.ScoreSeconds = (time.Since(scoring) + probing).Seconds()
	rec.AttemptSeconds = time.Since(begun).Seconds()
	return rec, nil
}

// harnessOptions are the options of an attempt's harness, but for the
// page probe at the end of a live run, which run sets.
func (x *HarnessExecutor) harnessOptions(a Attempt) harness.Options {
	return harness.Options{
		RunDir:     a.RunDir,
		Executable: x.Executable,
		Warn:       x.Warn,
		Observer: agent.ObserverFunc(func(e agent.Event) {
			if e.Kind == agent.StepStarted && a.Step != nil {
				a.Step(e.Step, e.Command)
			}
		}),
	}
}

// notStarted is the record and error of a run that failed before it
// started, begun at start.
func notStarted(ctx context.Context, cfg *config.Config, err error, start time.Time) (Record, error) {
	var dirErr *harness.RunDirError
	if errors.As(err, &dirErr) {
		return Record{}, &FatalError{Err: err}
	}
	if ctx.Err() != nil && !errors.Is(context.Cause(ctx), ErrTaskTimeout) {
		// Ctrl-C while the browser or the shell was starting: the
		// attempt was interrupted, as one interrupted later is, and
		// runs again on resume; it says nothing about the machine.
		return Record{ExitStatus: string(agent.Interrupted), Mode: cfg.Agent.Mode, Seconds: time.Since(start).Seconds()}, nil
	}
	return Record{ExitStatus: "EnvironmentError", Mode: cfg.Agent.Mode, Seconds: time.Since(start).Seconds()}, fmt.Errorf("the run did not start: %w", err)
}

// agentRecord is the record of the agent's run res, before scoring, with
// the cost of a failed script rerun, spent, counted in; it saves the
// run's script to the library when the reuse asks so.
func (x *HarnessExecutor) agentRecord(ctx context.Context, cfg *config.Config, a Attempt, res rundir.Result, spent Record) Record {
	rec := Record{
		ExitStatus:   string(res.ExitStatus),
		GateLabel:    res.GateLabel,
		Steps:        res.Steps,
		Tokens:       res.Usage.TotalTokens,
		PromptTokens: res.Usage.PromptTokens,
		CachedTokens: res.Usage.CachedTokens,
		Cost:         res.Usage.Cost,
		// What the endpoint reported nothing for, as wright estimated it.
		EstimatedPromptTokens: res.EstimatedPromptTokens,
		Seconds:               res.Seconds + spent.Seconds,
		ModelSeconds:          res.ModelSeconds,
		EnvSeconds:            res.EnvSeconds,
		StartSeconds:          res.StartSeconds,
		FinalResponse:         res.FinalResponse,
		Mode:                  cfg.Agent.Mode,
	}
	if j := res.JudgeUsage; j != nil {
		// The gate's judge is part of what the attempt cost.
		rec.Tokens += j.TotalTokens
		rec.Cost += j.Cost
	}
	if x.Reuse != nil && x.Reuse.Library != nil {
		rec.Via = ViaAgent
		rec.Cost += spent.Cost
		rec.Tokens += spent.Tokens
		if x.Reuse.Save {
			x.saveScript(ctx, cfg, a, res)
		}
	}
	if errors.Is(context.Cause(ctx), ErrTaskTimeout) {
		rec.ExitStatus = TimeLimitExceeded
	}
	return rec
}

// endedEarly reports whether the run of rec ended in a way that is not
// scored (a model or environment error, an interrupt), with the error
// the attempt returns.
func endedEarly(rec Record, res rundir.Result) (bool, error) {
	switch rec.ExitStatus {
	case string(agent.ModelError):
		if m := endpointStatus.FindStringSubmatch(res.Message); m != nil {
			switch code, _ := strconv.Atoi(m[1]); code {
			case 400, 401, 403, 404:
				return true, &FatalError{Err: errors.New(res.Message)}
			}
		}
		return true, errors.New(res.Message)
	case string(agent.EnvironmentError):
		return true, errors.New(res.Message)
	case string(agent.Interrupted):
		return true, nil
	}
	return false, nil
}

func probeLive(ctx context.Context, e env.Environment, exprs []string) (*PageProbe, string) {
	p, ok := e.(env.Prober)
	if !ok {
		return nil, "this environment has no page"
	}
	// The run's ctx may be cancelled (a timeout); the probe still reads.
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	got, err := p.Probe(pctx, exprs)
	if err != nil {
		return nil, err.Error()
	}
	out := &PageProbe{URL: got.URL}
	for _, v := range got.Values {
		out.Values = append(out.Values, ProbeValue{Value: v.Value, Err: v.Err})
	}
	return out, ""
}

// rerun runs the run's final_script.py again in a folder of its own
// (bench_eval/, beside the workspace, so final_runs/ stays the model's and
// the gate's) and reads the page the script was last active on through the
// driver's probe.
func (x *HarnessExecutor) rerun(ctx context.Context, cfg *config.Config, a Attempt, runDir, shared string) (*PageProbe, string) {
	src := filepath.Join(runDir, "workspace", "final_script.py")
	script, err := os.ReadFile(src)
	if err != nil {
		return nil, "no final_script.py to rerun"
	}
	dir := filepath.Join(runDir, "bench_eval")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err.Error()
	}
	if err := os.WriteFile(filepath.Join(dir, "final_script.py"), script, 0o644); err != nil {
		return nil, err.Error()
	}
	if b, err := os.ReadFile(filepath.Join(runDir, "workspace", "task.json")); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "task.json"), b, 0o644)
	}
	req := probe.Request{Exprs: a.Task.Eval.ProbeExprs(), Out: filepath.Join(dir, "probe.json")}
	rb, _ := json.Marshal(req)
	reqPath := filepath.Join(dir, "probe_request.json")
	if err := os.WriteFile(reqPath, rb, 0o644); err != nil {
		return nil, err.Error()
	}
	vars, err := harness.ScriptVars(cfg, runDir, dir, x.Executable)
	if err != nil {
		return nil, err.Error()
	}
	// The rerun's launch() is a context of the worker's shared Chromium
	// (or of one started for it) whose driver reads the probe, rather
	// than a driver and a Chromium of its own asked through WRIGHT_PROBE.
	ps, err := harness.StartProbeScripts(cfg, dir, shared, &req)
	if err != nil {
		return nil, err.Error()
	}
	if ps != nil {
		// Closed once the script ends, before probe.json is read: the
		// driver writes it when the script's browser ends.
		defer ps.Close()
		for k, v := range ps.Vars() {
			vars[k] = v
		}
	} else {
		vars[probe.Env] = reqPath
	}
	timeout := x.RerunTimeout
	if timeout <= 0 {
		timeout = 5 * time.Minute
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	cmd := exec.CommandContext(rctx, "python3", "final_script.py")
	cmd.Dir = dir
	cmd.Env = harness.Environ(cfg, vars)
	log, err := os.Create(filepath.Join(dir, "rerun.log"))
	if err != nil {
		return nil, err.Error()
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	setProcessGroup(cmd)
	runErr := cmd.Run()
	if ps != nil {
		ps.Close()
	}
	b, err := os.ReadFile(req.Out)
	if err != nil {
		if runErr != nil {
			return nil, fmt.Sprintf("the rerun of final_script.py failed (%v) and read no page; see bench_eval/rerun.log", runErr)
		}
		return nil, "the rerun of final_script.py opened no browser through wright's driver"
	}
	var got probe.Result
	if err := json.Unmarshal(b, &got); err != nil {
		return nil, "probe.json: " + err.Error()
	}
	if got.URL == "" && len(got.Values) == 0 {
		return nil, "the rerun's script " + got.When
	}
	out := &PageProbe{URL: got.URL}
	for _, v := range got.Values {
		out.Values = append(out.Values, ProbeValue{Value: v.Value, Err: v.Err})
	}
	return out, ""
}
