//go:build unix && !linux

package suite

import "syscall"

// dieWithParent: there is no parent-death signal here.
func dieWithParent(attr *syscall.SysProcAttr) {}
