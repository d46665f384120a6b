package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"wright/library"
	"wright/library/rerun"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/gate"
	"wright/run/harness"
	"wright/run/output"
	"wright/run/rundir"
)

// The script tools' input schemas, written by hand: the whole tools/list
// answer is part of every prompt a client sends, so each word costs.
var (
	makeSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"task":{"type":"string","description":"what to do, in words"},` +
		`"start_url":{"type":"string"},` +
		`"output_schema":{"type":"object","description":"JSON Schema the answer must satisfy"},` +
		`"name":{"type":"string","description":"save the verified script under this name"},` +
		`"crafted":{"type":"boolean","description":"a tool with one flag per variable part (default true)"}},` +
		`"required":["task"]}`)
	rerunSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"name":{"type":"string"},` +
		`"params":{"type":"object","description":"inputs by parameter name"},` +
		`"start_url":{"type":"string","description":"instead of the saved one"}},` +
		`"required":["name"]}`)
	nameSchema     = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	namesSchema    = json.RawMessage(`{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"description":"default: all"}}}`)
	noParamsSchema = json.RawMessage(`{"type":"object"}`)
)

func (s *Server) addScriptTools() {
	s.sdk.AddTool(&mcp.Tool{Name: "script_make", InputSchema: makeSchema,
		Description: "Do a web task with a whole wright run: the agent writes a script, reruns it fresh and a judge checks its screenshots. Returns verified and why, the script, the result and the run folder; saved when named."},
		s.scriptMake)
	s.sdk.AddTool(&mcp.Tool{Name: "script_rerun", InputSchema: rerunSchema,
		Description: "Rerun a saved script with new inputs and verify the rerun (schema and judge)."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return s.scriptRerun(ctx, req, false)
		})
	s.sdk.AddTool(&mcp.Tool{Name: "script_heal", InputSchema: rerunSchema,
		Description: "Rerun a saved script and, when it fails, repair it with an agent run and save the next version."},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return s.scriptRerun(ctx, req, true)
		})
	s.sdk.AddTool(&mcp.Tool{Name: "script_list", InputSchema: noParamsSchema,
		Description: "The saved scripts: name, version, parameters, last rerun."}, s.scriptList)
	s.sdk.AddTool(&mcp.Tool{Name: "script_show", InputSchema: nameSchema,
		Description: "A saved script: its code, parameters, task template and verdict."}, s.scriptShow)
	s.sdk.AddTool(&mcp.Tool{Name: "script_check", InputSchema: namesSchema,
		Description: "Rerun saved scripts with default inputs and say which still work."}, s.scriptCheck)
}

// decode reads a tool's arguments into v; a missing object is an empty one.
func decode(req *mcp.CallToolRequest, v any) error {
	raw := req.Params.Arguments
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	return nil
}

// runConfig is the config of a run started over MCP: extra layers, then
// the server's layers and overrides.
func (s *Server) runConfig(extra ...string) (*config.Config, error) {
	return s.runConfigWith(nil, extra...)
}

func (s *Server) runConfigWith(more map[string]any, extra ...string) (*config.Config, error) {
	overrides := map[string]any{}
	for k, v := range s.opts.Overrides {
		overrides[k] = v
	}
	for k, v := range more {
		overrides[k] = v
	}
	// The call's layers (crafted_cli) come first, so that the server's own
	// -c layers win where they say otherwise, as on wright run's command line.
	return config.Load(append(append([]string(nil), extra...), s.opts.Layers...), overrides)
}

// callConfig is the config of the runs of one tool call. With model.api
// sampling it lends the call's MCP session to them (given back by done),
// and fails when the client offers no sampling.
func (s *Server) callConfig(req *mcp.CallToolRequest, extra ...string) (cfg *config.Config, done func(), err error) {
	done = func() {}
	cfg, err = s.runConfig(extra...)
	if err != nil {
		return nil, done, err
	}
	jm, jerr := cfg.JudgeModel()
	judgeSamples := jerr == nil && jm.API == APISampling
	if cfg.Model.API != APISampling && !judgeSamples {
		return cfg, done, nil
	}
	if req.Session == nil || req.Session.InitializeParams() == nil || req.Session.InitializeParams().Capabilities == nil ||
		req.Session.InitializeParams().Capabilities.Sampling == nil {
		return nil, done, errors.New("model.api is sampling, but this client offers no sampling: configure a model for wright (model.api, model.name and its key) or use a client that answers sampling/createMessage")
	}
	base, give, err := lendSampler(req.Session)
	if err != nil {
		return nil, done, err
	}
	more := map[string]any{}
	if cfg.Model.API == APISampling {
		more["model.base_url"] = base
		if strings.TrimSpace(cfg.Model.Name) == "" {
			more["model.name"] = APISampling
		}
	}
	if judgeSamples {
		more["gate.model.base_url"] = base
	}
	cfg, err = s.runConfigWith(more, extra...)
	if err != nil {
		give()
		return nil, done, err
	}
	return cfg, give, nil
}

// makeAnswer is what script_make returns.
type makeAnswer struct {
	Verified   bool            `json:"verified"`
	Why        string          `json:"why"`
	ExitStatus string          `json:"exit_status"`
	Steps      int             `json:"steps"`
	Cost       float64         `json:"cost_usd"`
	Result     any             `json:"result,omitempty"`
	Final      string          `json:"final_response,omitempty"`
	RunDir     string          `json:"run_dir"`
	Script     string          `json:"script,omitempty"`
	Saved      *savedAnswer    `json:"saved,omitempty"`
	Resources  []string        `json:"resources,omitempty"`
	Params     []library.Param `json:"params,omitempty"`
}

type savedAnswer struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	Dir     string `json:"dir"`
}

func (s *Server) scriptMake(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Task         string          `json:"task"`
		StartURL     string          `json:"start_url"`
		OutputSchema json.RawMessage `json:"output_schema"`
		Name         string          `json:"name"`
		Crafted      *bool           `json:"crafted"`
	}
	if err := decode(req, &in); err != nil {
		return s.failure(err), nil
	}
	if strings.TrimSpace(in.Task) == "" {
		return s.failure(errors.New("task is required: what to do, in words")), nil
	}
	if in.Name != "" {
		if err := library.CheckName(in.Name); err != nil {
			return s.failure(fmt.Errorf("name: %w", err)), nil
		}
		if s.opts.Library == nil {
			return s.failure(errors.New("no script library: start wright mcp with --library DIR")), nil
		}
	}
	var extra []string
	if in.Crafted == nil || *in.Crafted {
		extra = append(extra, "crafted_cli")
	}
	cfg, lent, err := s.callConfig(req, extra...)
	if err != nil {
		return s.failure(err), nil
	}
	defer lent()
	task := harness.Task{Text: in.Task, StartURL: in.StartURL}
	if len(in.OutputSchema) > 0 && string(in.OutputSchema) != "null" {
		if task.OutputSchema, err = output.Compile(in.OutputSchema, "output_schema"); err != nil {
			return s.failure(err), nil
		}
	}
	h, err := harness.Build(cfg, harness.Options{OutputDir: s.opts.OutputDir, Warn: s.warn,
		Observer: s.progress(ctx, req, cfg.Agent.StepLimit)})
	if err != nil {
		return s.failure(err), nil
	}
	res, err := h.Run(ctx, task)
	if err != nil && res.ExitStatus == "" {
		return s.failure(fmt.Errorf("the run did not start: %w", err)), nil
	}
	ans := makeAnswer{ExitStatus: string(res.ExitStatus), Steps: res.Steps, Cost: res.Usage.Cost, Result: res.Output,
		Final: res.FinalResponse, RunDir: res.RunDir}
	if res.JudgeUsage != nil {
		ans.Cost += res.JudgeUsage.Cost
	}
	ans.Verified = res.ExitStatus == agent.Submitted && res.GateLabel != nil && *res.GateLabel == 1
	ans.Why = why(res, err)
	// The model wrote the workspace: its script may be a link to a host
	// file, which is not followed.
	if b, err := readBelow(res.RunDir, "workspace", gate.FinalScriptName); err == nil {
		ans.Script = string(b)
	}
	if id := filepath.Base(res.RunDir); res.RunDir != "" {
		ans.Resources = []string{runURI(id, stepsFile), runURI(id, resultFile)}
	}
	if ans.Verified && in.Name != "" {
		saved, err := s.save(ctx, cfg, in.Name, task, res)
		if err != nil {
			ans.Verified, ans.Why = false, "verified, but not saved: "+err.Error()
		} else {
			ans.Saved = &savedAnswer{Name: in.Name, Version: saved.Version.Version, Dir: saved.Dir}
			ans.Params = saved.Interface.Params
			ans.Resources = append(ans.Resources, scriptURI(in.Name))
		}
	}
	s.syncResources()
	r := s.jsonResult(ans)
	r.IsError = ctx.Err() != nil
	return r, nil
}

// why says in a line why a run's result is or is not verified.
func why(res rundir.Result, err error) string {
	switch {
	case err != nil:
		return fmt.Sprintf("%s; saving the run: %v", res.ExitStatus, err)
	case res.ExitStatus == agent.Submitted && res.GateLabel != nil && *res.GateLabel == 1:
		return fmt.Sprintf("the judge passed final run run_%d, a fresh run of the script", *res.GateRun)
	case res.ExitStatus == agent.Submitted:
		return "submitted without a judged final run (the gate is off): not verified"
	case res.ExitStatus == agent.Interrupted:
		return "cancelled: the run stopped, and its folder holds everything up to then"
	}
	return fmt.Sprintf("%s: %s", res.ExitStatus, strings.TrimSpace(res.Message))
}

// save is --save-as: the verified run's script becomes the next version
// of name.
func (s *Server) save(ctx context.Context, cfg *config.Config, name string, task harness.Task, res rundir.Result) (library.Saved, error) {
	spec, err := rerun.VersionFromRun(ctx, cfg, task.Text, task.StartURL, res)
	if err != nil {
		return library.Saved{}, err
	}
	spec.Name, spec.Source = name, "mcp"
	if prev, err := s.opts.Library.Latest(name); err == nil {
		if old, err := prev.Script(); err == nil {
			spec.Diff = library.DiffScripts(fmt.Sprintf("v%d/%s", prev.Version.Version, library.ScriptFile), "new/"+library.ScriptFile, string(old), string(spec.Script))
		}
	}
	return s.opts.Library.Save(spec)
}

// progress sends a notifications/progress per step when the client asked
// for progress (a progress token in the request): the step, the first line
// of the model's thought, the command's outcome.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest, total int) harness.Observer {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	// MCP asks progress to grow with every notification: a step's start
	// is its number less a half, its end the number, and anything else
	// a little past the last one sent.
	var mu sync.Mutex
	last := -1.0
	return agent.ObserverFunc(func(e agent.Event) {
		var msg string
		at := float64(e.Step)
		switch e.Kind {
		case agent.RunStarted:
			msg = "run " + filepath.Base(e.RunDir)
		case agent.StepStarted:
			at -= 0.5
			msg = fmt.Sprintf("step %d: %s", e.Step, firstLine(e.Thought))
			if e.Done {
				msg += " (done)"
			}
		case agent.StepEnded:
			msg = fmt.Sprintf("step %d: %s", e.Step, e.Status)
		case agent.DoneRefused:
			msg = fmt.Sprintf("step %d: done refused: %s", e.Step, firstLine(e.Message))
		case agent.RunEnded:
			msg = "ended " + e.Status
		default:
			return
		}
		mu.Lock()
		if at <= last {
			at = last + 0.01
		}
		last = at
		mu.Unlock()
		p := &mcp.ProgressNotificationParams{ProgressToken: token, Progress: at, Message: s.redact(msg)}
		if total > 0 {
			p.Total = float64(total)
		}
		// A client gone or a cancelled call loses a notice, never the run.
		_ = req.Session.NotifyProgress(context.WithoutCancel(ctx), p)
	})
}

func firstLine(t string) string {
	t = strings.TrimSpace(t)
	if i := strings.IndexByte(t, '\n'); i >= 0 {
		t = t[:i]
	}
	if len(t) > 100 {
		t = t[:97] + "..."
	}
	return t
}

// inputs turns the params object into rerun's name=value words.
func inputs(params map[string]any) ([]string, error) {
	names := make([]string, 0, len(params))
	for k := range params {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		switch v := params[k].(type) {
		case string:
			out = append(out, k+"="+v)
		case nil:
			return nil, fmt.Errorf("params.%s is null: give a value or leave it out", k)
		case map[string]any, []any:
			return nil, fmt.Errorf("params.%s: give a string, a number or a boolean", k)
		default:
			b, _ := json.Marshal(v)
			out = append(out, k+"="+string(b))
		}
	}
	return out, nil
}

func (s *Server) scriptRerun(ctx context.Context, req *mcp.CallToolRequest, heal bool) (*mcp.CallToolResult, error) {
	var in struct {
		Name     string         `json:"name"`
		Params   map[string]any `json:"params"`
		StartURL string         `json:"start_url"`
	}
	if err := decode(req, &in); err != nil {
		return s.failure(err), nil
	}
	if s.opts.Library == nil {
		return s.failure(errors.New("no script library: start wright mcp with --library DIR")), nil
	}
	params, err := inputs(in.Params)
	if err != nil {
		return s.failure(err), nil
	}
	cfg, lent, err := s.callConfig(req)
	if err != nil {
		return s.failure(err), nil
	}
	defer lent()
	o := rerun.Options{Library: s.opts.Library, Name: in.Name, Params: params, StartURL: in.StartURL, Config: cfg,
		Heal: heal, HealStepLimit: rerun.DefaultHealSteps, Warn: s.warn}
	if heal {
		o.Observer = s.progress(ctx, req, rerun.DefaultHealSteps)
	}
	p, err := rerun.Prepare(o)
	if err != nil {
		return s.failure(err), nil
	}
	rep, err := p.Run(ctx)
	if err != nil && rep.RunDir == "" {
		return s.failure(err), nil
	}
	if err != nil && rep.Reason == "" {
		rep.Reason = err.Error()
	}
	s.syncResources()
	r := s.jsonResult(rep)
	r.IsError = ctx.Err() != nil
	return r, nil
}

// listAnswer is one script in script_list.
type listAnswer struct {
	Name     string          `json:"name"`
	Version  int             `json:"version"`
	Params   []library.Param `json:"params"`
	StartURL string          `json:"start_url"`
	Task     string          `json:"task"`
	Reruns   int             `json:"reruns"`
	Last     *library.Event  `json:"last_rerun,omitempty"`
}

func (s *Server) scriptList(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if s.opts.Library == nil {
		return s.failure(errors.New("no script library: start wright mcp with --library DIR")), nil
	}
	names, err := s.opts.Library.Names()
	if err != nil {
		return s.failure(err), nil
	}
	out := []listAnswer{}
	for _, n := range names {
		v, err := s.opts.Library.Latest(n)
		if err != nil {
			continue // a folder being written, or not a script's
		}
		e := listAnswer{Name: n, Version: v.Version.Version, Params: v.Interface.Params, StartURL: v.StartURL, Task: v.Template}
		hist, _ := s.opts.Library.History(n)
		for i := range hist {
			if hist[i].Kind == library.EventRerun {
				e.Reruns++
				e.Last = &hist[i]
			}
		}
		out = append(out, e)
	}
	return s.jsonResult(out), nil
}

func (s *Server) scriptShow(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Name string `json:"name"`
	}
	if err := decode(req, &in); err != nil {
		return s.failure(err), nil
	}
	if s.opts.Library == nil {
		return s.failure(errors.New("no script library: start wright mcp with --library DIR")), nil
	}
	v, err := s.opts.Library.Latest(in.Name)
	if err != nil {
		return s.failure(err), nil
	}
	code, err := v.Script()
	if err != nil {
		return s.failure(err), nil
	}
	schema, _ := v.Schema()
	return s.jsonResult(struct {
		Name     string            `json:"name"`
		Version  int               `json:"version"`
		Task     string            `json:"task"`
		StartURL string            `json:"start_url"`
		Iface    library.Interface `json:"interface"`
		Schema   json.RawMessage   `json:"output_schema,omitempty"`
		Verdict  library.Verdict   `json:"verdict"`
		Dir      string            `json:"dir"`
		Script   string            `json:"script"`
	}{v.Name, v.Version.Version, v.Template, v.StartURL, v.Interface, rawOrNil(schema), v.Verdict, v.Dir, string(code)}), nil
}

func rawOrNil(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" || !json.Valid([]byte(s)) {
		return nil
	}
	return json.RawMessage(s)
}

// checkAnswer is one script in script_check.
type checkAnswer struct {
	Name    string  `json:"name"`
	Version int     `json:"version,omitempty"`
	State   string  `json:"state"` // works or broken
	Reason  string  `json:"reason,omitempty"`
	RunDir  string  `json:"run_dir,omitempty"`
	Seconds float64 `json:"seconds"`
}

func (s *Server) scriptCheck(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Names []string `json:"names"`
	}
	if err := decode(req, &in); err != nil {
		return s.failure(err), nil
	}
	if s.opts.Library == nil {
		return s.failure(errors.New("no script library: start wright mcp with --library DIR")), nil
	}
	names := in.Names
	if len(names) == 0 {
		var err error
		if names, err = s.opts.Library.Names(); err != nil {
			return s.failure(err), nil
		}
	}
	cfg, lent, err := s.callConfig(req)
	if err != nil {
		return s.failure(err), nil
	}
	defer lent()
	token := req.Params.GetProgressToken()
	out := []checkAnswer{}
	for i, n := range names {
		if ctx.Err() != nil {
			break
		}
		if token != nil && req.Session != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: float64(len(names)), Message: "checking " + n})
		}
		row := checkAnswer{Name: n}
		p, err := rerun.Prepare(rerun.Options{Library: s.opts.Library, Name: n, Config: cfg, Warn: s.warn})
		if err != nil {
			row.State, row.Reason = "broken", err.Error()
			out = append(out, row)
			continue
		}
		row.Version = p.Saved().Version.Version
		rep, err := p.Run(ctx)
		row.RunDir, row.Seconds = rep.RunDir, rep.Seconds
		switch {
		case err != nil:
			row.State, row.Reason = "broken", err.Error()
		case rep.Verified:
			row.State = "works"
		default:
			row.State, row.Reason = "broken", rep.Reason
		}
		out = append(out, row)
	}
	r := s.jsonResult(out)
	r.IsError = ctx.Err() != nil
	return r, nil
}
