package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"wright/browser"
	"wright/browser/driver"
	"wright/browser/launcher"
	"wright/env"
	"wright/env/live"
	"wright/internal/scratch"
	"wright/run/config"
	"wright/run/judge/keyproxy"
	"wright/run/output"
	"wright/run/verdict"
	"wright/trust/sandbox"
)

// useSandbox resolves env.sandbox: whether the model's processes run under
// bubblewrap in this run.
func useSandbox(cfg *config.Config) (bool, error) {
	return sandbox.Resolve(cfg.Env.Sandbox)
}

// sandboxSpec is the sandbox of the model's processes: the workspace
// writable; wright's binary, the browser client and the directories of
// the sockets the shell talks to (the harness's judge, the key proxy, the
// warm browser's driver) read-only. vars are the shell's variables.
func sandboxSpec(workspace, executable, proxySocket string, vars map[string]string) *sandbox.Spec {
	// The binary alone, not its directory: that may hold the run
	// directory itself (trajectory, config) when wright runs from a
	// checkout.
	ro := []string{executable}
	for _, k := range []string{verdict.SocketEnv, keyproxy.SocketEnv, DriverWarmEnv} {
		if p := vars[k]; p != "" {
			ro = append(ro, filepath.Dir(p))
		}
	}
	if p := vars[output.SchemaEnv]; p != "" && exists(p) {
		ro = append(ro, p)
	}
	// The policy proxy's socket is not among them: the host guard, outside
	// the sandbox, dials it for the sandbox's connections.
	for _, p := range filepath.SplitList(vars["PYTHONPATH"]) {
		if p != "" && exists(p) {
			ro = append(ro, p)
		}
	}
	if b := vars["WRIGHT_BROWSER"]; b != "" && exists(b) {
		ro = append(ro, filepath.Dir(b))
	}
	writable := []string{workspace}
	if d := vars[driver.HARRecordEnv]; d != "" && exists(d) {
		writable = append(writable, d) // the drivers the scripts start write the run's HARs there
	}
	if p := vars[driver.HARReplayEnv]; p != "" && exists(p) {
		ro = append(ro, p)
	}
	return &sandbox.Spec{
		Writable:    writable,
		ReadOnly:    ro,
		ProxySocket: proxySocket,
		Wright:      executable,
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// sandboxProxyVars send the sandbox's tools to the policy proxy's
// listener (sandbox.ProxyAddr): it is the only way out.
func sandboxProxyVars() map[string]string {
	u := sandbox.ProxyURL
	return map[string]string{browser.ProxyEnv: u, "HTTP_PROXY": u, "HTTPS_PROXY": u, "http_proxy": u, "https_proxy": u,
		"ALL_PROXY": u, "all_proxy": u, "NO_PROXY": "", "no_proxy": ""}
}

// sandboxSocket makes, for a sandboxed run, the private directory of the
// policy proxy's Unix socket and returns the socket's path ("" when the
// run is not sandboxed). Socket paths are limited to about 100 bytes, so
// it lives in the system's temp directory, not the run's.
func (r *runner) sandboxSocket() (string, error) {
	if !r.sandboxed {
		return "", nil
	}
	dir, err := scratch.MkdirTemp("", "net-")
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	r.onClose(func() { os.RemoveAll(dir) })
	r.proxySocket = filepath.Join(dir, "proxy.sock")
	return r.proxySocket, nil
}

// scriptBrowsers serves a workspace run's scripts (and a rerun's, RunScript,
// whatever the mode it was saved from) their browsers from
// wright's process (scriptDrivers): a plain launch() is a fresh context of
// the run's warm Chromium (or of the bench worker's, SharedBrowser), which
// goes through the run's policy proxy at proxyURL. In a sandboxed run with
// secrets every launch() goes there, so the secrets are typed on their
// domains only and outside the sandbox. The socket joins vars.
func (r *runner) scriptBrowsers(vars map[string]string, proxyURL string) error {
	cfg := r.h.cfg
	if cfg.Agent.Mode != "workspace" && !r.scriptRun {
		return nil // a live run's one browser is its environment's
	}
	secretive := r.sandboxed && r.h.secrets != nil && len(r.h.secrets.Names()) > 0
	pol, err := live.NewPolicy(cfg.Browser.AllowedDomains, cfg.Browser.BlockedDomains)
	if err != nil {
		return err
	}
	har, err := harOptions(cfg, r.run.Dir)
	if err != nil {
		return err
	}
	proxyArgs := []string{"--proxy-server=" + proxyURL, "--proxy-bypass-list=<-loopback>"}
	opts := browser.Options{
		Executable:   config.Abs(cfg.Browser.Executable),
		CDPURL:       cfg.Browser.CDPURL,
		Viewport:     browser.Viewport{Width: cfg.Browser.Viewport.Width, Height: cfg.Browser.Viewport.Height},
		Timeout:      time.Duration(cfg.Browser.TimeoutMS) * time.Millisecond,
		Args:         proxyArgs,
		URLPolicy:    pol.Check,
		Env:          hiddenEnviron(cfg.KeyNames()),
		ContextProxy: proxyURL,
	}
	if secretive {
		opts.Secrets = env.BrowserSecrets(r.h.secrets)
	}
	var warm *warmBrowser
	if cfg.Browser.CDPURL == "" {
		// The warm Chromium carries the run's proxy too, and each context
		// names it again (ContextProxy), as a shared bench browser needs.
		// The window's size bounds what a page may ask for; each page's
		// viewport is its client's.
		warm = newWarmBrowser(launcher.Config{Executable: opts.Executable, Width: 1280, Height: 1800,
			Args: proxyArgs, Env: opts.Env}, r.h.opts.SharedBrowser)
	}
	d, err := startScriptDrivers(r.run.Workspace, opts, har, warm, r.sandboxed)
	if err != nil {
		if !secretive && errors.Is(err, errNoScriptDrivers) {
			return nil // scripts start their own browsers, as they always could
		}
		return err
	}
	r.onClose(d.close)
	r.warm = warm
	vars[DriverWarmEnv] = d.socket()
	if secretive {
		r.spawned = true
		vars[DriverSpawnEnv] = d.socket()
	}
	return nil
}
