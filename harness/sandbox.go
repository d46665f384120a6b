package harness

import (
	"fmt"
	"os"
	"path/filepath"

	"wright/browser"
	"wright/config"
	"wright/judge/keyproxy"
	"wright/output"
	"wright/sandbox"
	"wright/verdict"
)

// useSandbox resolves env.sandbox: whether the model's processes run under
// bubblewrap in this run.
func useSandbox(cfg *config.Config) (bool, error) {
	return sandbox.Resolve(cfg.Env.Sandbox)
}

// sandboxSpec is the sandbox of the model's processes: the workspace
// writable; wright's binary, the browser client and the directories of
// the sockets the shell talks to (the harness's judge, the key proxy, the
// policy proxy) read-only. vars are the shell's variables.
func sandboxSpec(workspace, executable, proxySocket string, vars map[string]string) *sandbox.Spec {
	// The binary alone, not its directory: that may hold the run
	// directory itself (trajectory, config) when wright runs from a
	// checkout.
	ro := []string{executable}
	for _, k := range []string{verdict.SocketEnv, keyproxy.SocketEnv} {
		if p := vars[k]; p != "" {
			ro = append(ro, filepath.Dir(p))
		}
	}
	if p := vars[output.SchemaEnv]; p != "" && exists(p) {
		ro = append(ro, p)
	}
	if proxySocket != "" {
		ro = append(ro, filepath.Dir(proxySocket))
	}
	for _, p := range filepath.SplitList(vars["PYTHONPATH"]) {
		if p != "" && exists(p) {
			ro = append(ro, p)
		}
	}
	if b := vars["WRIGHT_BROWSER"]; b != "" && exists(b) {
		ro = append(ro, filepath.Dir(b))
	}
	return &sandbox.Spec{
		Writable:    []string{workspace},
		ReadOnly:    ro,
		ProxySocket: proxySocket,
		Wright:      executable,
	}
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// sandboxProxyVars send the sandbox's tools to the forwarder of the
// policy proxy (sandbox.ProxyAddr): it is the only way out.
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
	dir, err := os.MkdirTemp("", "wright-net-")
	if err != nil {
		return "", fmt.Errorf("sandbox: %w", err)
	}
	r.onClose(func() { os.RemoveAll(dir) })
	r.proxySocket = filepath.Join(dir, "proxy.sock")
	return r.proxySocket, nil
}
