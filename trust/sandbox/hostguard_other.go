//go:build !linux

package sandbox

import "errors"

// hostGuard: there is no bubblewrap, so no sandbox to guard, here.
func hostGuard(passFDs, lifeFD int, sock, path string, argv []string) error {
	return errors.New(InitCommand + " --host-guard: bubblewrap is Linux-only")
}
