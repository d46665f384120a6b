// Package session is one browser session for another agent: a Chromium,
// wright's driver and live mode's Python runner held open between calls,
// driven by short tools (navigate, snapshot, click by ref, run_code, ...)
// whose results say what changed rather than the whole page. `wright mcp`
// serves one per MCP session and `wright browser` one per named
// background process.
//
// A session is live mode's environment (env/live) driven tool by tool:
// every action is one line of Playwright Python run in the runner's kept
// namespace, so refs bound to page state, change-only observations, the
// URL policy on every request, secrets typed from placeholders and the
// runner's sandbox are the ones a run has. What needs no Python (a
// snapshot the client asks for, a screenshot, the tab list, the console
// and network logs) is read from the engine directly. Each action's line,
// in the portable form a fresh script can run (get_by_role rather than a
// ref), is kept for Script.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"wright/browser"
	"wright/browser/launcher"
	"wright/env"
	"wright/env/live"
	"wright/internal/scratch"
	"wright/trust/sandbox"
	"wright/trust/secrets"
)

// Options configure a session. Zero values take the defaults noted.
type Options struct {
	// Dir receives what the session writes: snapshots/ (to_file),
	// screenshots/, uploads/ (copies the sandboxed runner can read),
	// steps/ and logs/ of the runner. Empty: a temporary folder removed
	// at Close.
	Dir string
	// StartURL is opened at Open; empty leaves the tab blank.
	StartURL string
	// AllowedDomains and BlockedDomains are the URL policy's host
	// patterns (live.Policy); AllowPrivate the private ranges the browser
	// may reach besides loopback.
	AllowedDomains, BlockedDomains []string
	AllowPrivate                   []netip.Prefix
	// Secrets are typed where their placeholders are written and never
	// appear in a result: every Text, Code and Data value is redacted.
	Secrets *secrets.Set
	// Executable is the Chromium to start ("" finds one, as a run does);
	// CDPURL attaches to a running one instead.
	Executable, CDPURL string
	Headed             bool
	Viewport           browser.Viewport
	// ActionTimeout bounds one action on an element (Playwright's default
	// timeout of the session's pages). Default 10s.
	ActionTimeout time.Duration
	// StepTimeout bounds one run_code call. Default 60s.
	StepTimeout time.Duration
	// ActionChars is the budget of the snapshot an action's result carries
	// when it is whole (after a navigation). Default 8000.
	ActionChars int
	// ScreenshotBytes caps a screenshot's image: a larger PNG is sent as
	// JPEG at falling qualities until it fits. Default 400 KB.
	ScreenshotBytes int
	// Sandbox is the runner's sandbox mode: auto (bubblewrap where it
	// works), bwrap, or none (trust/sandbox). Default auto.
	Sandbox string
	// Wright is the wright binary the sandbox's host guard and init run.
	// Default: this process's executable.
	Wright string
	// Python is the interpreter ("" is python3 on PATH); HideEnv names
	// variables the runner must not inherit (API keys).
	Python  string
	HideEnv []string
	// FileRoot, when set, is the only folder whose files a tool reads or
	// writes for its client (upload's files, screenshot's path), links not
	// followed; relative paths start there (clientPath). Empty: any path.
	FileRoot string
}

const (
	defaultActionTimeout   = 10 * time.Second
	defaultStepTimeout     = 60 * time.Second
	defaultActionChars     = 8000
	defaultScreenshotBytes = 400 << 10

	// wholePage is live mode's snapshot budget in a session: no page
	// comes near it.
	wholePage = 1 << 28
)

// Session is one open browser session. Its methods may be called from any
// goroutine; calls run one at a time.
type Session struct {
	opt    Options
	dir    string
	ownDir bool
	lib    string
	env    *live.Env
	// chromium is the browser the session launched itself (inside a run's
	// sandbox; see launchBehindRunProxy), nil when live mode launched it.
	chromium     *launcher.Process
	chromiumGone chan struct{}

	done      chan struct{}
	closing   atomic.Bool // Close has begun
	closeOnce sync.Once
	closeErr  error

	// url is the current tab's URL as the last call left it, readable
	// while a call runs.
	url atomic.Value

	mu        sync.Mutex // one call at a time; guards what follows
	step      int
	lines     []string // the portable line of each action that succeeded
	lastURL   string
	lastTitle string
	newest    string // where the newest snapshot was shown, for stale-ref errors
	// cut says the last whole snapshot shown was cut: at cutAt of cutOf
	// characters, in the result of call cutCall. A change list after it
	// says where the rest is.
	cutAt, cutOf, cutCall int
	outlined              bool // what was shown was the interactive outline
	console               []string
	net                   netLog
}

// Tool is one tool a session offers: Params is the JSON Schema of its
// arguments object.
type Tool struct {
	Name, Description string
	Params            json.RawMessage
}

// Result is what a tool call returns.
type Result struct {
	// Text is what the agent reads: what changed (the snapshot lines that
	// changed, with their refs; URL and title when they moved; new console
	// errors), or what was asked for.
	Text string
	// Image is the screenshot tool's image (at most
	// Options.ScreenshotBytes), ImageType its MIME type.
	Image     []byte
	ImageType string
	// Code is the one line of Playwright Python the action performed, in
	// the form a fresh script runs (Script); "" for tools that only read.
	Code string
	// Data is the structured form (`--json`).
	Data map[string]any
}

// Open starts Chromium, the driver and the Python runner, and opens
// opt.StartURL. ctx bounds the start only; Close ends everything.
func Open(ctx context.Context, opt Options) (*Session, error) {
	for _, err := range []error{
		env.Default(&opt.ActionTimeout, defaultActionTimeout, "ActionTimeout"),
		env.Default(&opt.StepTimeout, defaultStepTimeout, "StepTimeout"),
		env.Default(&opt.ActionChars, defaultActionChars, "ActionChars"),
		env.Default(&opt.ScreenshotBytes, defaultScreenshotBytes, "ScreenshotBytes"),
	} {
		if err != nil {
			return nil, fmt.Errorf("open browser session: %w", err)
		}
	}
	s := &Session{opt: opt, done: make(chan struct{}), dir: opt.Dir}
	if err := s.start(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open browser session: %w", err)
	}
	go s.watch()
	return s, nil
}

func (s *Session) start(ctx context.Context) error {
	if s.dir == "" {
		d, err := scratch.MkdirTemp("", "session-")
		if err != nil {
			return err
		}
		s.dir, s.ownDir = d, true
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return err
	}
	abs, err := filepath.Abs(s.dir)
	if err != nil {
		return err
	}
	s.dir = abs
	// The runner's library is wright's, not the session's output: a
	// folder of its own, gone at Close.
	if s.lib, err = scratch.MkdirTemp("", "session-lib-"); err != nil {
		return err
	}
	box, err := s.sandbox()
	if err != nil {
		return err
	}
	cdpURL := s.opt.CDPURL
	if cdpURL == "" && os.Getenv(launcher.ProxyEnv) != "" {
		if cdpURL, err = s.launchBehindRunProxy(ctx); err != nil {
			return err
		}
	}
	e, err := live.New(ctx, live.Options{
		Workspace:      s.dir,
		LibDir:         s.lib,
		StartURL:       s.opt.StartURL,
		AllowedDomains: s.opt.AllowedDomains,
		BlockedDomains: s.opt.BlockedDomains,
		AllowPrivate:   s.opt.AllowPrivate,
		Browser: browser.Options{
			Executable: s.opt.Executable,
			CDPURL:     cdpURL,
			Headed:     s.opt.Headed,
			Viewport:   s.opt.Viewport,
			Secrets:    env.BrowserSecrets(s.opt.Secrets),
		},
		StepTimeout: s.opt.StepTimeout,
		// Live mode takes the whole page every step: change lists are
		// then measured between whole snapshots, never between a cut one
		// and a whole one (too far apart to be a change list, so the page
		// would be sent again). What the client is shown of a whole
		// snapshot is cut to ActionChars here (observed).
		AriaChars: wholePage,
		AriaMode:  live.AriaChanges,
		Redact:    s.redactor(),
		Python:    s.opt.Python,
		HideEnv:   s.opt.HideEnv,
		Sandbox:   box,
	})
	if err != nil {
		return err
	}
	s.env = e
	s.net.follow(e.Browser())
	// The session's pages answer within ActionTimeout, not Playwright's
	// 30 s: an agent waiting on a ref that will never be clickable learns
	// it sooner. The step also shows the start page, so the first action
	// is measured against it.
	ms := s.opt.ActionTimeout.Milliseconds()
	obs, err := s.exec(ctx, fmt.Sprintf("page.context.set_default_timeout(%d)", ms))
	if err != nil {
		return err
	}
	s.lastURL, _ = obs.Details["url"].(string)
	s.lastTitle, _ = obs.Details["title"].(string)
	s.url.Store(s.lastURL)
	s.newest = "the one taken when the session opened"
	if s.opt.StartURL != "" {
		s.lines = append(s.lines, "page.goto("+pyStr(s.opt.StartURL)+")")
	}
	return nil
}

// launchBehindRunProxy starts the session's Chromium itself when the
// session runs inside a wright run's sandbox (the run's policy proxy in
// $WRIGHT_PROXY, as the scripts of a sandboxed workspace see it): the
// sandbox has no network but that proxy, so the browser must go through
// it, where the run's URL policy already applies to every request, rather
// than through a proxy of the session's own, which could reach nothing.
// live mode then attaches to it (Options.CDPURL) in a context of its own.
func (s *Session) launchBehindRunProxy(ctx context.Context) (string, error) {
	p, err := launcher.Start(ctx, launcher.Config{
		Executable: s.opt.Executable,
		Headed:     s.opt.Headed,
		Width:      s.opt.Viewport.Width,
		Height:     s.opt.Viewport.Height,
	})
	if err != nil {
		return "", fmt.Errorf("launch Chromium behind the run's proxy: %w", err)
	}
	s.chromium = p
	s.chromiumGone = make(chan struct{})
	go p.Reap(func() { close(s.chromiumGone) })
	return p.URL, nil
}

// sandbox is the runner's sandbox spec, nil when none is used.
func (s *Session) sandbox() (*sandbox.Spec, error) {
	use, err := sandbox.Resolve(s.opt.Sandbox)
	if err != nil || !use {
		return nil, err
	}
	self := s.opt.Wright
	if self == "" {
		if self, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	return &sandbox.Spec{ReadOnly: []string{self}, Wright: self}, nil
}

// watch ends the session when its Chromium dies between calls: a session
// is its browser, and a client must not find a fresh one behind the name.
func (s *Session) watch() {
	b := s.env.Browser()
	if b == nil {
		return
	}
	select {
	case <-b.Done():
		// A step may have restarted Chromium itself (live mode does):
		// only a browser that is still the session's ends it.
		if s.env.Browser() == b || s.env.Browser() == nil || s.env.Browser().Err() != nil {
			s.Close()
			return
		}
		go s.watch()
	case <-s.done:
	}
}

// Done is closed when the session has ended: Close, or its Chromium died.
func (s *Session) Done() <-chan struct{} { return s.done }

// URL is the current tab's URL as the last call left it. Unlike a call,
// it does not wait for a call in flight.
func (s *Session) URL() string {
	u, _ := s.url.Load().(string)
	return u
}

// Dir is the folder the session writes its files in.
func (s *Session) Dir() string { return s.dir }

// Close ends the runner, the driver and Chromium, and removes what the
// session made for itself. It is idempotent.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		if s.env != nil {
			s.closeErr = s.env.Close()
		}
		if s.chromium != nil {
			s.chromium.Kill()
			select {
			case <-s.chromiumGone:
			case <-time.After(10 * time.Second):
			}
		}
		s.net.stop()
		if s.lib != "" {
			_ = os.RemoveAll(s.lib)
		}
		if s.ownDir {
			_ = os.RemoveAll(s.dir)
		}
		close(s.done)
	})
	return s.closeErr
}

func (s *Session) closed() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// errClosed answers a call on an ended session.
var errClosed = errors.New("the browser session has ended; open a new one")

// Call runs one tool with its arguments (a JSON object; empty is {}). The
// error is the tool's failure, worded for the agent (a stale ref names
// the newest snapshot); the Result may still say what the page shows.
func (s *Session) Call(ctx context.Context, tool string, args json.RawMessage) (Result, error) {
	t, ok := toolByName[tool]
	if !ok {
		return Result{}, fmt.Errorf("unknown tool %q; the tools are %s", tool, strings.Join(toolNames(), ", "))
	}
	var a params
	if err := decodeArgs(args, &a); err != nil {
		return Result{}, fmt.Errorf("%s: %w", tool, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed() {
		return Result{}, errClosed
	}
	s.net.follow(s.env.Browser())
	res, err := t.run(ctx, s, a)
	if p := s.env.CurrentPage(); p != nil {
		s.url.Store(p.URL())
	}
	res = s.redactResult(res)
	if err != nil {
		return res, errors.New(s.redact(err.Error()))
	}
	return res, nil
}

// exec runs code in the runner as the session's next step.
func (s *Session) exec(ctx context.Context, code string) (env.Observation, error) {
	s.step++
	obs, err := s.env.Execute(ctx, s.step, code)
	s.env.ForgetChain()
	if err != nil {
		if s.closing.Load() {
			return obs, errClosed
		}
		return obs, err
	}
	s.keepConsole(obs)
	return obs, nil
}

// keepConsole adds a step's console lines to the session's console log
// (live mode hands each line over once).
func (s *Session) keepConsole(obs env.Observation) {
	c, _ := obs.Details["console_output"].(string)
	if c == "" {
		return
	}
	s.console = append(s.console, strings.Split(c, "\n")...)
	if over := len(s.console) - maxConsole; over > 0 {
		s.console = append([]string{}, s.console[over:]...)
	}
}

const maxConsole = 1000

func (s *Session) redactor() func(string) string {
	if s.opt.Secrets == nil || len(s.opt.Secrets.Names()) == 0 {
		return nil
	}
	return s.opt.Secrets.Redact
}

func (s *Session) redact(text string) string {
	if r := s.redactor(); r != nil {
		return r(text)
	}
	return text
}

// redactResult replaces every secret value in what a call returns.
func (s *Session) redactResult(r Result) Result {
	if s.redactor() == nil {
		return r
	}
	r.Text, r.Code = s.redact(r.Text), s.redact(r.Code)
	if r.Data != nil {
		b, err := json.Marshal(r.Data)
		if err == nil {
			var d map[string]any
			if json.Unmarshal([]byte(s.redact(string(b))), &d) == nil {
				r.Data = d
			}
		}
	}
	return r
}

// Script is the session's actions as a Playwright Python script that
// redoes them on a fresh browser: each action that succeeded, in order, in
// its portable form.
func (s *Session) Script() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	b.WriteString("# The actions of a wright browser session, in the order they ran.\n")
	b.WriteString("from playwright.sync_api import sync_playwright\n\n")
	b.WriteString("with sync_playwright() as p:\n")
	b.WriteString("    browser = p.chromium.launch()\n")
	b.WriteString("    page = browser.new_page()\n")
	for _, l := range s.lines {
		for _, line := range strings.Split(strings.TrimRight(l, "\n"), "\n") {
			if line == "" {
				b.WriteString("\n")
				continue
			}
			b.WriteString("    " + line + "\n")
		}
	}
	b.WriteString("    browser.close()\n")
	return s.redact(b.String())
}
