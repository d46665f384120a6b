//go:build unix

package bench

import (
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup puts a rerun in its own process group, so a timeout ends
// the script, its driver and their browser together; and it dies with the
// bench (the parent-death signal, set with a check that the bench still
// lives; its driver then reads end-of-file and ends, and the browser's
// guard with it).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
}
