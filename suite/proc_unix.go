//go:build unix

package suite

import (
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup puts a rerun in its own process group, so a timeout ends
// the script, its driver and their browser together.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
}
