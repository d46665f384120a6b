// Package live is live browser mode's environment: each python_code action
// runs in one persistent Python process bound to one live page.
//
// The browser is held in this process: a driver.Server (the engine behind
// `wright driver`) launches Chromium with the run's URL policy and serves the
// driver protocol on a Unix socket in a short private directory. The Python
// runner (runner.py, written beside the run) connects to that socket with
// wright_browser.connect() and binds `page`, `browser`, `task` and
// `run_command` in a namespace kept from step to step. Requests and answers
// between Go and the runner travel on a private pipe pair (fds 3 and 4), so
// nothing the code prints can be taken for protocol; the code's stdout and
// stderr are one pipe, read up to a per-step marker.
//
// After each step the observation is taken here, through the engine's Go
// API, not by the runner: it works even when the code hung or killed its
// own process, and it costs no extra round trips through Python.
package live

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"wright/browser"
	"wright/browser/driver"
	"wright/browser/python"
	"wright/env"
	"wright/env/proctab"
	"wright/internal/scratch"
	"wright/trust/netpolicy"
	"wright/trust/sandbox"
)

// Options configure a live browser environment. Zero values take the
// defaults noted.
type Options struct {
	// HAR records or replays the browser's traffic (browser.record_har,
	// browser.replay_har; docs/har.md).
	HAR driver.HAROptions
	// Workspace is the run's workspace (must exist): the code's working
	// directory and run_command's; steps/, logs/ and screenshots/ and
	// script.py are written in it.
	Workspace string
	// LibDir receives runner.py and wright_browser.py. Default: lib/live
	// beside the workspace (in the run directory), so the model's own
	// listings of the workspace stay its own.
	LibDir string
	// TaskJSON is the task file bound as `task` (a dict). Empty: {}.
	TaskJSON string
	// StartURL is opened before the first step. Empty: about:blank.
	StartURL string
	// Browser says which Chromium to start or attach to (Executable,
	// CDPURL, Headed, Viewport, Timeout, Args). Its URLPolicy, if set, is
	// asked after the domain policy below.
	Browser browser.Options
	// AllowedDomains and BlockedDomains are host patterns (see Policy).
	AllowedDomains, BlockedDomains []string
	// StepTimeout bounds one step's code. Default 120s.
	StepTimeout time.Duration
	// AriaChars is the ARIA snapshot's character budget. Default 12000.
	AriaChars int
	// AriaMode is what an observation shows of the snapshot: AriaFull
	// (the whole of it every step) or AriaChanges (the whole after a
	// navigation, else what changed since the last one the model saw; see
	// changes.go). Default AriaFull.
	AriaMode string
	// OutputLimit is how many characters of the code's output the
	// observation keeps (head and tail); the whole output goes to
	// logs/step_NNNN.log. Default 10000.
	OutputLimit int
	// Env is exported to the Python process (WORKSPACE_DIR, TASK_JSON,
	// FINAL_SCRIPT_PATH, ...; defaults are set for those three).
	Env map[string]string
	// HideEnv names variables removed from the inherited environment (API
	// keys).
	HideEnv []string
	// AllowPrivate lists private address ranges the browser may reach
	// (self-hosted sites); other private, link-local and metadata
	// addresses are refused.
	AllowPrivate []netip.Prefix
	// Redact, when set, rewrites the step output before it is written to
	// logs/ or shown (secret values become their placeholders).
	Redact func(string) string
	// Python is the interpreter. Default: python3 on PATH.
	Python string
	// AttachScreenshot says the model sees each step's screenshot: the
	// observation then waits for it, and it is captured in
	// ScreenshotFormat ("png", "jpeg" or "webp"; default png) at
	// ScreenshotQuality (jpeg and webp, 1-100; 0: Chromium's default).
	// Without it the screenshot is a PNG for the run's files, written
	// after the observation returns but before the next step starts.
	AttachScreenshot  bool
	ScreenshotFormat  string
	ScreenshotQuality int
	// Sandbox, when set, runs the Python runner (and all it starts) under
	// bubblewrap (sandbox.Spec): the workspace writable, the runner's
	// library and the driver's socket read-only, the network only through
	// the run's policy proxy. Chromium stays outside, in wright's hands.
	Sandbox *sandbox.Spec
	// SharedBrowser says Browser.CDPURL is a Chromium on this machine that
	// other runs share: the run's policy proxy is started as for a browser
	// it launches and set on the run's own browser context, and the run
	// sees only the pages of its contexts.
	SharedBrowser bool
}

const (
	defaultStepTimeout = 120 * time.Second
	defaultAriaChars   = 12000
	defaultOutputLimit = 10000

	// interruptGrace is how long a timed-out step gets to answer after its
	// SIGINT before the runner is killed and restarted.
	interruptGrace = 3 * time.Second
	// cancelGrace is the same for a cancelled run, which must end promptly.
	cancelGrace = time.Second
	// observeTimeout bounds each browser call of the observation.
	observeTimeout = 10 * time.Second
)

var errClosed = errors.New("the live browser environment is closed")

// Env is the live browser environment. It implements env.Environment.
type Env struct {
	opts       Options
	ws         string
	lib        string
	runner     string // runner.py's path
	python     string
	environ    []string
	policy     *Policy
	net        *netpolicy.Proxy // every request of the browser goes through it
	netMu      sync.Mutex
	netBlocked []string // requests the proxy refused since the last observation
	sockDir    string
	box        *sandbox.Spec // the runner's sandbox, nil without one
	sock       string
	srv        *driver.Server
	serveStop  context.CancelFunc
	serveDone  chan struct{}
	closing    chan struct{}
	closeOnce  sync.Once
	closeErr   error
	scriptPath string

	mu           sync.Mutex // one Execute at a time; guards the fields below
	py           *pyProc    // nil when it must be (re)started
	pageID       string     // the page the namespace's `page` names
	contextID    string     // the run's own browser context on a remote browser; "" is the default
	lastURL      string     // where that page was at the end of the last step
	restartNotes []string   // what was restarted, for the next observation
	notices      []string   // notices for the next observation
	loop         loopState
	pending      *pendingShot // the last observation's screenshot, still being taken
	seen         seenSnapshot // the snapshot the model saw last (AriaChanges)
	wantFull     bool         // the next observation shows the whole snapshot
}

var _ env.Environment = (*Env)(nil)

// runnerSource is the Python runner, written to LibDir at start.
//
//go:embed runner.py
var runnerSource string

// New starts Chromium at opts.StartURL and the Python runner bound to it.
// ctx bounds the start-up only; Close ends everything.
func New(ctx context.Context, opts Options) (*Env, error) {
	e, err := newEnv(opts)
	if err != nil {
		return nil, err
	}
	if err := e.start(ctx); err != nil {
		e.Close()
		return nil, fmt.Errorf("start live browser: %w", err)
	}
	return e, nil
}

func newEnv(opts Options) (*Env, error) {
	if opts.Workspace == "" {
		return nil, errors.New("start live browser: Options.Workspace is empty")
	}
	if opts.AttachScreenshot {
		so := browser.ShotOptions{Format: opts.ScreenshotFormat, Quality: opts.ScreenshotQuality}
		if err := so.Validate(); err != nil {
			return nil, fmt.Errorf("start live browser: %w", err)
		}
	}
	for _, err := range []error{
		env.Default(&opts.StepTimeout, defaultStepTimeout, "StepTimeout"),
		env.Default(&opts.AriaChars, defaultAriaChars, "AriaChars"),
		env.Default(&opts.OutputLimit, defaultOutputLimit, "OutputLimit"),
	} {
		if err != nil {
			return nil, fmt.Errorf("start live browser: %w", err)
		}
	}
	switch opts.AriaMode {
	case "":
		opts.AriaMode = AriaFull
	case AriaFull, AriaChanges:
	default:
		return nil, fmt.Errorf("start live browser: ARIA snapshot mode %q: want %s", opts.AriaMode, strings.Join(AriaModes, " or "))
	}
	ws, err := env.Workspace(opts.Workspace)
	if err != nil {
		return nil, fmt.Errorf("start live browser: %w", err)
	}
	if opts.TaskJSON != "" {
		if opts.TaskJSON, err = filepath.Abs(opts.TaskJSON); err != nil {
			return nil, fmt.Errorf("start live browser: task file: %w", err)
		}
		if err := checkTaskJSON(opts.TaskJSON); err != nil {
			return nil, fmt.Errorf("start live browser: %w", err)
		}
	}
	policy, err := NewPolicy(opts.AllowedDomains, opts.BlockedDomains)
	if err != nil {
		return nil, fmt.Errorf("start live browser: %w", err)
	}
	if opts.StartURL != "" {
		if err := policy.Check(opts.StartURL); err != nil {
			return nil, fmt.Errorf("start live browser: the start URL %s is blocked: %w", opts.StartURL, err)
		}
	}
	pyName := opts.Python
	if pyName == "" {
		pyName = "python3"
	}
	py, err := exec.LookPath(pyName)
	if err != nil {
		return nil, fmt.Errorf("start live browser: python: %w", err)
	}
	lib := opts.LibDir
	if lib == "" {
		lib = filepath.Join(filepath.Dir(ws), "lib", "live")
	}
	if lib, err = filepath.Abs(lib); err != nil {
		return nil, fmt.Errorf("start live browser: lib dir: %w", err)
	}
	for _, sub := range []string{"steps", "logs", "screenshots"} {
		if err := os.MkdirAll(filepath.Join(ws, sub), 0o755); err != nil {
			return nil, fmt.Errorf("start live browser: %w", err)
		}
	}
	e := &Env{
		opts: opts, ws: ws, lib: lib, python: py, policy: policy,
		closing: make(chan struct{}), scriptPath: filepath.Join(ws, "script.py"),
	}
	e.environ = e.buildEnviron()
	return e, nil
}

func (e *Env) start(ctx context.Context) error {
	if err := e.writeLib(); err != nil {
		return err
	}
	// Unix socket paths must stay under about 100 bytes: a short private
	// directory in the system's temp dir, not the run directory.
	dir, err := scratch.MkdirTemp("", "l")
	if err != nil {
		return fmt.Errorf("socket dir: %w", err)
	}
	e.sockDir = dir
	e.sock = filepath.Join(dir, "d.sock")

	bopts, err := e.browserOptions()
	if err != nil {
		return err
	}
	if err := e.prepareSandbox(); err != nil {
		return err
	}
	// The runner starts (its sandbox, the interpreter, the client's
	// import) while the browser opens the first page and loads the start
	// URL: neither needs the other until the runner binds the page.
	py := e.spawnPython(ctx)
	defer py.discard()
	// The driver reads and writes files for the code only inside the
	// workspace, following no link: the code may be sandboxed, the driver
	// never is, and the rest of the run folder (the runner's library, the
	// run's records) is not the code's to write, in the sandbox or through
	// the driver.
	e.srv = driver.NewServer(driver.ServerOptions{Browser: bopts, HAR: e.opts.HAR, FileRoot: e.ws})
	b, err := e.srv.Launch(ctx)
	if err != nil {
		return err
	}
	serveCtx, stop := context.WithCancel(context.Background())
	e.serveStop = stop
	e.serveDone = make(chan struct{})
	serveErr := make(chan error, 1)
	go func() {
		defer close(e.serveDone)
		serveErr <- e.srv.ServeSocket(serveCtx, e.sock)
	}()
	if err := waitForSocket(ctx, e.sock, serveErr); err != nil {
		return err
	}

	page, err := e.firstPage(ctx, b)
	if err != nil {
		return fmt.Errorf("open the first tab: %w", err)
	}
	e.pageID = page.ID()
	if e.opts.StartURL != "" {
		if _, err := page.Goto(ctx, e.opts.StartURL, browser.Load, e.opts.Browser.Timeout); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// The model is told and can try again; the run goes on.
			e.notices = append(e.notices, fmt.Sprintf("The start URL %s did not load: %v", e.opts.StartURL, err))
		}
	}
	e.lastURL = page.URL()
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.adoptPython(ctx, py)
}

// browserOptions are the run's browser options: its own context on a
// browser it attached to, and its policy proxy on what it launches (or on
// its context of a shared browser on this machine).
func (e *Env) browserOptions() (browser.Options, error) {
	bopts := e.opts.Browser
	if bopts.CDPURL != "" {
		// The run opens its own context (firstPage); the other runs' tabs
		// on the same browser are not its to see.
		bopts.OwnContextsOnly = true
	}
	if e.opts.SharedBrowser && bopts.CDPURL != "" {
		if err := e.startNetPolicy(); err != nil {
			return browser.Options{}, err
		}
		bopts.ContextProxy = e.net.URL()
	} else if bopts.CDPURL == "" {
		// The policy then sees every request, not only navigations:
		// subresources, fetch/XHR, WebSocket, beacons and what a page's
		// redirects lead to, each host's addresses checked and pinned.
		// Loopback goes through it too (<-loopback turns Chromium's own
		// bypass off).
		if err := e.startNetPolicy(); err != nil {
			return browser.Options{}, err
		}
		bopts.Args = append(append([]string{}, bopts.Args...), "--proxy-server="+e.net.URL(), "--proxy-bypass-list=<-loopback>")
	}
	outer := bopts.URLPolicy
	bopts.URLPolicy = func(u string) error {
		if err := e.policy.Check(u); err != nil {
			return err
		}
		if outer != nil {
			return outer(u)
		}
		return nil
	}
	return bopts, nil
}

// firstPage opens the run's page. On a remote browser it opens in a fresh
// browser context of the run's own: the remote browser outlives the run and
// serves the next one, which must not find this run's cookies, storage or
// cache in the default context. The context goes when the connection does
// (it is created to be disposed on detach). A browser wright launched is
// the run's alone, so its default context is.
func (e *Env) firstPage(ctx context.Context, b *browser.Browser) (*browser.Page, error) {
	if e.opts.Browser.CDPURL == "" {
		return b.NewPage(ctx)
	}
	bc, err := b.NewContext(ctx)
	if err != nil {
		return nil, err
	}
	e.contextID = bc.ID()
	return bc.NewPage(ctx)
}

// waitForSocket waits until the driver listens on path.
func waitForSocket(ctx context.Context, path string, serveErr <-chan error) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for {
		if fi, err := os.Stat(path); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return nil
		}
		select {
		case err := <-serveErr:
			return fmt.Errorf("driver socket: %w", err)
		case <-deadline:
			return fmt.Errorf("driver socket %s did not appear within 10s", path)
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

func (e *Env) writeLib() error {
	if err := os.MkdirAll(e.lib, 0o755); err != nil {
		return fmt.Errorf("lib dir: %w", err)
	}
	if _, err := python.Install(e.lib); err != nil {
		return err
	}
	e.runner = filepath.Join(e.lib, "runner.py")
	if err := os.WriteFile(e.runner, []byte(runnerSource), 0o644); err != nil {
		return fmt.Errorf("write runner: %w", err)
	}
	return nil
}

func (e *Env) buildEnviron() []string {
	vars := map[string]string{
		"WORKSPACE_DIR":     e.ws,
		"FINAL_SCRIPT_PATH": filepath.Join(e.ws, "final_script.py"),
	}
	if e.opts.TaskJSON != "" {
		vars["TASK_JSON"] = e.opts.TaskJSON
	}
	for k, v := range e.opts.Env {
		vars[k] = v
	}
	vars["PYTHONPATH"] = e.lib
	if pp := e.opts.Env["PYTHONPATH"]; pp != "" {
		vars["PYTHONPATH"] = e.lib + string(os.PathListSeparator) + pp
	} else if pp := os.Getenv("PYTHONPATH"); pp != "" {
		vars["PYTHONPATH"] = e.lib + string(os.PathListSeparator) + pp
	}
	vars["PYTHONUNBUFFERED"] = "1"
	vars["PYTHONIOENCODING"] = "utf-8"
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, set := vars[name]; set || slices.Contains(e.opts.HideEnv, name) || name == tagVar {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}

// startPython starts a fresh runner bound to the current page. Called with
// e.mu held.
func (e *Env) startPython(ctx context.Context) error {
	return e.adoptPython(ctx, e.spawnPython(ctx))
}

// pending is a runner on its way up (spawnPython).
type pending struct {
	done chan struct{}
	p    *pyProc
	err  error
	took bool
}

// spawnPython starts a runner in the background; adoptPython waits for it.
func (e *Env) spawnPython(ctx context.Context) *pending {
	r := &pending{done: make(chan struct{})}
	python, environ, box := e.pythonCmd(), slices.Concat(e.environ, []string{"WRIGHT_DRIVER_SOCKET=" + e.sock}), e.box
	go func() {
		defer close(r.done)
		r.p, r.err = startPython(ctx, python, e.runner, e.ws, e.opts.TaskJSON, environ, box)
	}()
	return r
}

// discard ends a runner that was started but never adopted (the start
// failed elsewhere first).
func (r *pending) discard() {
	<-r.done
	if !r.took && r.p != nil {
		r.p.kill()
	}
}

// adoptPython waits for the runner r and binds it to the current page.
// Called with e.mu held.
func (e *Env) adoptPython(ctx context.Context, r *pending) error {
	<-r.done
	r.took = true
	if r.err != nil {
		return r.err
	}
	e.py = r.p
	if err := e.bind(ctx, false); err != nil {
		r.p.kill()
		e.py = nil
		return err
	}
	return nil
}

// bind points the runner's `browser` and `page` at the current page;
// reconnect makes it connect again (after a new browser was launched).
func (e *Env) bind(ctx context.Context, reconnect bool) error {
	_, err := e.py.call(ctx, map[string]any{"op": "bind", "socket": e.sock, "page": e.pageID, "context": e.contextID, "reconnect": reconnect}, 30*time.Second)
	if err != nil {
		return fmt.Errorf("bind page %s in Python: %w", e.pageID, err)
	}
	return nil
}

// Close ends the runner, the driver and Chromium. It is safe to call more
// than once, and from another goroutine while Execute runs (which then
// returns promptly).
func (e *Env) Close() error {
	e.closeOnce.Do(func() {
		close(e.closing)
		e.mu.Lock()
		defer e.mu.Unlock()
		e.settleShot() // the last step's screenshot is a file of the run
		if e.py != nil {
			e.py.stop()
			e.py = nil
		}
		if e.srv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			if err := e.srv.Close(ctx); err != nil {
				e.closeErr = fmt.Errorf("close browser: %w", err)
			}
			cancel()
		}
		if e.serveStop != nil {
			e.serveStop()
			<-e.serveDone
		}
		if e.sockDir != "" {
			_ = os.RemoveAll(e.sockDir)
		}
		if e.net != nil {
			e.net.Close()
		}
	})
	return e.closeErr
}

func (e *Env) isClosing() bool {
	select {
	case <-e.closing:
		return true
	default:
		return false
	}
}

// Execute runs one step. See env.Environment. The step's code is saved as
// steps/step_NNNN.py and appended to script.py before it runs.
func (e *Env) Execute(ctx context.Context, step int, code string) (env.Observation, error) {
	if err := env.StartStep(ctx, step); err != nil {
		return env.Observation{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.isClosing() {
		return env.Observation{}, fmt.Errorf("execute step %d: %w", step, errClosed)
	}
	// Steps may be cancelled when the run is, or when Close is called.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-e.closing:
			cancel()
		case <-ctx.Done():
		}
	}()

	// The last observation's screenshot is on disk before this step runs;
	// a step cancelled while it waits does not start its code at all.
	if err := e.awaitShot(ctx); err != nil {
		return env.Observation{}, fmt.Errorf("execute step %d: %w", step, err)
	}
	name := fmt.Sprintf("step_%04d", step)
	file := filepath.Join(e.ws, "steps", name+".py")
	if err := e.recordStep(step, file, code); err != nil {
		return env.Observation{}, fmt.Errorf("execute step %d: %w", step, err)
	}
	if err := e.ensureReady(ctx); err != nil {
		return env.Observation{}, fmt.Errorf("execute step %d: %w", step, err)
	}
	before := e.snapshotTabs()

	res, err := e.runCode(ctx, file, code)
	if err != nil {
		return env.Observation{}, fmt.Errorf("execute step %d: %w", step, err)
	}
	obs, err := e.observe(ctx, step, code, res, before)
	e.appendOutcome(obs)
	if err != nil {
		return obs, fmt.Errorf("execute step %d: %w", step, err)
	}
	return obs, nil
}

// ensureReady restarts what died since the last step: Chromium, the
// runner. The notes go into this step's observation.
func (e *Env) ensureReady(ctx context.Context) error {
	if b := e.srv.Browser(); b == nil || b.Err() != nil {
		if err := e.restartBrowser(ctx); err != nil {
			return err
		}
	}
	if e.py == nil || !e.py.alive() {
		if e.py != nil {
			e.restartNotes = append(e.restartNotes, fmt.Sprintf("The Python process had ended (%s); a fresh one was started. Variables, imports and functions from earlier steps are gone; `page`, `browser`, `task` and `run_command` are bound again.", e.py.waitExit()))
			e.py.kill()
			e.py = nil
		}
		if err := e.startPython(ctx); err != nil {
			return err
		}
	}
	return nil
}

// stepResult is what running the code produced.
type stepResult struct {
	success     bool
	exception   string
	output      string
	dropped     int
	timedOut    bool
	exitCode    any
	pageID      string // the page the namespace's `page` names after the step; "" if none
	pageLost    bool   // `page` no longer names a tab of this browser
	notices     []string
	elapsed     time.Duration
	pythonEnded string // non-empty if the runner died or was killed during the step
	wantFull    bool   // the code asked for the whole snapshot (request_full_snapshot())
}

// runCode runs code in the runner, enforcing the step timeout. A runner
// that dies or does not come back from an interrupt is replaced by a
// fresh one; only a cancelled ctx is an error.
func (e *Env) runCode(ctx context.Context, file, code string) (stepResult, error) {
	marker := "__wright_step_end_" + proctab.NewTag(8) + "__"
	start := time.Now()
	var res stepResult
	id, err := e.py.send(map[string]any{"op": "exec", "file": file, "code": code, "marker": marker})
	if err != nil {
		// It died between steps, after ensureReady looked.
		how := e.py.waitExit()
		res, err = stepResult{pythonEnded: how, exception: fmt.Sprintf("The Python process ended before the step could start (%s), so the code did not run.", how)}, nil
	} else {
		res, err = e.awaitStep(ctx, id)
	}
	res.elapsed = time.Since(start)
	// The marker follows the answer at once; a dead or cancelled runner
	// writes none.
	wait := 2 * time.Second
	if res.pythonEnded != "" || err != nil {
		wait = 200 * time.Millisecond
	}
	if e.py != nil {
		res.output, res.dropped = e.py.out.takeUntil(marker, wait)
	}
	if res.pythonEnded != "" {
		if e.py != nil {
			e.py.kill()
			e.py = nil
		}
		res.success = false
		if err == nil && e.isClosing() {
			err = errClosed
		}
		if err == nil {
			if serr := e.startPython(ctx); serr != nil {
				return res, fmt.Errorf("restart python: %w", serr)
			}
		} else {
			// No observation for this step; the next one says what was lost.
			e.restartNotes = append(e.restartNotes, fmt.Sprintf("The Python process was stopped (%s) and a fresh one was started: variables, imports and functions from earlier steps are gone; `page`, `browser`, `task` and `run_command` are bound again.", res.pythonEnded))
		}
	}
	return res, err
}

func (e *Env) awaitStep(ctx context.Context, id int) (stepResult, error) {
	timer := time.NewTimer(e.opts.StepTimeout)
	defer timer.Stop()
	a, err := e.py.await(ctx, id, timer.C)
	switch {
	case errors.Is(err, errRunnerGone):
		how := e.py.waitExit()
		return stepResult{exception: fmt.Sprintf("The Python process ended during this step (%s), so the code did not finish.", how), pythonEnded: how}, nil
	case err != nil: // ctx cancelled: interrupt, give it a moment, then kill
		e.py.interrupt()
		grace := time.NewTimer(cancelGrace)
		defer grace.Stop()
		if a, _ := e.py.await(context.Background(), id, grace.C); a == nil {
			return stepResult{pythonEnded: "killed when the run was interrupted"}, err
		}
		return stepResult{}, err
	case a != nil:
		return answerResult(a), nil
	}
	// Timed out: a KeyboardInterrupt in the code, and the runner answers.
	e.py.interrupt()
	grace := time.NewTimer(interruptGrace)
	defer grace.Stop()
	a, err = e.py.await(ctx, id, grace.C)
	if err != nil && !errors.Is(err, errRunnerGone) {
		return stepResult{timedOut: true, pythonEnded: "killed when the run was interrupted"}, err
	}
	secs := e.opts.StepTimeout.Seconds()
	if a == nil {
		how := fmt.Sprintf("killed after it ignored the interrupt for %v", interruptGrace)
		if errors.Is(err, errRunnerGone) {
			how = e.py.waitExit()
		}
		return stepResult{timedOut: true, pythonEnded: how,
			exception: fmt.Sprintf("TimeoutError: the step ran longer than %g s and did not stop when interrupted; the Python process was restarted.", secs)}, nil
	}
	res := answerResult(a)
	res.timedOut = true
	res.success = false
	res.exception = fmt.Sprintf("TimeoutError: the step ran longer than %g s and was interrupted. Where it was:\n%s", secs, res.exception)
	return res, nil
}

func answerResult(a map[string]any) stepResult {
	res := stepResult{exitCode: a["exit_code"]}
	res.success, _ = a["success"].(bool)
	res.exception, _ = a["exception"].(string)
	res.pageID, _ = a["page"].(string)
	res.pageLost, _ = a["page_lost"].(bool)
	res.wantFull, _ = a["full_snapshot"].(bool)
	if ns, ok := a["notices"].([]any); ok {
		for _, n := range ns {
			if s, ok := n.(string); ok {
				res.notices = append(res.notices, s)
			}
		}
	}
	return res
}

// checkTaskJSON makes a missing or broken task file an error at start-up,
// not a crash of the runner.
func checkTaskJSON(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("task file: %w", err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("task file %s is not a JSON object: %w", path, err)
	}
	return nil
}

// startNetPolicy starts the run's policy proxy once; a browser restart
// reuses it.
func (e *Env) startNetPolicy() error {
	if e.net != nil {
		return nil
	}
	p, err := netpolicy.Start(netpolicy.Options{
		CheckURL:     e.policy.Check,
		AllowPrivate: e.opts.AllowPrivate,
		OnBlock: func(target string, err error) {
			if browserService(target) {
				return // Chromium's own traffic, not the page's
			}
			e.netMu.Lock()
			defer e.netMu.Unlock()
			if len(e.netBlocked) < 20 {
				e.netBlocked = append(e.netBlocked, fmt.Sprintf("%s (%v)", target, err))
			}
		},
	})
	if err != nil {
		return err
	}
	e.net = p
	return nil
}

// takeNetBlocked drains the proxy's refusals into one notice.
func (e *Env) takeNetBlocked() []string {
	e.netMu.Lock()
	defer e.netMu.Unlock()
	if len(e.netBlocked) == 0 {
		return nil
	}
	n := fmt.Sprintf("The network policy refused %d request(s) the page made: %s. The page cannot reach these; do not try to get around the policy.", len(e.netBlocked), strings.Join(e.netBlocked, "; "))
	e.netBlocked = nil
	return []string{n}
}

// browserService reports Chromium's own background services (updates,
// autofill, sign-in), which the proxy refuses like anything else but which
// are no news to the model.
func browserService(target string) bool {
	host := target
	if _, rest, ok := strings.Cut(target, "://"); ok {
		host = rest
	}
	if i := strings.IndexAny(host, ":/"); i >= 0 {
		host = host[:i]
	}
	for _, suffix := range []string{".googleapis.com", ".gvt1.com", ".gvt2.com", "accounts.google.com", "clients1.google.com", "clients2.google.com", "clientservices.googleapis.com", "safebrowsing.google.com"} {
		if host == strings.TrimPrefix(suffix, ".") || strings.HasSuffix(host, suffix) {
			return true
		}
	}
	return false
}
