package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
)

// The lifeline closes the gap bubblewrap leaves: its parent-death signal
// on the sandbox's first process is set without checking that its own
// parent still lives, so a wright killed in the first milliseconds of a
// sandbox's start left the sandbox running. Every sandbox gets the read end
// of one pipe whose write end only wright holds (close-on-exec, so no
// other child inherits it). Inside, InitCommand starts a watcher before it
// becomes the command; the watcher reads until end-of-file, which comes
// when wright dies however it dies (or had died before the watcher
// started), and then SIGKILLs the command: the command is the namespace's
// second process, and when it ends bubblewrap's init ends and the kernel
// kills everything else in the namespace.

var (
	lifeOnce sync.Once
	lifeRead *os.File
	lifeErr  error
)

// lifeline returns the read end of this process's lifeline pipe; the write
// end stays open, unused, until the process ends.
func lifeline() (*os.File, error) {
	lifeOnce.Do(func() {
		r, w, err := os.Pipe()
		if err != nil {
			lifeErr = fmt.Errorf("sandbox: lifeline pipe: %w", err)
			return
		}
		lifeRead = r
		lifeWrite = w
	})
	return lifeRead, lifeErr
}

// lifeWrite is held, never written, so that its end is this process's end.
var lifeWrite *os.File

// attachLifeline passes the lifeline to cmd and returns the descriptor
// number it has in the child.
func attachLifeline(cmd *exec.Cmd) (int, error) {
	r, err := lifeline()
	if err != nil {
		return 0, err
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, r)
	return 2 + len(cmd.ExtraFiles), nil
}

// startWatcher starts the watcher of lifeline descriptor fd for the
// process that is about to become the command (this one: its pid stays
// the same across exec), and keeps fd from reaching the command.
func startWatcher(fd int) error {
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("%s: lifeline watcher: %w", InitCommand, err)
	}
	f := os.NewFile(uintptr(fd), "lifeline")
	cmd := exec.Command(self, InitCommand, "--watch-pid", strconv.Itoa(os.Getpid()), "--watch-fd", "3")
	cmd.ExtraFiles = []*os.File{f}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: lifeline watcher: %w", InitCommand, err)
	}
	syscall.CloseOnExec(fd)
	return nil
}

// watch is the watcher: it waits for end-of-file on fd 3, then kills pid.
func watch(pid int) error {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGPIPE)
	_, _ = io.Copy(io.Discard, os.NewFile(3, "lifeline"))
	if pid > 1 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return nil
}
