package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"wright/browser/launcher"
)

// errNoScriptDrivers: this system serves no script drivers (scriptdriver_other.go).
var errNoScriptDrivers = errors.New("script drivers: only Linux serves scripts their browsers from wright's process")

// warmBrowser is the one Chromium a run's scripts share (scriptDrivers):
// started by the first launch() and kept until the run ends, and started
// again at the next launch after it died. Each script's driver attaches to
// it over its DevTools endpoint with a fresh context of its own
// (driver.ServerOptions.Warm); only wright's process holds that endpoint.
// It is a bare process, not a browser.Browser: a client of its own would
// take over every page the scripts open. With external set (a bench
// worker's shared Chromium, harness.Options.SharedBrowser) it starts
// nothing and hands that one out.
type warmBrowser struct {
	cfg      launcher.Config
	external string

	mu      sync.Mutex
	proc    *warmProc
	closed  bool
	started atomic.Int64 // Chromium launches, for tests and measures
}

// warmProc is one life of the warm browser.
type warmProc struct {
	p      *launcher.Process
	gone   chan struct{} // closed when the process has ended
	reaped chan struct{} // closed when its helpers are swept and its profile removed
}

func (wp *warmProc) alive() bool {
	select {
	case <-wp.gone:
		return false
	default:
		return true
	}
}

// newWarmBrowser returns the warm browser of a run. It starts at the first
// launch() that needs it, not with the run: a run whose scripts never open
// a browser (curl, a file) starts none.
func newWarmBrowser(cfg launcher.Config, external string) *warmBrowser {
	return &warmBrowser{cfg: cfg, external: external}
}

// devTools returns the warm browser's DevTools URL, starting it if it is
// not running.
func (w *warmBrowser) devTools(ctx context.Context) (string, error) {
	if w.external != "" {
		return w.external, nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return "", errors.New("the run's warm browser is closed: the run is ending")
	}
	if w.proc != nil && w.proc.alive() {
		return w.proc.p.URL, nil
	}
	// None yet, or it died (crashed, killed): the scripts that used it got
	// their error already; its reaper sweeps what is left.
	p, err := launcher.Start(ctx, w.cfg)
	if err != nil {
		return "", fmt.Errorf("warm browser: %w", err)
	}
	wp := &warmProc{p: p, gone: make(chan struct{}), reaped: make(chan struct{})}
	go func() {
		defer close(wp.reaped)
		p.Reap(func() { close(wp.gone) })
	}()
	w.started.Add(1)
	w.proc = wp
	return p.URL, nil
}

// pid is the running warm browser's process (group) id, 0 if none (tests).
func (w *warmBrowser) pid() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.proc == nil || !w.proc.alive() {
		return 0
	}
	return w.proc.p.PID()
}

// close ends the warm browser and its helpers and waits for them;
// devTools refuses from then on.
func (w *warmBrowser) close() {
	w.mu.Lock()
	w.closed = true
	wp := w.proc
	w.mu.Unlock()
	if wp == nil {
		return
	}
	wp.p.Kill()
	select {
	case <-wp.reaped:
	case <-time.After(15 * time.Second):
	}
}
