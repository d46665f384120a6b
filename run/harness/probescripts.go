package harness

import (
	"errors"
	"sync"
	"time"

	"wright/browser"
	"wright/browser/launcher"
	"wright/browser/probe"
	"wright/run/config"
)

// ProbeScripts serves the browsers of scripts run outside a run, whose
// last page the caller reads when each script's browser ends (the bench's
// rerun of a workspace attempt's final script, scored by its page): a
// plain launch() is a fresh context of the Chromium at shared (a bench
// worker's), or of one it starts, instead of a Chromium of its own. The
// probe is the driver's, as WRIGHT_PROBE asks of a driver a script starts.
type ProbeScripts struct {
	d    *scriptDrivers
	once sync.Once
}

// StartProbeScripts starts serving; Vars name its socket to the scripts.
// Where scripts cannot be served so (not Linux), it returns nil and no
// error: the caller then asks for the probe through WRIGHT_PROBE.
func StartProbeScripts(cfg *config.Config, dir, shared string, req *probe.Request) (*ProbeScripts, error) {
	opts := browser.Options{
		Executable: config.Abs(cfg.Browser.Executable),
		Viewport:   browser.Viewport{Width: cfg.Browser.Viewport.Width, Height: cfg.Browser.Viewport.Height},
		Timeout:    time.Duration(cfg.Browser.TimeoutMS) * time.Millisecond,
		Env:        hiddenEnviron(cfg.KeyNames()),
	}
	har, err := harOptions(cfg, dir)
	if err != nil {
		return nil, err
	}
	warm := newWarmBrowser(launcher.Config{Executable: opts.Executable, Width: 1280, Height: 1800, Env: opts.Env}, shared)
	d, err := startProbeDrivers(dir, opts, har, warm, false, req)
	if errors.Is(err, errNoScriptDrivers) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &ProbeScripts{d: d}, nil
}

// Vars are the variables that send a script's launch() to it.
func (p *ProbeScripts) Vars() map[string]string {
	return map[string]string{DriverWarmEnv: p.d.socket()}
}

// Close ends every script's browser (reading its probe first) and the
// Chromium it started, if it started one. It may be called again.
func (p *ProbeScripts) Close() { p.once.Do(p.d.close) }
