package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"wright/browser/launcher"
	"wright/run/config"
)

// SharedBrowser is the Chromium the bench's attempts share, each live one
// and each workspace script in a browser context of its own
// (harness.Options.SharedBrowser): a browser per
// attempt costs its browser, network, storage and zygote processes again,
// a context costs only its renderers. Every PerBrowser workers share one
// Chromium (worker w takes browser (w-1)/PerBrowser), so that no single
// browser process serves every attempt of a wide bench. Each is started at
// the first attempt that needs it and again after it died; an attempt
// during which its browser died is an infrastructure failure
// (BrowserLostError), retried.
type SharedBrowser struct {
	// Executable is the Chromium to start (browser.executable); empty:
	// launcher.FindExecutable's search.
	Executable string
	// Args are extra Chromium flags.
	Args []string
	// Env is the browser's environment: the bench's without the API keys,
	// so that code a model runs cannot read them from the browser's /proc.
	Env []string
	// PerBrowser is how many workers share one Chromium; 0 means
	// DefaultPerBrowser.
	PerBrowser int

	mu     sync.Mutex
	procs  map[int]*sharedProc // by slot
	closed bool
}

// DefaultPerBrowser is how many workers share one Chromium by default.
const DefaultPerBrowser = 4

// sharedProc is one life of the shared browser.
type sharedProc struct {
	p      *launcher.Process
	gone   chan struct{} // closed when the process has ended
	reaped chan struct{} // closed when its helpers are swept and its profile removed
}

// BrowserLostError is an attempt's error when the shared browser ended
// while it ran: the attempt says nothing about the agent.
type BrowserLostError struct{}

func (*BrowserLostError) Error() string {
	return "the bench's shared browser ended during the attempt (crashed or was killed); it is started again"
}

// Lease is an attempt's hold on the shared browser's current life.
type Lease struct {
	URL string
	sp  *sharedProc
}

// Lost reports whether the browser the lease was taken on has ended.
func (l Lease) Lost() bool {
	select {
	case <-l.sp.gone:
		return true
	default:
		return false
	}
}

// Fits reports whether an attempt of cfg may run in a context of the shared
// browser: a live attempt, or a workspace attempt whose scripts' plain
// launch() then each get a context of it (the run's warm browser,
// harness.Options.SharedBrowser), with no browser of its own (cdp_url)
// that asks for the same Chromium, headless. A task that names another
// executable or a headed window gets the browser it asked for.
func (s *SharedBrowser) Fits(cfg *config.Config) bool {
	if s == nil || (cfg.Agent.Mode != "browser" && cfg.Agent.Mode != "workspace") || cfg.Browser.CDPURL != "" || !cfg.Browser.Headless {
		return false
	}
	return config.Abs(cfg.Browser.Executable) == s.Executable
}

// Take returns the running browser of worker (from 1), starting it if
// there is none or the last one ended.
func (s *SharedBrowser) Take(ctx context.Context, worker int) (Lease, error) {
	per := s.PerBrowser
	if per <= 0 {
		per = DefaultPerBrowser
	}
	slot := max(worker-1, 0) / per
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Lease{}, errors.New("the bench's shared browser is closed")
	}
	if cur := s.procs[slot]; cur != nil && !(Lease{sp: cur}).Lost() {
		return Lease{URL: cur.p.URL, sp: cur}, nil
	}
	// The viewport is each page's own (the run sets it); the window
	// size only bounds what a page may ask for.
	p, err := launcher.Start(ctx, launcher.Config{Executable: s.Executable, Width: 1280, Height: 1800, Args: s.Args, Env: s.Env})
	if err != nil {
		return Lease{}, fmt.Errorf("start the bench's shared browser: %w", err)
	}
	sp := &sharedProc{p: p, gone: make(chan struct{}), reaped: make(chan struct{})}
	go func() {
		defer close(sp.reaped)
		p.Reap(func() { close(sp.gone) })
	}()
	if s.procs == nil {
		s.procs = map[int]*sharedProc{}
	}
	s.procs[slot] = sp
	return Lease{URL: p.URL, sp: sp}, nil
}

// Close ends the shared browser (and its helpers) and waits for it. A nil
// SharedBrowser has nothing to close.
func (s *SharedBrowser) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	procs := s.procs
	s.mu.Unlock()
	for _, sp := range procs {
		sp.p.Kill()
	}
	for _, sp := range procs {
		<-sp.reaped
	}
}
