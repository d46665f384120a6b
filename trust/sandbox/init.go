package sandbox

import (
	"errors"
	"fmt"
	"io"
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
//	[--lifeline-fd N] [--proxy-socket SOCKET --listen ADDR] --exec PATH -- ARGV...
//
// (the host guard's: --host-guard [--drop-gogc] --lifeline-fd N --exec BWRAP -- ARGV...)
//
// It listens on ADDR inside the sandbox's network namespace (before the
// command starts, so the proxy is there for its first request), hands the
// listener to a helper process that carries each connection to wright's
// policy proxy on SOCKET and watches the lifeline N, and then executes PATH
// with ARGV in its own place. Run with --serve-fd (and --watch-pid) it is
// that helper; with --watch-pid and --watch-fd alone, a helper that only
// watches (a sandbox without a proxy). It returns only on error.
func Init(args []string) error {
	var sock, listen, path string
	serve := false
	lifeFD, watchPID := -1, 0
	guard := false
	for len(args) > 0 {
		a := args[0]
		args = args[1:]
		switch a {
		case "--serve-fd":
			serve = true
		case "--host-guard":
			guard = true
		case "--drop-gogc":
			// The guard's GOGC was added for it alone (helperEnv):
			// bubblewrap and the command get the environment without it.
			_ = os.Unsetenv("GOGC")
		case "--lifeline-fd", "--watch-pid":
			if len(args) == 0 {
				return fmt.Errorf("%s %s: missing value", InitCommand, a)
			}
			n, err := strconv.Atoi(args[0])
			args = args[1:]
			if err != nil {
				return fmt.Errorf("%s %s: %w", InitCommand, a, err)
			}
			if a == "--lifeline-fd" {
				lifeFD = n
			} else {
				watchPID = n
			}
		case "--watch-fd":
			if len(args) == 0 {
				return fmt.Errorf("%s %s: missing value", InitCommand, a)
			}
			// Always 3, where startHelper puts it; --watch-pid comes first.
			helperStarted()
			return watch(watchPID, 3)
		case "--proxy-socket", "--listen", "--exec":
			if len(args) == 0 {
				return fmt.Errorf("%s %s: missing value", InitCommand, a)
			}
			v := args[0]
			args = args[1:]
			switch a {
			case "--proxy-socket":
				sock = v
			case "--listen":
				listen = v
			default:
				path = v
			}
		case "--":
			if guard {
				return hostGuard(lifeFD, path, args)
			}
			return start(sock, listen, lifeFD, path, args)
		default:
			return fmt.Errorf("%s: unknown argument %q", InitCommand, a)
		}
	}
	if serve {
		return forward(sock, watchPID)
	}
	return fmt.Errorf("%s: no command after --", InitCommand)
}

// start starts the helper (the proxy forwarder and the lifeline's watcher,
// whichever the sandbox needs) and becomes the command.
func start(sock, listen string, lifeFD int, path string, argv []string) error {
	if path == "" || len(argv) == 0 {
		return fmt.Errorf("%s: no command to run", InitCommand)
	}
	if err := startHelper(sock, listen, lifeFD); err != nil {
		return err
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

// startHelper starts the one process that stays beside the command: it
// serves the proxy's listener (when there is a proxy) and watches the
// lifeline (when there is one). One process for both, since each wright
// process costs its runtime's memory again, and a bench runs many
// sandboxes at once.
func startHelper(sock, listen string, lifeFD int) error {
	if sock == "" && lifeFD < 0 {
		return nil
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("%s: sandbox helper: %w", InitCommand, err)
	}
	cmd := exec.Command(self, InitCommand)
	if lifeFD >= 0 {
		// Its pid stays the command's across exec.
		cmd.Args = append(cmd.Args, "--watch-pid", strconv.Itoa(os.Getpid()))
	}
	if sock != "" {
		l, err := net.Listen("tcp", listen)
		if err != nil {
			return fmt.Errorf("%s: proxy forwarder: %w", InitCommand, err)
		}
		f, err := l.(*net.TCPListener).File()
		l.Close()
		if err != nil {
			return fmt.Errorf("%s: proxy forwarder: %w", InitCommand, err)
		}
		defer f.Close()
		cmd.ExtraFiles = append(cmd.ExtraFiles, f) // fd 3
		cmd.Args = append(cmd.Args, "--serve-fd", "--proxy-socket", sock)
	}
	if lifeFD >= 0 {
		cmd.ExtraFiles = append(cmd.ExtraFiles, os.NewFile(uintptr(lifeFD), "lifeline")) // fd 3, or 4 after the listener
		if sock == "" {
			cmd.Args = append(cmd.Args, "--watch-fd", "3")
		}
	}
	// Its environment is never passed on, so its GOGC goes nowhere else.
	cmd.Env, _ = helperEnv(os.Environ())
	// Out of the command's process group, so a Ctrl-C or a timeout's
	// signal to the command's jobs leaves the network and the watch up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: sandbox helper: %w", InitCommand, err)
	}
	if lifeFD >= 0 {
		// The command must not hold the lifeline: only the helper does.
		syscall.CloseOnExec(lifeFD)
	}
	// Not waited for: it ends with the sandbox, and the command it
	// becomes reaps it then (or the sandbox's init does).
	return nil
}

// forward serves the listener on fd 3: each connection is carried to the
// proxy's Unix socket unchanged. With watchPID, fd 4 is the lifeline,
// watched as watch does.
func forward(sock string, watchPID int) error {
	if sock == "" {
		return errors.New(InitCommand + ": --serve-fd needs --proxy-socket")
	}
	helperStarted()
	if watchPID != 0 {
		go func() {
			_ = watch(watchPID, 4)
		}()
	}
	l, err := net.FileListener(os.NewFile(3, "listener"))
	if err != nil {
		return fmt.Errorf("%s: %w", InitCommand, err)
	}
	for {
		c, err := l.Accept()
		if err != nil {
			return fmt.Errorf("%s: accept: %w", InitCommand, err)
		}
		go carry(c, sock)
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
