package harness

import (
	"context"
	"path/filepath"
	"time"

	"wright/env"
	"wright/env/workspace"
)

func init() { registerEnvironment("workspace", environment{workspace.Kind, newWorkspace}) }

// newWorkspace starts workspace mode: a persistent bash in a pty.
func newWorkspace(ctx context.Context, s setup) (env.Environment, error) {
	cfg := s.cfg
	return workspace.New(ctx, workspace.Options{
		Dir:         s.run.Workspace,
		Env:         s.vars,
		HideEnv:     cfg.KeyNames(),
		PathPrepend: []string{filepath.Dir(s.vars["WRIGHT_BIN"])},
		Timeout:     time.Duration(cfg.Env.CommandTimeoutSeconds * float64(time.Second)),
		OutputLimit: cfg.Env.OutputTruncationChars,
		RecentFiles: 8,
		Sandbox:     s.sandbox,
		Redact:      logRedactor(s.secrets),
	})
}
