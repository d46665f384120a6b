//go:build !linux

package sandbox

import "errors"

// hostGuard: there is no bubblewrap, so no sandbox to guard, here.
func hostGuard(lifeFD int, path string, argv []string) error {
	return errors.New(InitCommand + " --host-guard: bubblewrap is Linux-only")
}
