package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"wright/internal/clip"
	"wright/run/output"
	"wright/trust/sandbox"
)

// RerunOptions configure gate.mode: rerun.
type RerunOptions struct {
	// Workspace holds final_script.py and final_runs/. Required.
	Workspace string
	// Judge looks at each run the gate makes. Required.
	Judge Judge
	// Python runs the script. Default "python3" (looked up in PATH).
	Python string
	// Timeout bounds the script's run. Default 10 minutes.
	Timeout time.Duration
	// Crafted also requires `final_script.py --help` to exit 0: a crafted
	// script is a command-line tool, not a one-off.
	Crafted bool
	// HelpTimeout bounds the --help run. Default 1 minute.
	HelpTimeout time.Duration
	// Env is the script's environment; nil means this process's. Pass the
	// same environment the model's shell has (without the API key) so the
	// rerun sees what the model saw. RUN_DIR, WRIGHT_RUN_DIR and
	// WORKSPACE_DIR are set on top.
	Env []string
	// Schema, when set, is the output schema: the run's result.json must
	// satisfy it before the judge is asked.
	Schema *output.Schema
	// TailChars is how much of the script's output a refusal quotes.
	// Default 3000.
	TailChars int
	// Sandbox, when set, runs the script under bubblewrap, as the model's
	// shell ran it (sandbox.Spec; Workspace must be among its Writable
	// paths).
	Sandbox *sandbox.Spec
	// Video records every page the script opens into the run's VideoDir
	// (WRIGHT_VIDEO, read by `wright driver`; needs ffmpeg), for review.
	Video bool
	// Args follow the script on its command line: a saved crafted tool's
	// options when it is rerun with other inputs (`wright rerun`).
	Args []string
	// Trace has the run record a Playwright trace of its browser contexts
	// into the run folder (TraceName), for `wright review` and Playwright's
	// trace viewer: wright's Python client reads WRIGHT_TRACE.
	Trace bool
}

// TraceName is the Playwright trace a traced final run leaves in its folder.
const TraceName = "trace.zip"

// RerunGate is gate.mode: rerun. On each done it runs the workspace's
// final_script.py from scratch into a new run folder and has the judge look
// at the result, so a pass never rests on files the model arranged.
type RerunGate struct {
	opts RerunOptions
}

// NewRerunGate returns the rerun gate.
func NewRerunGate(opts RerunOptions) *RerunGate {
	if opts.Workspace != "" {
		if abs, err := filepath.Abs(opts.Workspace); err == nil {
			opts.Workspace = abs
		}
	}
	if opts.Python == "" {
		opts.Python = "python3"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Minute
	}
	if opts.HelpTimeout <= 0 {
		opts.HelpTimeout = time.Minute
	}
	if opts.TailChars <= 0 {
		opts.TailChars = 3000
	}
	return &RerunGate{opts: opts}
}

// Check runs the script and the judge. Problems the model can fix are
// refusals; a cancelled context, a broken workspace the harness owns or an
// unreachable judge are errors.
func (g *RerunGate) Check(ctx context.Context) (Verdict, error) {
	o := g.opts
	if o.Judge == nil {
		return Verdict{}, errors.New("rerun gate: no judge")
	}
	if o.Workspace == "" {
		return Verdict{}, errors.New("rerun gate: no workspace directory")
	}
	script := filepath.Join(o.Workspace, FinalScriptName)
	src, err := readOwnFile(script)
	if errors.Is(err, os.ErrNotExist) {
		return refuse(fmt.Sprintf("There is no %s in the workspace (%s). Write the complete script that carries out the task from a fresh browser, saving screenshots into $RUN_DIR/%s/ as final_execution_<n>_<what>.png; the gate then runs it from scratch and has it judged.", FinalScriptName, o.Workspace, ScreenshotsDir)), nil
	}
	if err != nil {
		return refuse(fmt.Sprintf("The script %s cannot be read (%v). Fix it and say done again.", FinalScriptName, err)), nil
	}

	runsDir := filepath.Join(o.Workspace, FinalRunsDir)
	if fi, err := os.Lstat(runsDir); err == nil && !fi.IsDir() {
		return refuse(fmt.Sprintf("%s/ in the workspace is not a folder (a link or a file), so the gate has nowhere of the workspace's own to run the script. Remove it and say done again; the gate makes the folder itself.", FinalRunsDir)), nil
	}
	n, err := NextRunNumber(runsDir)
	if err != nil {
		return Verdict{}, fmt.Errorf("rerun gate: %w", err)
	}
	runName := fmt.Sprintf("run_%d", n)
	rel := FinalRunsDir + "/" + runName
	runDir := filepath.Join(runsDir, runName)
	// Made one level at a time, never through a link the script planted:
	// Mkdir fails on a name that exists, a link included.
	if err := os.MkdirAll(runsDir, 0o755); err != nil {
		return Verdict{}, fmt.Errorf("rerun gate: make %s: %w", FinalRunsDir, err)
	}
	if err := os.Mkdir(runDir, 0o755); err != nil {
		return refuse(fmt.Sprintf("The gate could not make %s for its run (%v): leave final_runs/ to the gate. Say done again.", rel, err)), nil
	}
	if err := os.Mkdir(filepath.Join(runDir, ScreenshotsDir), 0o755); err != nil {
		return Verdict{}, fmt.Errorf("rerun gate: make %s: %w", rel, err)
	}
	runScript := filepath.Join(runDir, FinalScriptName)
	if err := os.WriteFile(runScript, src, 0o644); err != nil {
		return Verdict{}, fmt.Errorf("rerun gate: copy the script: %w", err)
	}
	env := append(append([]string{}, g.baseEnv()...),
		"RUN_DIR="+runDir, "WRIGHT_RUN_DIR="+runDir, "WORKSPACE_DIR="+o.Workspace)
	if o.Trace {
		env = append(env, "WRIGHT_TRACE="+filepath.Join(runDir, TraceName))
	}
	if o.Video {
		env = append(env, VideoEnv+"="+filepath.Join(runDir, VideoDir))
	}

	if o.Crafted {
		if refusal, err := g.checkHelp(ctx, env, runScript, n); refusal != nil || err != nil {
			return deref(refusal), err
		}
	}
	args := append([]string{runScript}, o.Args...)
	var returned *returnFile
	if o.Crafted && o.Schema != nil {
		if returned, err = newReturnFile(); err != nil {
			return Verdict{}, err
		}
		defer returned.close()
		args, env = append(returned.args(runScript), o.Args...), append(env, returned.env())
	}

	logPath := filepath.Join(runDir, FinalLogName)
	res, err := g.runLogged(ctx, env, logPath, returned, args)
	if err != nil {
		return Verdict{}, err
	}
	if !res.ok() {
		logText, _ := os.ReadFile(logPath)
		v := refuse(fmt.Sprintf("The gate ran %s from scratch into %s and it %s. The end of its output (%s/%s):\n%s\nFix %s so it runs cleanly from a fresh start, then say done again; the gate reruns it into run_%d.",
			FinalScriptName, rel, res.describe(o.Timeout), rel, FinalLogName, indent(tail(string(logText), o.TailChars)), FinalScriptName, n+1))
		v.Reason = "the script " + res.describe(o.Timeout)
		return v, nil
	}

	if msg := resultProblem(o.Schema, returned, runDir, rel); msg != "" {
		v := refuse(fmt.Sprintf("The gate ran %s from scratch into %s (exit 0), but its result does not hold. %sFix %s and say done again; the gate reruns it into run_%d.",
			FinalScriptName, rel, msg, FinalScriptName, n+1))
		v.Reason = "the result breaks the output schema: " + strings.TrimSpace(msg)
		return v, nil
	}
	return g.judge(ctx, runDir, rel, n)
}

// runLogged runs the final script, python with args, in env, its output
// going to the log file at logPath; returned, when set, is the capture of
// the script's return value.
func (g *RerunGate) runLogged(ctx context.Context, env []string, logPath string, returned *returnFile, args []string) (runResult, error) {
	o := g.opts
	logFile, err := os.Create(logPath)
	if err != nil {
		return runResult{}, fmt.Errorf("rerun gate: create %s: %w", FinalLogName, err)
	}
	runner := g
	if returned != nil && o.Sandbox != nil {
		// The capture writes outside the workspace, which a sandbox
		// otherwise keeps read-only or hidden.
		box := *o.Sandbox
		box.Writable = append(slices.Clone(box.Writable), returned.dir)
		runner = &RerunGate{opts: o}
		runner.opts.Sandbox = &box
	}
	res, err := runner.runPython(ctx, o.Timeout, env, logFile, args...)
	if cerr := logFile.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("rerun gate: write %s: %w", FinalLogName, cerr)
	}
	return res, err
}

// checkHelp runs a crafted tool's --help: a refusal when it fails, or
// when, with an output schema, it does not name the result's fields.
func (g *RerunGate) checkHelp(ctx context.Context, env []string, runScript string, n int) (*Verdict, error) {
	o := g.opts
	var out boundedBuffer
	out.limit = 64 << 10
	res, err := g.runPython(ctx, o.HelpTimeout, env, &out, runScript, "--help")
	if err != nil {
		return nil, err
	}
	if !res.ok() {
		v := refuse(fmt.Sprintf("The gate ran `python3 %s --help` and it %s, and a crafted script must answer --help with its usage and exit 0 (use argparse). Its output ended with:\n%s\nFix %s and say done again; the gate reruns it into run_%d.",
			FinalScriptName, res.describe(o.HelpTimeout), indent(tail(out.String(), o.TailChars)), FinalScriptName, n+1))
		v.Reason = "--help " + res.describe(o.HelpTimeout)
		return &v, nil
	}
	if missing := helpMissesFields(o.Schema, out.String()); len(missing) > 0 {
		v := refuse(fmt.Sprintf("`python3 %s --help` does not say what run() returns: it never names the result's field(s) %s. Describe the returned value, field by field, in the parser's description or epilog, and say done again; the gate reruns it into run_%d.",
			FinalScriptName, strings.Join(missing, ", "), n+1))
		v.Reason = "--help does not name the result's field(s) " + strings.Join(missing, ", ")
		return &v, nil
	}
	return nil, nil
}

func deref(v *Verdict) Verdict {
	if v == nil {
		return Verdict{}
	}
	return *v
}

// judge asks the judge about the run the gate just made (run_<n>, at rel)
// and turns its verdict, or a problem the model can fix, into the gate's.
func (g *RerunGate) judge(ctx context.Context, runDir, rel string, n int) (Verdict, error) {
	verdict, err := g.opts.Judge.JudgeRun(ctx, g.opts.Workspace, runDir)
	var promptErr *PromptError
	switch {
	case errors.Is(err, ErrNothingToJudge):
		v := refuse(fmt.Sprintf("The script ran cleanly into %s, but there is nothing for the judge to look at: %v.\nMake %s save screenshots of the key moments (above all the final state) into $RUN_DIR/%s/ as final_execution_<n>_<what>.png, then say done again.", rel, err, FinalScriptName, ScreenshotsDir))
		v.Reason = fmt.Sprintf("nothing for the judge to look at: %v", err)
		return v, nil
	case errors.As(err, &promptErr) && promptErr.Path != "":
		v := refuse(fmt.Sprintf("The script ran cleanly into %s, but the judge cannot start: %v. Fix %s and say done again.", rel, err, promptErr.Path))
		v.Reason = fmt.Sprintf("the judge cannot start: %v", err)
		return v, nil
	case errors.As(err, &promptErr):
		v := refuse(fmt.Sprintf("The script ran cleanly into %s, but the judge cannot start: %v.", rel, err))
		v.Reason = fmt.Sprintf("the judge cannot start: %v", err)
		return v, nil
	case err != nil:
		return Verdict{}, fmt.Errorf("rerun gate: %w", err)
	}
	if verdict.Label != nil && *verdict.Label == 1 {
		return Verdict{Pass: true, Label: verdict.Label, Run: n}, nil
	}
	what := "failure"
	if verdict.Label == nil {
		what = "no verdict (its answer had no readable \"Status: success|failure\" line)"
	}
	v := refuse(fmt.Sprintf("The gate ran %s from scratch into %s (exit 0) and the judge's verdict is %s. Its reasoning:\n%s\n\nLook at the screenshots in %s/%s/ and at %s/%s, fix %s, and say done again; the gate reruns it into run_%d.",
		FinalScriptName, rel, what, indent(clip.Thirds(strings.TrimSpace(verdict.Reasoning), 6000)), rel, ScreenshotsDir, rel, FinalLogName, FinalScriptName, n+1))
	v.Label, v.Run = verdict.Label, n
	v.Reason = "the judge's verdict is " + what + ": " + clip.Thirds(strings.TrimSpace(verdict.Reasoning), 600)
	return v, nil
}

func (g *RerunGate) baseEnv() []string {
	if g.opts.Env != nil {
		return g.opts.Env
	}
	return os.Environ()
}

// runResult is how a script run ended.
type runResult struct {
	exitCode int
	timedOut bool
	signal   string
}

func (r runResult) ok() bool { return !r.timedOut && r.exitCode == 0 && r.signal == "" }

func (r runResult) describe(timeout time.Duration) string {
	switch {
	case r.timedOut:
		return fmt.Sprintf("did not finish within %s and was stopped", timeout)
	case r.signal != "":
		return "was killed by signal " + r.signal
	default:
		return fmt.Sprintf("exited with code %d", r.exitCode)
	}
}

// runPython runs python with args in the workspace, in its own process
// group so a timeout or cancellation ends everything the script started
// (a browser, a driver), and kills whatever of that group is left when the
// script itself has exited. The error is non-nil only when the script could
// not be started or ctx was cancelled.
func (g *RerunGate) runPython(ctx context.Context, timeout time.Duration, env []string, out io.Writer, args ...string) (runResult, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, g.opts.Python, args...)
	cmd.Dir = g.opts.Workspace
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Where the machine allows, the script is the init of its own PID
	// namespace: whatever it starts (its browser, a setsid'ed helper) ends
	// when it does, and with wright.
	started := func() {}
	var err error
	if g.opts.Sandbox == nil {
		sandbox.Confine(cmd.SysProcAttr)
	} else if started, err = g.sandboxed(cmd); err != nil {
		return runResult{}, fmt.Errorf("rerun gate: %w", err)
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A grandchild holding the output pipe must not hold us too.
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Start()
	started()
	if err != nil {
		return runResult{}, fmt.Errorf("rerun gate: start %s: %w", g.opts.Python, err)
	}
	pgid := cmd.Process.Pid
	err = cmd.Wait()
	_ = syscall.Kill(-pgid, syscall.SIGKILL) // leftovers of the group; ESRCH when none
	if ctx.Err() != nil {
		return runResult{}, fmt.Errorf("rerun gate: %w", ctx.Err())
	}
	if runCtx.Err() != nil {
		return runResult{timedOut: true, exitCode: -1}, nil
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return runResult{}, nil
	case errors.As(err, &exitErr):
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return runResult{exitCode: -1, signal: ws.Signal().String()}, nil
		}
		return runResult{exitCode: exitErr.ExitCode()}, nil
	case errors.Is(err, exec.ErrWaitDelay):
		return runResult{}, nil // exited 0; a leftover child held the pipe and is gone now
	default:
		return runResult{}, fmt.Errorf("rerun gate: run %s: %w", g.opts.Python, err)
	}
}

// tail returns the last n bytes of s, starting at a line when it can.
func tail(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return "(no output)"
	}
	if len(s) <= n {
		return s
	}
	cut := s[len(s)-n:]
	if i := strings.IndexByte(cut, '\n'); i >= 0 && i < len(cut)-1 {
		cut = cut[i+1:]
	}
	return fmt.Sprintf("[... %d earlier bytes omitted]\n%s", len(s)-len(cut), cut)
}

// boundedBuffer keeps the first limit bytes written and counts the rest;
// enough for a --help text, safe against a script that prints forever.
type boundedBuffer struct {
	buf     bytes.Buffer
	limit   int
	dropped int
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	room := b.limit - b.buf.Len()
	if room >= len(p) {
		return b.buf.Write(p)
	}
	if room > 0 {
		b.buf.Write(p[:room])
	}
	b.dropped += len(p) - max(room, 0)
	return len(p), nil
}

func (b *boundedBuffer) String() string {
	if b.dropped > 0 {
		return b.buf.String() + fmt.Sprintf("\n[... %d more bytes]", b.dropped)
	}
	return b.buf.String()
}

// sandboxed wraps the script's command in the run's sandbox. The
// interpreter is named, not the host's path to it, and found on the
// sandbox's own PATH (the host's may be a shim in a directory the sandbox
// does not have). started is to be called once cmd.Start has returned.
func (g *RerunGate) sandboxed(cmd *exec.Cmd) (started func(), err error) {
	if !filepath.IsAbs(g.opts.Python) {
		cmd.Path = g.opts.Python
	}
	return g.opts.Sandbox.Wrap(cmd)
}

// readOwnFile reads a file the model wrote in its workspace, refusing a link:
// the gate reads outside the sandbox, and a final_script.py linked to a host
// file would otherwise be copied into the run folder and its text shown to
// the model in the gate's answer.
func readOwnFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%s is a symbolic link; the gate runs only a file of the workspace's own", filepath.Base(path))
		}
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Base(path))
	}
	return io.ReadAll(io.LimitReader(f, 16<<20))
}
