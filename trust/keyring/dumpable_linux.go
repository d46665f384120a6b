package keyring

import "syscall"

// NoDump makes this process non-dumpable (PR_SET_DUMPABLE 0): its
// /proc/<pid>/environ, mem and maps become root's, no other process of the
// same user can ptrace it, and no core file is written. A root shell can
// still read its memory; the sandbox's PID namespace is what hides it.
func NoDump() error {
	const prSetDumpable = 4
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
		return errno
	}
	return nil
}
