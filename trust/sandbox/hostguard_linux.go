package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
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

// hostGuard runs path (bubblewrap) with argv under the guard.
// Descriptors 3..passFDs pass to it with their numbers (the command's own
// pipes); the lifeline, lifeFD, stays with the guard. With sock, the guard
// is also the sandbox's way to wright's policy proxy: it hands bubblewrap
// one end of a socket pair as descriptor passFDs+1, the sandbox's init
// sends the proxy's listener back over it (sendListener), and the guard
// carries each connection to sock. One wright process a sandbox, outside
// it, instead of a guard outside and a forwarder inside.
func hostGuard(passFDs, lifeFD int, sock, path string, argv []string) error {
	if lifeFD < 3 || passFDs < 2 || passFDs >= lifeFD {
		return fmt.Errorf("%s --host-guard: needs --pass-fds and a --lifeline-fd after them", InitCommand)
	}
	if syscall.Getpgrp() != os.Getpid() {
		// Never kill a group that is not ours alone.
		if err := syscall.Setpgid(0, 0); err != nil {
			return fmt.Errorf("%s --host-guard: setpgid: %w", InitCommand, err)
		}
	}
	// Inherited without close-on-exec: bubblewrap must not get it.
	syscall.CloseOnExec(lifeFD)
	life := os.NewFile(uintptr(lifeFD), "lifeline")
	var files []*os.File
	for fd := 3; fd <= passFDs; fd++ {
		files = append(files, os.NewFile(uintptr(fd), "inherited"))
	}
	guardEnd := -1
	if sock != "" {
		pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("%s --host-guard: socketpair: %w", InitCommand, err)
		}
		guardEnd = pair[0]
		inner := os.NewFile(uintptr(pair[1]), "proxy-link") // passFDs+1 in bubblewrap
		files = append(files, inner)
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
	for _, f := range files {
		// Only bubblewrap holds them now: the command's pipes must see
		// end-of-file when it ends, and the proxy link when init closes it.
		f.Close()
	}
	go func() {
		_, _ = io.Copy(io.Discard, life)
		_ = syscall.Kill(0, syscall.SIGKILL)
	}()
	if guardEnd >= 0 {
		go func() {
			l, err := receiveListener(guardEnd)
			if err != nil {
				// The sandbox has no proxy then; its command will say so.
				fmt.Fprintf(os.Stderr, "wright: %s --host-guard: the sandbox's proxy listener: %v\n", InitCommand, err)
				return
			}
			forward(l, sock)
		}()
	}
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

// receiveListener is the guard's half of sendListener: it waits on fd
// for the one listener the sandbox's init sends, and closes fd.
// End-of-file (the sandbox ended before it got that far) is an error.
func receiveListener(fd int) (net.Listener, error) {
	defer syscall.Close(fd)
	buf := make([]byte, 1)
	oob := make([]byte, syscall.CmsgSpace(4))
	var n, oobn int
	var err error
	for {
		n, oobn, _, _, err = syscall.Recvmsg(fd, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if n == 0 && oobn == 0 {
		return nil, io.EOF
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, errors.New("no listener in the sandbox's message")
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, f := range fds {
			syscall.Close(f)
		}
		return nil, errors.New("not one listener in the sandbox's message")
	}
	f := os.NewFile(uintptr(fds[0]), "listener")
	defer f.Close()
	return net.FileListener(f)
}

// maxCarried bounds the connections the guard carries at once: a sandbox
// that opens connections without end waits for one to close instead of
// growing the guard, which lives outside it.
const maxCarried = 256

// forward carries each connection on l to the proxy's Unix socket
// unchanged, until l fails.
func forward(l net.Listener, sock string) {
	slots := make(chan struct{}, maxCarried)
	for {
		slots <- struct{}{}
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer func() { <-slots }()
			carry(c, sock)
		}()
	}
}

func carry(c net.Conn, sock string) {
	defer c.Close()
	up, err := net.Dial("unix", sock)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		_ = up.(*net.UnixConn).CloseWrite()
		close(done)
	}()
	_, _ = io.Copy(c, up)
	_ = c.(*net.TCPConn).CloseWrite()
	<-done
}
