package launcher

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/launcher/flags"

	"wright/internal/scratch"
)

// ProxyEnv names the run's policy proxy (package netpolicy). A browser a
// script launches inside a run (workspace mode) sends every request
// through it, loopback included, so the run's URL policy applies to its
// subresources, fetches and WebSockets too.
const ProxyEnv = "WRIGHT_PROXY"

// Config is how to start Chromium.
type Config struct {
	Executable  string    // empty: FindExecutable's search
	Headed      bool      // show a window
	UserDataDir string    // empty: a fresh temporary profile, removed by Process.Reap
	Width       int       // the window's size
	Height      int       //
	Args        []string  // extra Chromium flags, "--name" or "--name=v1,v2"
	Env         []string  // the process's environment
	Log         io.Writer // Chromium's own output; nil drops it
}

// Process is a started Chromium: its DevTools URL, and the process group
// Reap sweeps. It runs under a guard (guard.go) that ends the whole group
// when this process dies, however it dies.
type Process struct {
	URL     string // the DevTools WebSocket
	Exe     string
	Profile string // the temporary profile Reap removes; "" when the caller gave one
	Proxy   string // the --proxy-server it was launched with, if any

	g *guarded
}

// TempDir is a short temporary directory: Chromium's socket names under a
// profile must fit in sun_path, so a long $TMPDIR (macOS) is avoided.
func TempDir() string {
	const maxLen = 40 // leaves room for Chromium's own folder and socket names
	if dir := os.TempDir(); len(dir) <= maxLen {
		return dir
	}
	if fi, err := os.Stat("/tmp"); err == nil && fi.IsDir() {
		return "/tmp"
	}
	return os.TempDir()
}

// Start finds and starts Chromium headless (unless Headed) in its own
// process group, listening for DevTools on a free port. It never downloads
// a browser. A headed browser with no display in its environment runs on
// a private Xvfb (xvfb.go).
func Start(ctx context.Context, cfg Config) (*Process, error) {
	exe, err := FindExecutable(cfg.Executable)
	if err != nil {
		return nil, err
	}
	profile := cfg.UserDataDir
	temp := profile == ""
	if temp {
		profile, err = scratch.MkdirTemp(TempDir(), "profile-")
		if err != nil {
			return nil, fmt.Errorf("create a temporary browser profile: %w", err)
		}
	}
	l := launcher.New().Context(ctx).Bin(exe).Leakless(false).Headless(!cfg.Headed).UserDataDir(profile).
		Set(flags.RemoteDebuggingPort, "0").
		Set("no-sandbox").Set("disable-gpu").Set("no-first-run").Set("no-startup-window").
		Set("disable-background-networking").Set("disable-component-update").Set("disable-sync").
		Set("disable-back-forward-cache").Set("hide-scrollbars").Set("mute-audio").
		// The GPU process of a browser without a GPU only composites in
		// software; in the browser process it costs no process of its
		// own (about 25 MB of PSS a browser, measured with
		// bench/measure/scale/proctree).
		Set("in-process-gpu").
		// The network service too: its process costs about 20 MB of PSS a
		// browser (bench/measure/scale/proctree), and a browser of its own per
		// attempt gains nothing from keeping it apart.
		Set("enable-features", "NetworkServiceInProcess2").
		// Cross-origin frames stay in the page's process, so their DOM is
		// reachable from the page's own CDP session. Every window (each
		// browser context opens one) would also get a renderer of its own
		// for the omnibox's popup, a WebUI page no one sees headless:
		// about 40 MB of PSS a context (bench/measure/scale/proctree); without
		// those two features the popup is drawn by the browser process.
		Set("disable-features", "IsolateOrigins", "site-per-process", "Translate", "BackForwardCache",
			"WebUIOmniboxPopup", "WebUIOmniboxAimPopup").
		Set("window-size", fmt.Sprintf("%d,%d", cfg.Width, cfg.Height)).
		Delete("enable-automation")
	for _, a := range cfg.Args {
		name, val, hasVal := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if hasVal {
			l = l.Set(flags.Flag(name), strings.Split(val, ",")...)
		} else {
			l = l.Set(flags.Flag(name))
		}
	}
	l = withRunProxy(l)
	bin, args, env := exe, l.FormatArgs(), append(slices.Clip(cfg.Env), "TMPDIR="+TempDir())
	if cfg.Headed && needsXvfb(env) {
		bin, args, env, err = underXvfb(exe, args, env, profile, cfg.Width, cfg.Height)
		if err != nil {
			if temp {
				_ = os.RemoveAll(profile)
			}
			return nil, err
		}
	}
	// rod's launcher only formats the flags; the guard starts the process.
	g, wsURL, err := startGuarded(ctx, bin, args, env, cfg.Log)
	if err != nil {
		if temp {
			_ = os.RemoveAll(profile)
		}
		return nil, fmt.Errorf("launch %s: %w", exe, err)
	}
	// The profile is removed by Reap, after the process group is swept
	// (and never when the caller gave it).
	p := &Process{URL: wsURL, Exe: exe, Proxy: l.Get("proxy-server"), g: g}
	if temp {
		p.Profile = profile
	}
	return p, nil
}

func withRunProxy(l *launcher.Launcher) *launcher.Launcher {
	p := os.Getenv(ProxyEnv)
	if p == "" || l.Has("proxy-server") {
		return l
	}
	return l.Set("proxy-server", p).Set("proxy-bypass-list", "<-loopback>")
}

// PID is the guard's id, which is also the browser's process group's.
func (p *Process) PID() int { return p.g.cmd.Process.Pid }

// Reap waits for the browser process to end; then, at once, while the
// group id can only be its helpers', kills and reaps the group and removes
// the temporary profile. exited is called as soon as the process itself
// is reaped.
func (p *Process) Reap(exited func()) {
	<-p.g.exit // the guard is reaped
	exited()
	p.g.life.Close()
	pid := p.PID()
	// Once the last helper is gone the id may be reused, so this is never
	// done later.
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	reapGroup(pid)
	if p.Profile != "" {
		// Dying helpers may still hold files for a moment.
		for i := 0; i < 20; i++ {
			if err := os.RemoveAll(p.Profile); err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// Kill ends the browser's whole process group: the browser started it in
// a group of its own, so this reaches its helpers (renderers, GPU,
// zygotes) too.
func (p *Process) Kill() {
	p.g.kill()
}

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
