//go:build unix && !linux

package bench

import "syscall"

// dieWithParent: there is no parent-death signal here.
func dieWithParent(attr *syscall.SysProcAttr) {}
