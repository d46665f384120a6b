package browser

import (
	"syscall"
)

// BecomeSubreaper makes this process the reaper of its orphaned
// descendants (Linux PR_SET_CHILD_SUBREAPER), so the helpers a dying
// Chromium leaves behind are reaped by the driver rather than lingering as
// zombies under an init that may never reap them. Only a process whose
// children are all its own business should call it: `wright driver` does.
func BecomeSubreaper() error {
	const prSetChildSubreaper = 36
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return errno
	}
	return nil
}
