//go:build !linux && !darwin

package proctab

import "errors"

var errUnsupported = errors.New("reading the process table is not supported on this platform")

// Limits says that nothing is available here.
func Limits() string { return errUnsupported.Error() }

// List is not available on this platform.
func List() ([]Proc, error) { return nil, errUnsupported }

// Stat is not available on this platform.
func Stat(int) (Proc, bool) { return Proc{}, false }

// HasEnv is not available on this platform.
func HasEnv(int, string) bool { return false }

// Cwd is not available on this platform.
func Cwd(int) (string, error) { return "", errUnsupported }
