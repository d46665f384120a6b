package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// bubblewrap's process inside the new namespace waits, right after it is
// cloned, for its outer half to set it up; an outer half killed in that
// moment (it dies with wright) leaves it waiting for ever, before any
// parent-death signal or command of ours exists there. So bubblewrap runs
// under a host-side guard, wright's InitCommand with --host-guard: the
// leader of a process group that bubblewrap's two halves share, reading
// the lifeline. At end-of-file (wright died, however and whenever) it
// kills its group, and with bubblewrap's inner half the whole sandbox.
// The guard has no parent-death signal, so it outlives wright just long
// enough for that; bubblewrap has one tied to the guard.

// hostGuard runs path (bubblewrap) with argv under the guard. Descriptors
// 3..lifeFD pass to it with their numbers (the command's own pipes and
// the lifeline for the watcher inside).
func hostGuard(lifeFD int, path string, argv []string) error {
	if lifeFD < 3 {
		return fmt.Errorf("%s --host-guard: needs --lifeline-fd", InitCommand)
	}
	if syscall.Getpgrp() != os.Getpid() {
		// Never kill a group that is not ours alone.
		if err := syscall.Setpgid(0, 0); err != nil {
			return fmt.Errorf("%s --host-guard: setpgid: %w", InitCommand, err)
		}
	}
	life := os.NewFile(uintptr(lifeFD), "lifeline")
	var files []*os.File
	for fd := 3; fd <= lifeFD; fd++ {
		files = append(files, os.NewFile(uintptr(fd), "inherited"))
	}
	// Handled, not ignored: an ignored signal would stay ignored in
	// bubblewrap and everything it starts (Python would then never see a
	// KeyboardInterrupt).
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	go func() {
		for range sigs {
		}
	}()
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args = argv
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = files
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s --host-guard: %w", InitCommand, err)
	}
	go func() {
		_, _ = io.Copy(io.Discard, life)
		_ = syscall.Kill(0, syscall.SIGKILL)
	}()
	settle()
	_ = cmd.Wait()
	st, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if st.Signaled() {
		signal.Reset(st.Signal())
		_ = syscall.Kill(os.Getpid(), st.Signal())
		os.Exit(128 + int(st.Signal()))
	}
	os.Exit(st.ExitStatus())
	return nil
}
