package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/launcher/flags"
	"github.com/go-rod/rod/lib/proto"
	"github.com/go-rod/rod/lib/utils"

	"wright/scratch"
)

// Viewport is a page's size in CSS pixels.
type Viewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// DefaultViewport is the size of new pages unless Options say otherwise.
var DefaultViewport = Viewport{Width: 1280, Height: 1800}

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
	// Headed shows the browser window; the default is headless.
	Headed bool
	// Viewport of new pages; zero means DefaultViewport.
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
	// BrowserLog receives the browser process's stdout and stderr; nil
	// discards them.
	BrowserLog io.Writer

	// PageIDs numbers pages (p1, p2, ...). A driver shares one counter
	// between every browser it launches, so page ids are never reused
	// within one driver. Nil starts from zero.
	PageIDs *atomic.Int64
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
	return DefaultViewport
}

// Browser is one Chromium, launched or attached to. Its methods are safe for
// concurrent use.
type Browser struct {
	opts     Options
	rod      *rod.Browser
	ws       *cdp.WebSocket
	attached bool

	// For a launched browser: its guarded process (guard.go), the guard's
	// pid (the leader of the browser's process group) and the process's end.
	proc    *browserProc
	proxy   string // the --proxy-server it was launched with (neterror.go)
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

	dl downloads // download.go

	paused      *pausingClient             // autoattach.go; nil when new targets are not held
	ctxDefaults map[string]ContextDefaults // context_defaults.go, by the client's context id
	custom      customEngines              // selectors_custom.go
}

// Launch starts Chromium (or attaches to Options.CDPURL) and returns it
// ready for NewPage. ctx bounds only the start-up; Close ends the browser.
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	if opts.PageIDs == nil {
		opts.PageIDs = new(atomic.Int64)
	}
	for _, a := range opts.Args {
		if !strings.HasPrefix(a, "--") {
			return nil, newErr(ErrInvalidParams, "browser flag %q must start with --", a)
		}
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

// shortTempDir is where Chromium's profile and sockets go. Chromium puts a
// Unix socket under TMPDIR, and socket paths are limited to about 100
// bytes: inside a deep run directory (whose shell sets TMPDIR to
// workspace/tmp) the launch would fail with "Socket path too long".
func shortTempDir() string {
	const maxLen = 40 // leaves room for Chromium's own folder and socket names
	if dir := os.TempDir(); len(dir) <= maxLen {
		return dir
	}
	if fi, err := os.Stat("/tmp"); err == nil && fi.IsDir() {
		return "/tmp"
	}
	return os.TempDir()
}

func launch(ctx context.Context, opts Options) (*Browser, error) {
	exe, err := FindExecutable(opts.Executable)
	if err != nil {
		return nil, err
	}
	profile := opts.UserDataDir
	temp := profile == ""
	if temp {
		profile, err = scratch.MkdirTemp(shortTempDir(), "profile-")
		if err != nil {
			return nil, wrapErr(ErrBrowser, err, "create a temporary browser profile: %v", err)
		}
	}
	vp := opts.viewport()
	// The launcher only formats the flags; startGuarded starts the process.
	l := launcher.New().Context(ctx).Bin(exe).Leakless(false).Headless(!opts.Headed).UserDataDir(profile).
		Set(flags.RemoteDebuggingPort, "0").
		Set("no-sandbox").Set("disable-gpu").Set("no-first-run").Set("no-startup-window").
		Set("disable-background-networking").Set("disable-component-update").Set("disable-sync").
		Set("disable-back-forward-cache").Set("hide-scrollbars").Set("mute-audio").
		// Cross-origin frames stay in the page's process, so their DOM is
		// reachable from the page's own CDP session.
		Set("disable-features", "IsolateOrigins", "site-per-process", "Translate", "BackForwardCache").
		Set("window-size", fmt.Sprintf("%d,%d", vp.Width, vp.Height)).
		Delete("enable-automation")
	for _, a := range opts.Args {
		name, val, hasVal := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if hasVal {
			l = l.Set(flags.Flag(name), strings.Split(val, ",")...)
		} else {
			l = l.Set(flags.Flag(name))
		}
	}
	l = withRunProxy(l)
	proc, wsURL, err := startGuarded(ctx, exe, l.FormatArgs(), append(opts.environ(), "TMPDIR="+shortTempDir()), opts.BrowserLog)
	if err != nil {
		if temp {
			_ = os.RemoveAll(profile)
		}
		return nil, wrapErr(ErrBrowser, err, "launch %s: %v", exe, err)
	}
	// The profile is removed by us, after the process group is swept (and
	// never when the caller gave it).
	b := &Browser{opts: opts, proc: proc, proxy: l.Get("proxy-server"), pid: proc.cmd.Process.Pid, exited: make(chan struct{}), cleaned: make(chan struct{})}
	b.started.Store(true) // a fresh browser has no tabs of its own
	if temp {
		b.profile = profile
	}
	go b.reap(proc)
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
	wsURL, err := resolveCDPURL(ctx, opts.CDPURL)
	if err != nil {
		return nil, err
	}
	b := &Browser{opts: opts, attached: true}
	if err := b.connect(ctx, wsURL); err != nil {
		return nil, err
	}
	// Adopt the tabs that are already open, in the browser's order.
	res, err := proto.TargetGetTargets{}.Call(b.rod.Context(ctx))
	if err != nil {
		_ = b.Close(context.Background())
		return nil, wrapErr(ErrBrowser, err, "list the tabs of %s: %s", opts.CDPURL, cdpMessage(err))
	}
	for _, t := range res.TargetInfos {
		if t.Type != proto.TargetTargetInfoTypePage || strings.HasPrefix(t.URL, "devtools://") {
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

// resolveCDPURL turns http://host:port into the browser's WebSocket URL.
func resolveCDPURL(ctx context.Context, u string) (string, error) {
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
	resp, err := http.DefaultClient.Do(req)
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
	ws := &cdp.WebSocket{}
	if err := ws.Connect(ctx, wsURL, nil); err != nil {
		return wrapErr(ErrBrowser, err, "connect to the browser at %s: %v", wsURL, err)
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
	if err := b.rod.Connect(); err != nil {
		b.cancel()
		_ = ws.Close()
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

// pump follows the browser's targets: new tabs and popups become pages,
// closed or crashed ones are marked so.
func (b *Browser) pump(events <-chan *rod.Message) {
	for msg := range events {
		switch msg.Method {
		case "Target.targetCreated":
			var e proto.TargetTargetCreated
			// A held browser adopts its pages as they are attached (onAttached).
			if b.paused == nil && msg.Load(&e) && e.TargetInfo.Type == proto.TargetTargetInfoTypePage {
				b.onTargetCreated(e.TargetInfo)
			}
		case "Target.attachedToTarget":
			b.onAttached(msg)
		case "Target.targetInfoChanged":
			var e proto.TargetTargetInfoChanged
			if msg.Load(&e) {
				b.onTargetChanged(e.TargetInfo)
			}
		case "Target.targetDestroyed":
			var e proto.TargetTargetDestroyed
			if msg.Load(&e) {
				if p := b.pageByTarget(e.TargetID); p != nil {
					p.markClosed("the page was closed")
				}
			}
		case "Target.targetCrashed":
			var e proto.TargetTargetCrashed
			if msg.Load(&e) {
				if p := b.pageByTarget(e.TargetID); p != nil {
					p.markClosed("the page crashed (" + e.Status + ")")
				}
			}
		case "Browser.downloadWillBegin", "Browser.downloadProgress":
			b.onDownloadEvent(msg)
		case "Target.detachedFromTarget":
			var e proto.TargetDetachedFromTarget
			if msg.Load(&e) {
				var detached []*Page
				b.mu.Lock()
				for _, p := range b.pages {
					if p.rod.SessionID == e.SessionID {
						detached = append(detached, p)
					}
				}
				b.mu.Unlock()
				for _, p := range detached {
					p.markClosed("the page was detached")
				}
			}
		}
	}
	// The connection is gone: the browser closed, crashed, or went away.
	b.markGone("the connection to the browser was lost")
}

func (b *Browser) onTargetCreated(info *proto.TargetTargetInfo) {
	b.adoptMu.Lock()
	defer b.adoptMu.Unlock()
	if !b.started.Load() || b.pageByTarget(info.TargetID) != nil || b.isGone() {
		return
	}
	opener, kind := "", kindForeign
	if info.OpenerID != "" {
		if op := b.pageByTarget(info.OpenerID); op != nil {
			opener, kind = op.id, kindPopup
		}
	}
	if b.opts.URLPolicy != nil && !isBlankURL(info.URL) {
		if err := b.opts.URLPolicy(info.URL); err != nil {
			b.refusePopup(info, opener, err)
			return
		}
	}
	ctx, cancel := context.WithTimeout(b.ctx, b.opts.timeout())
	defer cancel()
	if _, err := b.adopt(ctx, info.TargetID, opener, kind); err != nil && !b.isGone() {
		if op := b.pageByID(opener); op != nil {
			op.addConsole("error", "wright: could not take over the new tab "+info.URL+": "+err.Error(), "", 0)
		}
	}
}

func (b *Browser) onTargetChanged(info *proto.TargetTargetInfo) {
	p := b.pageByTarget(info.TargetID)
	if p == nil || b.opts.URLPolicy == nil || isBlankURL(info.URL) || !p.popup {
		return
	}
	// A popup's first document may load before we could intercept it.
	if err := b.opts.URLPolicy(info.URL); err != nil {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		defer cancel()
		_, _ = proto.TargetCloseTarget{TargetID: info.TargetID}.Call(b.rod.Context(ctx))
		if op := b.pageByID(p.opener); op != nil {
			op.addConsole("error", "wright: closed a popup at "+info.URL+" blocked by the URL policy: "+err.Error(), "", 0)
		}
	}
}

func (b *Browser) refusePopup(info *proto.TargetTargetInfo, opener string, err error) {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	_, _ = proto.TargetCloseTarget{TargetID: info.TargetID}.Call(b.rod.Context(ctx))
	if op := b.pageByID(opener); op != nil {
		op.addConsole("error", "wright: blocked a new tab at "+info.URL+" by the URL policy: "+err.Error(), "", 0)
		op.recordBlocked(info.URL, err)
	}
}

func isBlankURL(u string) bool {
	return u == "" || u == "about:blank" || strings.HasPrefix(u, "about:blank#")
}

// pageKind says where a page came from.
type pageKind int

const (
	kindCreated pageKind = iota // by NewPage
	kindPopup                   // opened by one of our pages
	kindForeign                 // anything else: tabs that were open before we attached, tabs other clients or the user opened
)

// adopt attaches to a page target and gives it the next page id. The
// caller holds adoptMu.
func (b *Browser) adopt(ctx context.Context, id proto.TargetTargetID, opener string, kind pageKind) (*Page, error) {
	rp, err := b.attachTarget(ctx, id)
	if err != nil && kind == kindPopup && targetGone(err) {
		return b.closedPopup(&rod.Page{TargetID: id}, opener), nil
	}
	if err != nil {
		return nil, b.targetErr(wrapErr(ErrBrowser, err, "attach to the new page: %s", cdpMessage(err)))
	}
	p := newPage(b, rp, fmt.Sprintf("p%d", b.opts.PageIDs.Add(1)), opener)
	p.created, p.popup = kind == kindCreated, kind == kindPopup
	b.mu.Lock()
	b.pages = append(b.pages, p)
	if b.byTarget == nil {
		b.byTarget = map[proto.TargetTargetID]*Page{}
	}
	b.byTarget[id] = p
	b.mu.Unlock()
	// The viewport is ours to set only on our own pages: the ones we
	// created and their popups. A foreign tab belongs to someone else, in
	// a launched browser too: another client attached to it (a second
	// driver, or a test) creates tabs that we adopt here as foreign, and
	// two sessions overriding the device metrics of one tab fight, so the
	// size the tab ends up with would depend on which session's override
	// Chromium applied last.
	setupCtx, gone := ctx, func() bool { return false }
	if kind == kindPopup {
		var stop func()
		setupCtx, gone, stop = b.watchTarget(ctx, id)
		defer stop()
	}
	err = p.setup(setupCtx, kind != kindForeign)
	if err == nil && kind == kindPopup {
		err = b.inheritContext(setupCtx, p)
	}
	if err != nil {
		if kind == kindPopup && (gone() || targetGone(err)) {
			b.announceClosed(p, opener)
			return p, nil
		}
		p.markClosed("setting the page up failed")
		return nil, b.targetErr(err)
	}
	p.ready.Store(true)
	b.emit("browser.page", map[string]any{"page": p.id, "opener": opener})
	return p, nil
}

// NewPage opens a new tab at about:blank.
func (b *Browser) NewPage(ctx context.Context) (*Page, error) {
	if err := b.alive(); err != nil {
		return nil, err
	}
	ctx, cancel := b.opContext(ctx, 0)
	defer cancel()
	b.adoptMu.Lock()
	defer b.adoptMu.Unlock()
	// A window of its own keeps each page visible while another is used.
	t, err := proto.TargetCreateTarget{URL: "about:blank", NewWindow: true}.Call(b.rod.Context(ctx))
	if err != nil {
		return nil, b.targetErr(wrapErr(ErrBrowser, err, "open a new tab: %s", cdpMessage(err)))
	}
	return b.adopt(ctx, t.TargetID, "", kindCreated)
}

// Pages returns the open pages in creation order.
func (b *Browser) Pages() []*Page {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*Page
	for _, p := range b.pages {
		if p.ready.Load() && !p.isClosed() {
			out = append(out, p)
		}
	}
	return out
}

// Page returns the page with the given id, open or closed; nil if there
// never was one.
func (b *Browser) Page(id string) *Page { return b.pageByID(id) }

func (b *Browser) pageByID(id string) *Page {
	if id == "" {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.pages {
		if p.id == id {
			return p
		}
	}
	return nil
}

func (b *Browser) pageByTarget(id proto.TargetTargetID) *Page {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.byTarget[id]
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
func (b *Browser) reap(proc *browserProc) {
	<-proc.exit // the guard is reaped
	close(b.exited)
	proc.life.Close()
	// At once, while the group id can only be theirs: once the last helper
	// is gone the id may be reused, so this is never done later.
	_ = syscall.Kill(-b.pid, syscall.SIGKILL)
	reapGroup(b.pid)
	if b.profile != "" {
		// Dying helpers may still hold files for a moment.
		for i := 0; i < 20; i++ {
			if err := os.RemoveAll(b.profile); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	close(b.cleaned)
}

// reapGroup waits for the killed helpers of a process group that became
// our children (see BecomeSubreaper), so none stays a zombie. Without a
// subreaper they are not ours and init reaps them; wait4 then says so at once.
func reapGroup(pgid int) {
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil)
		switch {
		case err == syscall.EINTR:
		case err != nil:
			return // ECHILD: none (left) of ours
		case pid == 0:
			time.Sleep(10 * time.Millisecond) // ours, not dead yet
		}
	}
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
		// The launcher started the browser in its own process group; this
		// reaches its helpers (renderers, GPU, zygotes) too.
		_ = syscall.Kill(-b.pid, syscall.SIGKILL)
		_ = syscall.Kill(b.pid, syscall.SIGKILL)
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

// PID is the browser process id (0 when attached).
func (b *Browser) PID() int { return b.pid }
