package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/go-rod/rod/lib/utils"
	"wright/browser/launcher"
)

// Viewport is a page's size in CSS pixels.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// The size of new pages unless Options say otherwise: constants, so no
// caller can change every later page's size by assigning to a package var.
const (
	defaultWidth  = 1280
	defaultHeight = 1800
)

// DefaultTimeout bounds every waiting call that is given no timeout.
const DefaultTimeout = 10 * time.Second

// Options say which browser to start or attach to and how pages behave.
type Options struct {
	// Executable is the Chrome/Chromium binary (or macOS .app bundle).
	// Empty: see FindExecutable. A browser is never downloaded.
	Executable string
	// CDPURL attaches to a running browser instead of launching one:
	// ws://host:port/devtools/browser/<id>, or http://host:port (the
	// WebSocket URL is read from /json/version).
	CDPURL string
	// CDPHeaders are sent with the requests to CDPURL (the WebSocket
	// handshake, and the /json/version lookup of an http:// URL), and to
	// no other host: Playwright's connect_over_cdp(headers=...).
	CDPHeaders map[string]string
	// Headed shows the browser window; the default is headless.
	Headed bool
	// Viewport of new pages; zero means 1280x1800.
	Viewport Viewport
	// SlowMo waits this long before every input action.
	SlowMo time.Duration
	// Timeout is the default for every waiting call; zero means DefaultTimeout.
	Timeout time.Duration
	// UserDataDir is the profile directory. Empty: a fresh temporary profile,
	// removed when the browser ends.
	UserDataDir string
	// Args are extra command-line flags (--name or --name=value).
	Args []string
	// Proxy, if set, sends the browser's traffic through a proxy of the
	// user's (Playwright's launch(proxy=...), proxy.go); refused where a
	// URL policy or a policy proxy governs the network.
	Proxy *Proxy
	// Env is the browser process's environment; nil means this process's.
	// Live mode passes its own without the API keys, so that code the model
	// runs cannot read them from the browser's /proc entry.
	Env []string
	// URLPolicy, if set, is asked before every navigation (goto, links,
	// redirects, frames) and for every new tab or popup; a non-nil error
	// refuses it and surfaces as a BlockedURL error.
	URLPolicy func(url string) error
	// Secrets, if set, turns <secret>name</secret> placeholders in text
	// that is filled or typed into the value, checking before every
	// keystroke that the focused document is on the secret's domains
	// (secretguard.go). It runs in the driver's process, never the
	// model's, and cannot be set by a client.
	Secrets SecretSource
	// Replay, if set, stands in for the network (network.go): every
	// request that passes the URL policy and the client's routes is
	// answered by it, and one it has no answer for fails. wright bench
	// replays recorded HARs so (--replay-har).
	Replay Replayer
	// BrowserLog receives the browser process's stdout and stderr; nil
	// discards them.
	BrowserLog io.Writer

	// VideoDir, when set, records a video of every page this browser opens
	// (and every popup of one) into that directory: the driver sets it from
	// WRIGHT_VIDEO, so the harness can film a final run whatever the
	// script does. Needs ffmpeg (package video).
	VideoDir string
	// Log receives the browser's own notes, such as a video that cannot
	// be recorded; nil discards them.
	Log io.Writer

	// PageIDs numbers pages (p1, p2, ...). A driver shares one counter
	// between every browser it launches, so page ids are never reused
	// within one driver. Nil starts from zero.
	PageIDs *atomic.Int64

	// OwnContextsOnly makes an attached browser show this client only the
	// pages of the browser contexts it created (NewContext) and their
	// popups: on a browser that several runs share, each run's context is
	// its own, and the tabs of the others (open before it attached, or
	// opened since) are neither adopted nor listed.
	OwnContextsOnly bool
	// ContextProxy, when set, is the proxy server ("http://127.0.0.1:port")
	// of every context NewContext creates, loopback included: a shared
	// browser on this machine sends each run's traffic through that run's
	// policy proxy, as --proxy-server does for a browser a run launches.
	ContextProxy string
	// FreshContext, with CDPURL, makes the default context (ID "") a new
	// isolated browser context created at attach rather than the browser's
	// own: a client of a warm browser that other clients share starts as a
	// fresh browser would (no cookies, storage, cache or permissions of
	// anyone else's), and NewPage opens there. Implies OwnContextsOnly.
	FreshContext bool
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o Options) viewport() Viewport {
	if o.Viewport.Width > 0 && o.Viewport.Height > 0 {
		return o.Viewport
	}
	return Viewport{Width: defaultWidth, Height: defaultHeight}
}

// Browser is one Chromium, launched or attached to. Its methods are safe for
// concurrent use.
type Browser struct {
	opts     Options
	rod      *rod.Browser
	ws       interface{ Close() error } // the CDP connection (rod's for a browser we launched, cdpSocket when attached)
	attached bool

	// For a launched browser: the process and its end.
	proc    *launcher.Process
	proxy   string // the --proxy-server it was launched with (network.go, proxy failures)
	pid     int
	exited  chan struct{} // closed when the process is reaped
	cleaned chan struct{} // closed when its helpers are swept and the profile removed
	profile string        // the temporary profile, removed when the process ends
	wsURL   string

	ctx    context.Context // the connection's life; cancelled when the browser is gone
	cancel context.CancelFunc

	adoptMu sync.Mutex  // held while we create or adopt a target, so no target is adopted twice
	started atomic.Bool // the tabs open before we connected are adopted

	mu       sync.Mutex
	pages    []*Page // creation order, closed ones included
	byTarget map[proto.TargetTargetID]*Page
	gone     string // why the browser is unusable; "" while it works
	closing  bool

	wg sync.WaitGroup // event pumps

	hub eventHub // clients' event subscriptions

	dl downloads // files.go

	paused    *pausingClient      // targets.go; nil when new targets are not held
	contexts  map[string]*Context // contexts.go: the client's contexts by id, the default one under ""
	userAgent string              // the browser's own, read once for API requests (network.go)
	custom    customEngines       // resolve.go
}

// Launch starts Chromium (or attaches to Options.CDPURL) and returns it
// ready for NewPage. ctx bounds only the start-up; Close ends the browser.
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	if opts.PageIDs == nil {
		opts.PageIDs = new(atomic.Int64)
	}
	for _, a := range opts.Args {
		if !strings.HasPrefix(a, "--") {
			return nil, newErr(ErrInvalidParams, "browser flag %q must start with --: arguments can not specify page to be opened (goto the URL once the browser runs)", a)
		}
	}
	if err := opts.checkLaunchProxy(); err != nil {
		return nil, err
	}
	if opts.CDPURL != "" {
		return attach(ctx, opts)
	}
	return launch(ctx, opts)
}

func (o Options) environ() []string {
	if o.Env != nil {
		return slices.Clone(o.Env)
	}
	return os.Environ()
}

func launch(ctx context.Context, opts Options) (*Browser, error) {
	vp := opts.viewport()
	proc, err := launcher.Start(ctx, launcher.Config{Executable: opts.Executable, Headed: opts.Headed, UserDataDir: opts.UserDataDir,
		Width: vp.Width, Height: vp.Height, Args: opts.launchArgs(), Env: opts.environ(), Log: opts.BrowserLog})
	if err != nil {
		return nil, wrapErr(ErrBrowser, err, "%s", err.Error())
	}
	wsURL := proc.URL
	b := &Browser{opts: opts, proc: proc, proxy: opts.policyProxyOf(proc), pid: proc.PID(), profile: proc.Profile, exited: make(chan struct{}), cleaned: make(chan struct{})}
	b.started.Store(true) // a fresh browser has no tabs of its own
	go b.reap()
	if err := b.connect(ctx, wsURL); err != nil {
		b.kill()
		<-b.cleaned
		return nil, err
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		select {
		case <-b.exited:
			b.markGone("the browser process exited (crashed or was killed)")
		case <-b.ctx.Done():
		}
	}()
	return b, nil
}

func attach(ctx context.Context, opts Options) (*Browser, error) {
	wsURL, err := resolveCDPURL(ctx, opts.CDPURL, opts.cdpHeader())
	if err != nil {
		return nil, err
	}
	if opts.FreshContext {
		opts.OwnContextsOnly = true
	}
	b := &Browser{opts: opts, attached: true}
	if opts.FreshContext && opts.ContextProxy != "" {
		// Every context of this client goes through that proxy, as a
		// launched browser's pages go through its --proxy-server: its
		// failure answers become the net errors Playwright raises.
		b.proxy = opts.ContextProxy
	}
	if err := b.connect(ctx, wsURL); err != nil {
		return nil, err
	}
	if opts.FreshContext {
		// Before the tabs are listed, so that none is adopted into it but
		// those it opens itself.
		if err := b.freshDefault(ctx); err != nil {
			_ = b.Close(context.Background())
			return nil, err
		}
	}
	// Adopt the tabs that are already open, in the browser's order.
	res, err := proto.TargetGetTargets{}.Call(b.rod.Context(ctx))
	if err != nil {
		_ = b.Close(context.Background())
		return nil, wrapErr(ErrBrowser, err, "list the tabs of %s: %s", opts.CDPURL, cdpMessage(err))
	}
	for _, t := range res.TargetInfos {
		if t.Type != proto.TargetTargetInfoTypePage || strings.HasPrefix(t.URL, "devtools://") || !b.visible(t) {
			continue
		}
		b.adoptMu.Lock()
		var err error
		if b.pageByTarget(t.TargetID) == nil {
			_, err = b.adopt(ctx, t.TargetID, "", kindForeign)
		}
		b.adoptMu.Unlock()
		if err != nil {
			_ = b.Close(context.Background())
			return nil, err
		}
	}
	// From here on a new target is a new tab or popup; before, the pump
	// also heard of the tabs that were already open.
	b.started.Store(true)
	return b, nil
}

// cdpHeader is Options.CDPHeaders as an http.Header; nil for none.
func (o Options) cdpHeader() http.Header {
	if len(o.CDPHeaders) == 0 {
		return nil
	}
	h := http.Header{}
	for k, v := range o.CDPHeaders {
		h.Set(k, v)
	}
	return h
}

// resolveCDPURL turns http://host:port into the browser's WebSocket URL,
// sending header with the lookup.
func resolveCDPURL(ctx context.Context, u string, header http.Header) (string, error) {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Host == "" {
		return "", newErr(ErrInvalidParams, "cdp_url %q is not a ws:// or http:// URL", u)
	}
	switch parsed.Scheme {
	case "ws", "wss":
		return u, nil
	case "http", "https":
	default:
		return "", newErr(ErrInvalidParams, "cdp_url %q: scheme must be ws, wss, http or https", u)
	}
	parsed.Path = "/json/version"
	parsed.RawQuery = ""
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, parsed.String(), nil)
	if err != nil {
		return "", wrapErr(ErrBrowser, err, "cdp_url %q: %v", u, err)
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	// A redirect to another host would take the headers with it.
	client := &http.Client{CheckRedirect: func(r *http.Request, via []*http.Request) error {
		if len(header) > 0 && !strings.EqualFold(hostPort(r.URL), hostPort(via[0].URL)) {
			return fmt.Errorf("%s redirects to another host, which the headers are not for", parsed.String())
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}}
	resp, err := client.Do(req)
	if err != nil {
		return "", wrapErr(ErrBrowser, err, "reach the browser at %s: %v", parsed.String(), err)
	}
	defer resp.Body.Close()
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil || v.WebSocketDebuggerURL == "" {
		return "", newErr(ErrBrowser, "%s did not answer with a webSocketDebuggerUrl (HTTP %d): is it a Chrome DevTools endpoint?", parsed.String(), resp.StatusCode)
	}
	return v.WebSocketDebuggerURL, nil
}

func (b *Browser) connect(ctx context.Context, wsURL string) error {
	var ws interface {
		cdp.WebSocketable
		Close() error
	}
	if b.attached {
		sock, err := dialCDP(ctx, wsURL, b.opts.attachHeader(wsURL))
		if err != nil {
			return wrapErr(ErrBrowser, err, "connect to the browser at %s: %v", wsURL, err)
		}
		ws = sock
	} else {
		sock := &cdp.WebSocket{}
		if err := sock.Connect(ctx, wsURL, nil); err != nil {
			return wrapErr(ErrBrowser, err, "connect to the browser at %s: %v", wsURL, err)
		}
		ws = sock
	}
	b.ws, b.wsURL = ws, wsURL
	b.ctx, b.cancel = context.WithCancel(context.Background())
	client := cdp.New().Logger(utils.LoggerQuiet).Start(ws)
	var rc rod.CDPClient = client
	if !b.attached {
		b.paused = newPausingClient(client)
		rc = b.paused
	}
	// rod.New reads package defaults (and the "rod" environment variable);
	// everything it could take from there is set explicitly.
	b.rod = rod.New().ControlURL("").Client(rc).Context(b.ctx).NoDefaultDevice().
		SlowMotion(0).Trace(false).Monitor("").Logger(utils.LoggerQuiet)
	// The session starts on the connection's own context, so a server that
	// answers the handshake and then nothing would hold the start-up past
	// ctx: closing the socket then ends the calls waiting on it.
	stop := context.AfterFunc(ctx, func() { _ = ws.Close() })
	err := b.rod.Connect()
	stop()
	if err != nil {
		b.cancel()
		_ = ws.Close()
		if ctx.Err() != nil {
			return wrapErr(ErrBrowser, ctx.Err(), "start the DevTools session at %s: no answer in time (%v)", wsURL, ctx.Err())
		}
		return wrapErr(ErrBrowser, err, "start the DevTools session: %s", cdpMessage(err))
	}
	events := b.rod.Event()
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.pump(events)
	}()
	if b.paused != nil {
		if err := b.pauseNewTargets(ctx); err != nil {
			b.cancel()
			_ = ws.Close()
			return err
		}
	}
	return nil
}

// Options returns the options the browser was started with.
func (b *Browser) Options() Options { return b.opts }

// Rod exposes the underlying rod browser for callers that need raw CDP.
func (b *Browser) Rod() *rod.Browser { return b.rod }

// Done is closed when the browser can no longer be used: closed, crashed
// or disconnected.
func (b *Browser) Done() <-chan struct{} { return b.ctx.Done() }

// Err says why the browser is gone, or nil while it works.
func (b *Browser) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gone == "" {
		return nil
	}
	return newErr(ErrTargetClosed, "the browser is gone: %s; launch a new one", b.gone)
}

func (b *Browser) alive() error { return b.Err() }

func (b *Browser) isGone() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.gone != ""
}

// markGone makes every later call fail fast and wakes every waiting one.
func (b *Browser) markGone(reason string) {
	b.mu.Lock()
	if b.gone == "" {
		if b.closing {
			reason = "it was closed"
		}
		b.gone = reason
	}
	pages := append([]*Page(nil), b.pages...)
	b.mu.Unlock()
	for _, p := range pages {
		p.markClosed("the browser is gone: " + reason)
	}
	b.cancel()
	if b.ws != nil {
		_ = b.ws.Close()
	}
	if b.proc != nil {
		// Whether the connection broke with the process alive or the
		// process died (a crash leaves its helpers behind), end the whole
		// process group so nothing is left.
		b.kill()
	}
}

// targetErr turns an error seen while the browser died into TargetClosed.
func (b *Browser) targetErr(err error) error {
	b.settle(err)
	if e := b.Err(); e != nil {
		return e
	}
	return err
}

// settle gives the event pump a moment to notice a broken connection, so
// the error a caller gets says the browser is gone rather than "EOF".
func (b *Browser) settle(err error) {
	if !isConnErr(err) {
		return
	}
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-b.ctx.Done():
	case <-t.C:
	}
}

// opContext derives a context for one call: bounded by timeout (the
// default when zero) and cancelled when the browser goes away.
func (b *Browser) opContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if timeout <= 0 {
		timeout = b.opts.timeout()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	stop := context.AfterFunc(b.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// reap waits for the browser process to end, however it ends, then sweeps
// its helpers and removes the temporary profile.
func (b *Browser) reap() {
	b.proc.Reap(func() { close(b.exited) })
	close(b.cleaned)
}

// kill ends the browser's process group, if its main process has not been
// reaped yet (after that its pid may belong to someone else).
func (b *Browser) kill() {
	if b.pid <= 0 {
		return
	}
	select {
	case <-b.exited:
	default:
		b.proc.Kill()
	}
}

// Close ends the browser. A launched browser is asked to quit, killed if it
// does not within a few seconds, and its temporary profile removed; for an
// attached one only the pages this driver opened are closed and the
// connection dropped. Close is idempotent.
func (b *Browser) Close(ctx context.Context) error {
	b.mu.Lock()
	already := b.closing
	b.closing = true
	var own []*Page
	for _, p := range b.pages {
		if !p.isClosed() && (p.created || p.popup) {
			own = append(own, p)
		}
	}
	b.mu.Unlock()
	if already {
		b.wait(ctx)
		return nil
	}
	if b.attached {
		for _, p := range own {
			cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			_, _ = proto.TargetCloseTarget{TargetID: p.rod.TargetID}.Call(b.rod.Context(cctx))
			cancel()
		}
		// The contexts it made go with it now, not whenever Chromium
		// notices the connection dropped (DisposeOnDetach): a client of a
		// shared browser leaves nothing of its own behind when it returns.
		b.disposeOwnContexts(ctx)
		b.markGone("it was closed")
		b.wait(ctx)
		return nil
	}
	if !b.isGone() {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_ = proto.BrowserClose{}.Call(b.rod.Context(cctx))
		cancel()
	}
	select {
	case <-b.exited:
	case <-time.After(5 * time.Second):
		b.kill()
	case <-ctx.Done():
		b.kill()
	}
	select {
	case <-b.cleaned:
	case <-time.After(10 * time.Second):
		return newErr(ErrBrowser, "the browser process %d did not exit", b.pid)
	}
	b.markGone("it was closed")
	b.wait(ctx)
	return nil
}

// wait waits for the event pumps to end.
func (b *Browser) wait(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		b.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// DevToolsURL is the browser's DevTools WebSocket endpoint, for a raw
// session of its own (package browser/cdpsession).
func (b *Browser) DevToolsURL() string { return b.wsURL }

// PID is the browser process id (0 when attached).
func (b *Browser) PID() int { return b.pid }

// ProxyEnv names the run's policy proxy (package netpolicy): a browser
// launched inside a run sends every request through it.
const ProxyEnv = launcher.ProxyEnv

// FindExecutable returns the browser Launch would start for executable
// (which may be empty), or a BrowserError saying how to provide one; see
// launcher.FindExecutable.
func FindExecutable(executable string) (string, error) {
	exe, err := launcher.FindExecutable(executable)
	if err != nil {
		return "", wrapErr(ErrBrowser, err, "%s", err.Error())
	}
	return exe, nil
}
