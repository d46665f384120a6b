package workspace

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// sandboxed wraps a bash command in the configured sandbox, if any, with
// the shell's private directory visible (read-only: writing to the status
// FIFO and reading the rc file need no more).
func (s *Shell) sandboxed(cmd *exec.Cmd) error {
	if s.opts.Sandbox == nil {
		return nil
	}
	spec := *s.opts.Sandbox
	spec.ReadOnly = append(append([]string{}, spec.ReadOnly...), s.priv)
	return spec.Wrap(cmd)
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
