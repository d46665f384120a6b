//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// BwrapAvailable reports that bubblewrap is Linux-only.
func BwrapAvailable() (bool, string) {
	return false, "bubblewrap is Linux-only: steps run with the user's own rights"
}

// Wrap refuses: there is no bubblewrap here.
func (s *Spec) Wrap(cmd *exec.Cmd) (started func(), err error) {
	return nil, errors.New("sandbox: bubblewrap is Linux-only")
}

// FirstHostPID: there are no sandboxes here.
func FirstHostPID(outer int) (int, error) { return 0, errors.New("sandbox: bubblewrap is Linux-only") }
