package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
)

// The lifeline closes the gap bubblewrap leaves: its parent-death signal
// on the sandbox's first process is set without checking that its own
// parent still lives, so a wright killed in the first milliseconds of a
// sandbox's start left the sandbox running. Every sandbox's host guard
// gets the read end of one pipe whose write end only wright holds
// (close-on-exec, so no other child inherits it). The guard reads until
// end-of-file, which comes when wright dies however it dies (or had died
// before the guard started), and then kills its process group: bubblewrap's
// two halves, and with the inner one, the namespace's init, so the kernel
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

// settle hands back to the system the memory wright's start-up used: the
// host guard lives as long as its sandbox and needs almost none of what
// every package of the binary allocated when it was initialised, yet the
// Go runtime would keep those pages resident.
func settle() {
	debug.FreeOSMemory()
}

// helperGOGC is the GOGC the host guard starts with. Most of what it keeps
// is what the binary's packages built at initialisation and still hold
// (lexer and style registries, schemas: about 3 MB live); the garbage
// allocated beside it leaves spans part-used that FreeOSMemory cannot hand
// back. Collecting often during those initialisers packs the survivors
// into fewer spans: about 1.1 MiB less resident (measured with
// bench/measure/scale), for 10 to 19 ms more of its start, which is on a
// sandbox's way up.
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
