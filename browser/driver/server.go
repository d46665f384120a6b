package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"wright/browser"
	"wright/browser/probe"
)

// ServerOptions configure a driver server.
type ServerOptions struct {
	// Browser holds the defaults of browser.launch; the request's params
	// override them. Its URLPolicy always applies and cannot be overridden
	// by a client.
	Browser browser.Options
	// Log receives the driver's own diagnostics (never protocol traffic);
	// nil discards them.
	Log io.Writer
	// Probe, if set, is read from the page the client used last when the
	// client ends (see package browser/probe).
	Probe *probe.Request
	// HAR records or replays the browser's whole traffic (har_methods.go).
	HAR HAROptions
	// FileRoot, if set, is the only folder the driver reads or writes a
	// file in on a client's behalf (HAR, trace, screenshot, video,
	// download, upload), opening names beneath it without following a
	// link (pathpolicy.go): the workspace of a sandboxed run, the run
	// folder in live mode. Empty, as for a `wright driver` a user runs,
	// confines nothing.
	FileRoot string
	// Warm, if set, gives the DevTools URL of a Chromium that is kept
	// started for many clients (starting it again if it died). A
	// browser.launch that asks for nothing a browser of its own would need
	// (a window, flags, an executable, a profile, a CDP endpoint) then
	// attaches to it with a fresh context as its default one
	// (browser.Options.FreshContext) instead of starting a Chromium: a
	// launch in milliseconds that behaves as a new browser. Such a client
	// gets no browser-level CDP session (cdp_methods.go), since that
	// would see every client's targets.
	Warm func(ctx context.Context) (string, error)
}

// Server answers the JSON-RPC protocol of PROTOCOL.md. One Server holds at
// most one browser at a time, shared by all its connections.
type Server struct {
	opts    ServerOptions
	pageIDs atomic.Int64
	probe   *prober

	launchMu sync.Mutex // one launch at a time

	mu        sync.Mutex
	browser   *browser.Browser
	browserID string
	browsers  int
	shared    bool // browser is a context of the Warm one

	tracing tracers     // Playwright traces in progress (tracing_methods.go)
	hars    harRegistry // HAR recordings and archives (har_methods.go)
}

// NewServer returns a server with no browser yet; browser.launch starts one.
func NewServer(opts ServerOptions) *Server {
	return &Server{opts: opts, probe: newProber(opts.Probe)}
}

// Browser returns the server's current browser (nil before browser.launch),
// for in-process callers that want screenshots or snapshots of it.
func (s *Server) Browser() *browser.Browser {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.browser
}

// Launch starts the server's browser now (as browser.launch would with no
// params), or returns the one it has.
func (s *Server) Launch(ctx context.Context) (*browser.Browser, error) {
	b, _, err := s.launch(ctx, launchParams{})
	return b, err
}

// Close closes the server's browser, reading the probe first if one was
// asked for.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	b := s.browser
	s.mu.Unlock()
	if err := s.probe.finish(ctx, b); err != nil {
		s.logf("%v", err)
	}
	harErr := s.hars.closeAll(ctx)
	if harErr != nil {
		s.logf("%v", harErr)
	}
	if b == nil {
		return harErr
	}
	return errors.Join(b.Close(ctx), harErr)
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "wright driver: "+format+"\n", args...)
	}
}

// ServeStdio serves one client over r and w until r ends, ctx is cancelled
// or the client calls browser.close; then it closes the browser. This is
// `wright driver`.
func ServeStdio(ctx context.Context, r io.Reader, w io.Writer, opts ServerOptions) error {
	s := NewServer(opts)
	err := s.serve(ctx, r, w, true)
	cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if cerr := s.Close(cctx); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// ServeSocket listens on a Unix socket at path until ctx is cancelled;
// clients may connect one after another or at once and share one browser.
// On return the browser is closed and the socket file removed.
func ServeSocket(ctx context.Context, path string, opts ServerOptions) error {
	s := NewServer(opts)
	err := s.ServeSocket(ctx, path)
	cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if cerr := s.Close(cctx); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// socketInUse says whether a driver listens on the socket at path. Only a
// refused connection, seen three times, marks the socket stale: a dial that
// times out (a loaded machine, a full backlog) has someone behind it, and a
// driver that has just bound its socket refuses for the moment before it
// listens.
func socketInUse(path string) bool {
	for i := 0; i < 3; i++ {
		c, err := net.DialTimeout("unix", path, 2*time.Second)
		if err == nil {
			c.Close()
			return true
		}
		if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOENT) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

// ServeSocket serves the protocol on a Unix socket at path until ctx is
// cancelled; it leaves the browser open (Close ends it).
func (s *Server) ServeSocket(ctx context.Context, path string) error {
	if path == "" {
		return errors.New("serve socket: empty path")
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return fmt.Errorf("serve socket: %s exists and is not a socket", path)
		}
		if socketInUse(path) {
			return fmt.Errorf("serve socket: another driver is listening on %s", path)
		}
		_ = os.Remove(path) // a stale socket of a driver that died
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("serve socket: %w", err)
	}
	_ = os.Chmod(path, 0o600)
	s.logf("listening on %s", path)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	go func() {
		<-ctx.Done()
		ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	var acceptErr error
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() == nil {
				acceptErr = fmt.Errorf("serve socket: accept: %w", err)
				cancel()
			}
			break
		}
		mu.Lock()
		conns[c] = true
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.serve(ctx, c, c, false); err != nil && ctx.Err() == nil {
				s.logf("connection: %v", err)
			}
			c.Close()
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
		}()
	}
	wg.Wait()
	_ = os.Remove(path)
	return acceptErr
}

// ServeConn serves one connection until r ends or ctx is cancelled. The
// browser stays open for other connections; browser.close closes it for all.
func (s *Server) ServeConn(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.serve(ctx, r, w, false)
}
