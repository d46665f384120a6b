package live

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"wright/browser"
	"wright/trust/sandbox"
)

// prepareSandbox completes the runner's sandbox (Options.Sandbox): the
// workspace writable, the runner's library and the driver's socket
// directory visible, and the policy proxy served on a socket in that
// directory, which the sandbox's host guard carries the sandbox's
// connections to. The runner's variables then send
// its own tools (urllib, curl, a browser run_command starts) there.
func (e *Env) prepareSandbox() error {
	if e.opts.Sandbox == nil {
		return nil
	}
	box := *e.opts.Sandbox
	box.Writable = append(append([]string{}, box.Writable...), e.ws)
	box.ReadOnly = append(append([]string{}, box.ReadOnly...), e.lib, e.sockDir)
	if e.net != nil {
		sock := filepath.Join(e.sockDir, "p.sock")
		if err := e.net.ServeUnix(sock); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
		box.ProxySocket = sock
		u := sandbox.ProxyURL
		vars := map[string]string{browser.ProxyEnv: u, "HTTP_PROXY": u, "HTTPS_PROXY": u, "http_proxy": u, "https_proxy": u,
			"ALL_PROXY": u, "all_proxy": u, "NO_PROXY": "", "no_proxy": ""}
		// Replaced, not added: C programs read the first of two.
		e.environ = slices.DeleteFunc(e.environ, func(kv string) bool {
			k, _, _ := strings.Cut(kv, "=")
			_, ours := vars[k]
			return ours
		})
		for k, v := range vars {
			e.environ = append(e.environ, k+"="+v)
		}
	}
	e.box = &box
	return nil
}

// pythonCmd is the interpreter to start: inside a sandbox, its name, looked
// up on the sandbox's own PATH (the host's may be a version manager's shim
// in a directory the sandbox does not have).
func (e *Env) pythonCmd() string {
	if e.box != nil {
		name := e.opts.Python
		if name == "" {
			name = "python3"
		}
		return name
	}
	return e.python
}
