//go:build !linux

package sandbox

import "syscall"

// Confine does nothing where there are no PID namespaces or parent-death
// signals: the shell's own process tracking is the only net there.
func Confine(attr *syscall.SysProcAttr) bool { return false }

// PIDNamespaces reports that this platform has none.
func PIDNamespaces() (bool, string) { return false, "PID namespaces are Linux-only" }
