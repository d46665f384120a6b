package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// sandboxed wraps a bash command in the configured sandbox, if any, with
// the shell's private directory visible (read-only: writing to the status
// FIFO and reading the rc file need no more). started is to be called
// once cmd.Start has returned (sandbox.Spec.Wrap).
func (s *Shell) sandboxed(cmd *exec.Cmd) (started func(), err error) {
	if s.opts.Sandbox == nil {
		return func() {}, nil
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

// redactLog applies Options.Redact to a finished step's log, rewriting it
// only when something changed.
func (s *Shell) redactLog(logRel string) error {
	if s.opts.Redact == nil {
		return nil
	}
	path := filepath.Join(s.dir, filepath.FromSlash(logRel))
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	clean := s.opts.Redact(string(b))
	if clean == string(b) {
		return nil
	}
	return os.WriteFile(path, []byte(clean), 0o644)
}
