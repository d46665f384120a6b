package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
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

// watch is the watcher: it waits for end-of-file on descriptor fd, then
// kills pid. Its process has been through helperStarted.
func watch(pid, fd int) error {
	_, _ = io.Copy(io.Discard, os.NewFile(uintptr(fd), "lifeline"))
	if pid > 1 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return nil
}

// settle hands back to the system the memory wright's start-up used: a
// helper process (the forwarder, the watcher, the host guard) lives as
// long as its sandbox and needs almost none of what every package of the
// binary allocated when it was initialised, yet the Go runtime would keep
// those pages resident.
func settle() {
	debug.FreeOSMemory()
}

// helperGOGC is the GOGC a helper starts with. Most of what a helper keeps
// is what the binary's packages built at initialisation and still hold
// (lexer and style registries, schemas: about 3 MB live); the garbage
// allocated beside it leaves spans part-used that FreeOSMemory cannot hand
// back. Collecting often during those initialisers packs the survivors
// into fewer spans: about 1.1 MiB less resident a helper (measured with
// bench/measure/scale), for 10 to 19 ms more of its start. The host
// guard's start is on a sandbox's way up; the forwarder's runs beside
// the command.
const helperGOGC = "GOGC=20"

// helperEnv is env with helperGOGC, and whether it was added: a GOGC the
// user set is kept as it is.
func helperEnv(env []string) ([]string, bool) {
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOGC=") {
			return env, false
		}
	}
	return append(slices.Clip(env), helperGOGC), true
}

// helperStarted readies a helper inside the sandbox (the forwarder, the
// watcher), once: the command's Ctrl-C, hang-up or timeout must not end
// it, and it settles.
func helperStarted() {
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGPIPE)
	settle()
}
