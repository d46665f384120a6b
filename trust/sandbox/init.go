package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
)

// Init is InitCommand: the first process bubblewrap starts in a sandbox.
// Its arguments are
//
//	[--proxy-fd K --listen ADDR] --exec PATH -- ARGV...
//
// It listens on ADDR inside the sandbox's network namespace (before the
// command starts, so the proxy is there for its first request), sends the
// listener out of the sandbox over the socket K to wright, which carries
// each connection to its policy proxy, and then executes PATH with ARGV in
// its own place. Nothing of wright stays in the sandbox. It returns only
// on error.
func Init(args []string) error {
	var listen, path string
	proxyFD := -1
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		switch a {
		case "--proxy-fd":
			if len(args) == 0 {
				return fmt.Errorf("%s %s: missing value", InitCommand, a)
			}
			n, err := strconv.Atoi(args[0])
			args = args[1:]
			if err != nil {
				return fmt.Errorf("%s %s: %w", InitCommand, a, err)
			}
			proxyFD = n
		case "--listen", "--exec":
			if len(args) == 0 {
				return fmt.Errorf("%s %s: missing value", InitCommand, a)
			}
			if a == "--listen" {
				listen = args[0]
			} else {
				path = args[0]
			}
			args = args[1:]
		case "--":
			return start(proxyFD, listen, path, args)
		default:
			return fmt.Errorf("%s: unknown argument %q", InitCommand, a)
		}
	}
	return fmt.Errorf("%s: no command after --", InitCommand)
}

// start hands the proxy's listener out (when the sandbox has a proxy) and
// becomes the command.
func start(proxyFD int, listen, path string, argv []string) error {
	if path == "" || len(argv) == 0 {
		return fmt.Errorf("%s: no command to run", InitCommand)
	}
	if proxyFD >= 0 {
		if err := sendListener(proxyFD, listen); err != nil {
			return err
		}
	}
	if !filepath.IsAbs(path) {
		// A name is looked up inside: the host's PATH may name places
		// the sandbox does not have (a version manager's shims).
		found, err := exec.LookPath(path)
		if err != nil {
			return fmt.Errorf("%s: %w", InitCommand, err)
		}
		path = found
	}
	err := syscall.Exec(path, argv, os.Environ())
	return fmt.Errorf("%s: exec %s: %w", InitCommand, path, err)
}

// sendListener listens on addr in the sandbox's network namespace and
// sends the listening socket over the Unix socket fd to wright. A socket
// keeps the namespace it was made in, so wright, outside, accepts the
// sandbox's connections on it. fd is closed before the command starts, so
// nothing the model runs can send wright anything over it.
func sendListener(fd int, addr string) error {
	link := os.NewFile(uintptr(fd), "guard")
	defer link.Close()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s: proxy listener: %w", InitCommand, err)
	}
	defer l.Close()
	raw, err := l.(*net.TCPListener).SyscallConn()
	if err != nil {
		return fmt.Errorf("%s: proxy listener: %w", InitCommand, err)
	}
	var sendErr error
	if err := raw.Control(func(lfd uintptr) {
		sendErr = syscall.Sendmsg(fd, []byte{1}, syscall.UnixRights(int(lfd)), nil, 0)
	}); err != nil {
		return fmt.Errorf("%s: proxy listener: %w", InitCommand, err)
	}
	if sendErr != nil {
		return fmt.Errorf("%s: proxy listener to the host guard: %w", InitCommand, sendErr)
	}
	return nil
}
