package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"wright/agents/mcp"
	"wright/agents/session"
	"wright/browser"
	"wright/env/proctab"
	"wright/run/config"
)

// browserRequest is one command to a session's daemon: a tool call, or an
// op of the daemon's own (script, info). One request, one reply, one
// connection.
type browserRequest struct {
	Op   string         `json:"op,omitempty"`
	Tool string         `json:"tool,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// browserReply is a session.Result on the wire, with the tool's error.
type browserReply struct {
	Text      string         `json:"text"`
	Code      string         `json:"code,omitempty"`
	Image     []byte         `json:"image,omitempty"`
	ImageType string         `json:"image_type,omitempty"`
	Data      map[string]any `json:"data,omitempty"`
	Error     string         `json:"error,omitempty"`
}

var sessionName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$`)

// browserRuntimeDir is where the sessions' sockets live: the user's
// runtime directory, else a folder of the user's own under the temp
// directory. It must be a real directory of this user that no one else
// may enter, since whoever reaches a socket drives that browser.
func browserRuntimeDir() (string, error) {
	var dir string
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" {
		dir = filepath.Join(rt, "wright-browser")
	} else {
		dir = filepath.Join(os.TempDir(), fmt.Sprintf("wright-browser-%d", os.Getuid()))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("browser sessions' folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("browser sessions' folder: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("browser sessions' folder %s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "", fmt.Errorf("browser sessions' folder %s belongs to another user", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", fmt.Errorf("browser sessions' folder: %w", err)
		}
	}
	return dir, nil
}

// sessionPaths are a session's socket, its info file and its log.
func sessionPaths(name string) (sock, info, logf string, err error) {
	if !sessionName.MatchString(name) {
		return "", "", "", usageError("session name %q: use letters, digits, '.', '_' or '-' (at most 40)", name)
	}
	dir, err := browserRuntimeDir()
	if err != nil {
		return "", "", "", err
	}
	sock = filepath.Join(dir, name+".sock")
	if len(sock) > 100 {
		return "", "", "", fmt.Errorf("the socket path %s is too long for a Unix socket; set XDG_RUNTIME_DIR to a shorter folder", sock)
	}
	return sock, filepath.Join(dir, name+".json"), filepath.Join(dir, name+".log"), nil
}

var errNoSession = errors.New("no browser session")

// replyTimeout bounds the wait for one reply.
const replyTimeout = 10 * time.Minute

// dialSession connects to a running session's daemon.
func dialSession(name string) (net.Conn, error) {
	sock, _, _, err := sessionPaths(name)
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("unix", sock, 2*time.Second)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w %q is running; start one with `wright browser open URL --session %s`", errNoSession, name, name)
		}
		return nil, fmt.Errorf("browser session %q: %w", name, err)
	}
	return conn, nil
}

// callBrowser sends one request to the session named by --session.
func callBrowser(c *cobra.Command, req browserRequest) (browserReply, error) {
	return callSession(c.Context(), browserFlags.session, req)
}

func callSession(ctx context.Context, name string, req browserRequest) (browserReply, error) {
	conn, err := dialSession(name)
	if err != nil {
		return browserReply{}, err
	}
	defer conn.Close()
	// A cancelled command (Ctrl-C) stops waiting; the daemon's action
	// goes on to its own end.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	// No action takes this long (run_code is bounded by its step
	// timeout); a daemon that never answers must not hang the command.
	_ = conn.SetDeadline(time.Now().Add(replyTimeout))
	b, err := json.Marshal(req)
	if err != nil {
		return browserReply{}, err
	}
	if _, err := conn.Write(append(b, '\n')); err != nil {
		return browserReply{}, fmt.Errorf("browser session %q: %w", name, err)
	}
	var r browserReply
	line, err := bufio.NewReaderSize(conn, 1<<20).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		if ctx.Err() != nil {
			return browserReply{}, ctx.Err()
		}
		return browserReply{}, fmt.Errorf("browser session %q ended before it answered (see its log)", name)
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return browserReply{}, fmt.Errorf("browser session %q: bad reply: %w", name, err)
	}
	return r, nil
}

// ensureBrowserDaemon starts the session's daemon unless it runs, and
// says whether it started one.
func ensureBrowserDaemon(c *cobra.Command) (bool, error) {
	name := browserFlags.session
	if _, err := callBrowser(c, browserRequest{Op: "ping"}); err == nil {
		return false, nil
	} else if !errors.Is(err, errNoSession) {
		return false, err
	}
	sock, _, logPath, err := sessionPaths(name)
	if err != nil {
		return false, err
	}
	self, err := os.Executable()
	if err != nil {
		return false, err
	}
	args := []string{"browser", "serve", "--session", name, "--ready-fd", "3"}
	// The flags given, as given: what was not given comes from the config
	// (-c), then from the defaults.
	c.Flags().Visit(func(f *pflag.Flag) {
		if f.Name == "session" || f.Name == "json" {
			return
		}
		val := f.Value.String()
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				if f.Name == "config" && !strings.Contains(v, "=") {
					v = absLayer(v)
				}
				args = append(args, "--"+f.Name, v)
			}
			return
		}
		if f.Name == "dir" {
			if abs, err := filepath.Abs(val); err == nil {
				val = abs
			}
		}
		args = append(args, "--"+f.Name+"="+val)
	})
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return false, fmt.Errorf("session log: %w", err)
	}
	defer logf.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return false, err
	}
	defer r.Close()
	cmd := exec.Command(self, args...)
	// A session opened from inside another one (its runner's shell) does
	// not carry the other's mark, which would have it swept with that one.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, sessionMark+"=") })
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{w}
	// A session of its own: the terminal's Ctrl-C and hang-up are the
	// command's, not the daemon's, which outlives the command.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return false, fmt.Errorf("start the browser session: %w", err)
	}
	ready := make(chan string, 1)
	go func() {
		// "ready", or the error that ended the start; a daemon that dies
		// says nothing and its end of the pipe closes.
		line, _ := bufio.NewReader(r).ReadString('\n')
		ready <- strings.TrimSpace(line)
	}()
	select {
	case msg := <-ready:
		if msg == "ready" {
			_ = cmd.Process.Release()
			return true, nil
		}
		_ = cmd.Wait()
		// Another command may have started it at the same moment.
		if _, err := callBrowser(c, browserRequest{Op: "ping"}); err == nil {
			return false, nil
		}
		if msg == "" {
			msg = "it ended before it was ready"
		}
		return false, fmt.Errorf("start the browser session %q: %s (log: %s)", name, msg, logPath)
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = os.Remove(sock)
		return false, fmt.Errorf("start the browser session %q: not ready within 90s (log: %s)", name, logPath)
	case <-c.Context().Done():
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return false, c.Context().Err()
	}
}

// closeBrowser ends the session and waits until its daemon is gone (and
// with it its Chromium and runner).
func closeBrowser(c *cobra.Command, _ []string) error {
	name := browserFlags.session
	r, err := callBrowser(c, browserRequest{Tool: "close"})
	if errors.Is(err, errNoSession) {
		return printBrowser(c, browserReply{Text: fmt.Sprintf("No browser session %q is running.", name), Data: map[string]any{"closed": false}})
	}
	if err != nil {
		return err
	}
	sock, _, _, _ := sessionPaths(name)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(sock); errors.Is(err, os.ErrNotExist) {
			r.Text = fmt.Sprintf("Session %q closed.", name)
			return printBrowser(c, r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("browser session %q did not end within 20s", name)
}

// listBrowsers lists the running sessions; sockets whose daemon is gone
// are removed.
func listBrowsers(c *cobra.Command, _ []string) error {
	dir, err := browserRuntimeDir()
	if err != nil {
		return err
	}
	socks, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
	sort.Strings(socks)
	var lines []string
	var list []map[string]any
	for _, sock := range socks {
		name := strings.TrimSuffix(filepath.Base(sock), ".sock")
		r, err := callSession(c.Context(), name, browserRequest{Op: "info"})
		if errors.Is(err, errNoSession) {
			_ = os.Remove(sock)
			_ = os.Remove(strings.TrimSuffix(sock, ".sock") + ".json")
			continue
		}
		if err != nil {
			lines = append(lines, fmt.Sprintf("%s\t(%v)", name, err))
			continue
		}
		r.Data["name"] = name
		list = append(list, r.Data)
		lines = append(lines, fmt.Sprintf("%s\tpid %v\t%v\t%v", name, r.Data["pid"], r.Data["url"], r.Data["dir"]))
	}
	text := strings.Join(lines, "\n")
	if text == "" {
		text = "No browser session is running."
	}
	if list == nil {
		list = []map[string]any{}
	}
	return printBrowser(c, browserReply{Text: text, Data: map[string]any{"sessions": list}})
}

// ---- the daemon -----------------------------------------------------------------------

func serveCmd() *cobra.Command {
	var readyFD int
	cmd := &cobra.Command{
		Use:    "serve",
		Short:  "Run a session's daemon (started by `wright browser open`)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var ready *os.File
			if readyFD > 0 {
				// Not for the daemon's children: Chromium holding it would
				// keep the starting command waiting.
				syscall.CloseOnExec(readyFD)
				ready = os.NewFile(uintptr(readyFD), "ready")
			}
			err := serveBrowser(c.Context(), browserFlags.session, c.Flags(), ready)
			if err != nil && ready != nil {
				fmt.Fprintln(ready, err)
				ready.Close()
			}
			return err
		},
	}
	f := cmd.Flags()
	o := &browserOpenFlags
	f.IntVar(&readyFD, "ready-fd", 0, "file descriptor to write \"ready\" on, then close")
	o.register(f)
	return cmd
}

// daemon is one session's server.
type daemon struct {
	name     string
	sess     *session.Session
	started  time.Time
	last     atomic.Int64 // unix nanoseconds of the last request's end
	inflight atomic.Int32
	wg       sync.WaitGroup
}

// serveBrowser is the daemon: it listens on the session's socket, opens
// the session, says ready, and serves until close, the idle timeout,
// Chromium's death or a signal; then nothing of it is left.
func serveBrowser(ctx context.Context, name string, flags *pflag.FlagSet, ready *os.File) error {
	sock, infoPath, _, err := sessionPaths(name)
	if err != nil {
		return err
	}
	// The session's Chromium helpers are this process's business: a dying
	// one's orphans are reaped here, not left as zombies.
	_ = browser.BecomeSubreaper()
	ln, err := listenSession(sock)
	if err != nil {
		return err
	}
	defer os.Remove(sock)
	defer ln.Close()
	// This daemon holds the name's socket, so a process that still carries
	// the name's mark is a dead daemon's (a Chromium or runner its guard
	// missed): it is swept before this session starts, and this session's
	// own processes carry the mark from here on.
	sweepSession(sock)
	if err := os.Setenv(sessionMark, sock); err != nil {
		return err
	}
	opt, err := browserSessionOptions(flags)
	if err != nil {
		return err
	}
	if opt.Dir == "" {
		opt.Dir = filepath.Join(filepath.Dir(sock), name)
		// This daemon holds the name's socket, so no live session uses
		// the folder: what an earlier one left (a killed one's half-written
		// files) is swept, and two sessions of one name share nothing.
		// RemoveAll unlinks a planted link rather than following it.
		if err := os.RemoveAll(opt.Dir); err != nil {
			return fmt.Errorf("sweep what an earlier session %q left: %w", name, err)
		}
		if err := os.MkdirAll(opt.Dir, 0o700); err != nil {
			return err
		}
	}
	o := browserOpenFlags
	sess, err := session.Open(ctx, opt)
	if err != nil {
		return err
	}
	defer sess.Close()
	d := &daemon{name: name, sess: sess, started: time.Now()}
	d.last.Store(time.Now().UnixNano())
	info, _ := json.Marshal(map[string]any{"pid": os.Getpid(), "dir": sess.Dir(), "started": d.started.Format(time.RFC3339)})
	if err := os.WriteFile(infoPath, info, 0o600); err != nil {
		return err
	}
	defer os.Remove(infoPath)
	if ready != nil {
		fmt.Fprintln(ready, "ready")
		ready.Close()
	}
	go d.accept(ctx, ln)

	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-sess.Done():
			d.drain()
			return nil
		case <-ctx.Done():
			ln.Close()
			d.drain()
			return nil
		case <-tick.C:
			if d.inflight.Load() == 0 && time.Since(time.Unix(0, d.last.Load())) > o.idle {
				fmt.Fprintf(os.Stderr, "wright browser: session %q idle for %v: closing\n", name, o.idle)
				ln.Close()
				return nil
			}
		}
	}
}

// drain lets the replies in flight (close's own) reach their clients.
func (d *daemon) drain() {
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
}

// sessionMark is the variable a session's daemon sets to its socket's
// path, which its Chromium, driver and runner inherit.
const sessionMark = "WRIGHT_BROWSER_SESSION"

// sweepSession kills what a dead daemon of this socket left running:
// every process (but this one) whose environment holds its mark.
func sweepSession(sock string) {
	mark := sessionMark + "=" + sock
	find := func() []int { return proctab.WithEnv(mark, os.Getpid()) }
	if left := find(); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "wright browser: sweeping %d processes a dead session of this name left: %v\n", len(left), left)
		proctab.KillAll(find)
	}
}

// listenSession listens on sock, mode 0600. A socket left by a dead
// daemon is replaced; a live one means the session runs already.
func listenSession(sock string) (net.Listener, error) {
	listen := func() (net.Listener, error) {
		old := syscall.Umask(0o177)
		defer syscall.Umask(old)
		return net.Listen("unix", sock)
	}
	ln, err := listen()
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		if c, derr := net.DialTimeout("unix", sock, time.Second); derr == nil {
			c.Close()
			return nil, fmt.Errorf("a browser session is already listening on %s", sock)
		}
		_ = os.Remove(sock)
		ln, err = listen()
	}
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", sock, err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	// The daemon removes the socket itself; net's unlink on Close would
	// race a new daemon's socket of the same name.
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return ln, nil
}

func (d *daemon) accept(ctx context.Context, ln net.Listener) {
	for {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		if err := allowedPeer(conn); err != nil {
			// Said to the daemon's log and to the peer, which is told no
			// more than that it is refused.
			fmt.Fprintf(os.Stderr, "wright browser: session %q: %v\n", d.name, err)
			// Its request is read (and dropped) first, so that the reply
			// is not lost to a reset of a connection closed unread.
			_ = conn.SetDeadline(time.Now().Add(time.Second))
			_, _ = bufio.NewReaderSize(conn, 1<<10).ReadSlice('\n')
			b, _ := json.Marshal(browserReply{Error: err.Error()})
			_, _ = conn.Write(append(b, '\n'))
			conn.Close()
			continue
		}
		d.wg.Add(1)
		d.inflight.Add(1)
		go func() {
			defer d.wg.Done()
			defer d.inflight.Add(-1)
			defer d.last.Store(time.Now().UnixNano())
			defer conn.Close()
			d.serve(ctx, conn)
		}()
	}
}

// allowedPeer refuses a connection from any user but the session's own,
// and root (who can read the session's files anyway): the socket's folder
// and mode already keep others out, and this holds when they are changed.
// Where the kernel cannot say who connected (off Linux) the folder alone
// guards.
func allowedPeer(conn net.Conn) error {
	uid, err := peerUID(conn)
	if err != nil {
		if errors.Is(err, errPeerUnknown) {
			return nil
		}
		return fmt.Errorf("refused a connection whose user cannot be read: %w", err)
	}
	if uid == os.Getuid() || uid == 0 {
		return nil
	}
	return fmt.Errorf("refused a connection from uid %d: this session serves uid %d only", uid, os.Getuid())
}

// maxRequest bounds one request line: run_code's code is the largest
// part of any, and none comes near.
const maxRequest = 8 << 20

func (d *daemon) serve(ctx context.Context, conn net.Conn) {
	line, err := bufio.NewReaderSize(io.LimitReader(conn, maxRequest), 1<<20).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return
	}
	if len(line) >= maxRequest {
		b, _ := json.Marshal(browserReply{Error: fmt.Sprintf("bad request: over %d bytes", maxRequest)})
		_, _ = conn.Write(append(b, '\n'))
		return
	}
	var req browserRequest
	var r browserReply
	if err := json.Unmarshal(line, &req); err != nil {
		r.Error = "bad request: " + err.Error()
	} else {
		r = d.handle(ctx, req)
	}
	b, _ := json.Marshal(r)
	_, _ = conn.Write(append(b, '\n'))
}

func (d *daemon) handle(ctx context.Context, req browserRequest) browserReply {
	switch req.Op {
	case "ping":
		return browserReply{Text: "ok"}
	case "script":
		return browserReply{Text: d.sess.Script()}
	case "info":
		// Read without waiting for a call in flight: list must not hang
		// on a session busy with a long run.
		data := map[string]any{"pid": os.Getpid(), "dir": d.sess.Dir(), "started": d.started.Format(time.RFC3339), "url": d.sess.URL()}
		return browserReply{Text: fmt.Sprint(data), Data: data}
	case "":
	default:
		return browserReply{Error: fmt.Sprintf("unknown op %q", req.Op)}
	}
	args, err := json.Marshal(req.Args)
	if err != nil {
		return browserReply{Error: err.Error()}
	}
	if req.Args == nil {
		args = nil
	}
	res, err := d.sess.Call(ctx, req.Tool, args)
	// The image stays in its file (Data["path"]): the client prints paths.
	r := browserReply{Text: res.Text, Code: res.Code, ImageType: res.ImageType, Data: res.Data}
	if err != nil {
		// The error carries what the page shows after it.
		r.Error, r.Text = err.Error(), ""
	}
	return r
}

// absLayer makes a config layer that names a file absolute (the daemon
// runs on after the command's folder is left); built-in names stay.
func absLayer(v string) string {
	if _, err := os.Stat(v); err != nil {
		return v
	}
	if abs, err := filepath.Abs(v); err == nil {
		return abs
	}
	return v
}

// browserSessionOptions are the session's options: the config's browser,
// URL policy, secrets and sandbox (as `wright mcp` reads them), then the
// flags that were given.
func browserSessionOptions(flags *pflag.FlagSet) (session.Options, error) {
	o := browserOpenFlags
	cfg, err := config.Load(o.configs, nil)
	if err != nil {
		return session.Options{}, usageError("%v", err)
	}
	opt, err := mcp.SessionOptions(cfg)
	if err != nil {
		return session.Options{}, usageError("%v", err)
	}
	// The keys the config names stay out of the runner (HideEnv); the
	// daemon does not move them to the keyring, whose re-exec would take
	// the ready pipe's descriptor.
	opt.Dir = o.dir
	opt.ActionTimeout = o.actionTimeout
	opt.ScreenshotBytes = o.screenshotSize << 10
	set := func(name string, apply func()) {
		if flags.Changed(name) {
			apply()
		}
	}
	set("allow-domain", func() { opt.AllowedDomains = o.allowed })
	set("block-domain", func() { opt.BlockedDomains = o.blocked })
	set("headed", func() { opt.Headed = o.headed })
	set("browser", func() { opt.Executable = o.executable })
	set("sandbox", func() { opt.Sandbox = o.sandbox })
	return opt, nil
}
