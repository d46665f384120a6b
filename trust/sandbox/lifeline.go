package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
)

// The lifeline closes the gap bubblewrap leaves: its parent-death signal
// on the sandbox's first process is set without checking that its own
// parent still lives, so a wright killed in the first milliseconds of a
// sandbox's start left the sandbox running. Every sandbox's host guard
// (guard_linux.go) gets the read end of one pipe whose write end only
// wright holds (close-on-exec, so no other child inherits it). The guard's
// watcher reads until end-of-file, which comes when wright dies however it
// dies (or had died before the guard started), and then kills the guard's
// process group: bubblewrap's two halves, and with the inner one the
// namespace's init, so the kernel kills everything else in the namespace.

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
