package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// ErrorTail is, when the script did not exit cleanly, the end of what
	// it printed: its own line that raised and the error it raised (a
	// Python traceback's last frame in the script and the exception, a
	// Playwright error with its call log), else its last lines. Bounded
	// (ErrorTailLines lines, ErrorTailBytes bytes); secrets masked.
	ErrorTail string
	Verify    Verify
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
	if err == nil && !v.Pass && scriptFailed(v) && res.FinalRun != "" {
		if b, rerr := os.ReadFile(filepath.Join(res.FinalRun, gate.FinalLogName)); rerr == nil {
			res.ErrorTail = h.secrets.Redact(ErrorTail(string(b)))
		}
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
	r.scriptRun = true
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

// scriptFailed: the gate refused because the script itself did not end
// cleanly (an exit code, a signal, a timeout), not because of its result
// or the judge. The rerun gate's reason for those says "the script ...".
func scriptFailed(v gate.Verdict) bool {
	return strings.HasPrefix(v.Reason, "the script ")
}

// The bounds of ScriptResult.ErrorTail.
const (
	ErrorTailLines = 12
	ErrorTailBytes = 1500
	errorLineBytes = 300
)

// ErrorTail is the end of a failed script's output that says why it
// failed. With a Python traceback: the last frame in final_script.py (the
// script's own line; the file named without its folder) and the exception
// with the lines that follow it (a Playwright error's call log); without
// one, the last lines. At most ErrorTailLines lines of at most
// errorLineBytes bytes each, ErrorTailBytes in all; "" for no output.
func ErrorTail(log string) string {
	lines := strings.Split(strings.TrimRight(strings.ReplaceAll(log, "\r\n", "\n"), "\n \t"), "\n")
	tb := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "Traceback (most recent call last):") {
			tb = i
		}
	}
	if tb < 0 {
		return boundLines(lastLines(lines, ErrorTailLines), true)
	}
	return boundLines(tracebackTail(lines[tb+1:]), false)
}

// tracebackTail is a traceback's (the lines after its header) last frame
// in the script, its source line, and the exception's lines.
func tracebackTail(tb []string) []string {
	exc := len(tb)
	for i, l := range tb {
		if l != "" && l[0] != ' ' && l[0] != '\t' {
			exc = i
			break
		}
	}
	var frame []string
	for i := exc - 1; i >= 0; i-- {
		file, rest, ok := frameFile(tb[i])
		if !ok || filepath.Base(file) != gate.FinalScriptName {
			continue
		}
		frame = append(frame, `  File "`+gate.FinalScriptName+`"`+rest)
		if i+1 < exc {
			if src := tb[i+1]; !strings.HasPrefix(strings.TrimSpace(src), "File \"") {
				frame = append(frame, src)
			}
		}
		break
	}
	errLines := tb[exc:]
	if room := ErrorTailLines - len(frame); len(errLines) > room {
		errLines = append(errLines[:room-1:room-1], fmt.Sprintf("[... %d more lines]", len(errLines)-room+1))
	}
	return append(frame, errLines...)
}

// frameFile splits a traceback frame line, `  File "PATH", line N, in F`,
// into PATH and what follows it.
func frameFile(l string) (file, rest string, ok bool) {
	after, found := strings.CutPrefix(strings.TrimLeft(l, " "), `File "`)
	if !found {
		return "", "", false
	}
	end := strings.Index(after, `"`)
	if end < 0 {
		return "", "", false
	}
	return after[:end], after[end+1:], true
}

// lastLines is the last n lines that are not blank.
func lastLines(lines []string, n int) []string {
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			out = append(out, lines[i])
		}
	}
	slices.Reverse(out)
	return out
}

// boundLines clips each line to errorLineBytes and keeps as many lines as
// fit in ErrorTailBytes: the first ones, or with fromEnd the last ones.
func boundLines(lines []string, fromEnd bool) string {
	clipped := make([]string, len(lines))
	for i, l := range lines {
		if len(l) > errorLineBytes {
			l = strings.ToValidUTF8(l[:errorLineBytes], "") + " [...]"
		}
		clipped[i] = l
	}
	if fromEnd {
		slices.Reverse(clipped)
	}
	var kept []string
	size, which := len("[... 999 more lines]"), "more"
	if fromEnd {
		which = "earlier"
	}
	for i, l := range clipped {
		if size+len(l)+1 > ErrorTailBytes {
			kept = append(kept, fmt.Sprintf("[... %d %s lines]", len(clipped)-i, which))
			break
		}
		size += len(l) + 1
		kept = append(kept, l)
	}
	if fromEnd {
		slices.Reverse(kept)
	}
	return strings.Join(kept, "\n")
}
