// Package scratch makes wright's temporary folders and sweeps the ones a
// dead wright left. A SIGKILLed process removes nothing, so every folder
// made here holds an owner file naming its maker (pid and start time), and
// a run or bench that starts removes the folders whose maker is gone — and
// no others: a folder of a wright still running, or one that names no
// maker, is never touched. The name holds the maker's pid too, because a
// SIGKILL can land between making the folder and writing its owner file.
package scratch

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// OwnerFile is the file in each folder that names its maker.
const OwnerFile = ".wright-owner"

// Prefix starts the name of every folder made here.
const Prefix = "wright-"

// MkdirTemp is os.MkdirTemp(dir, Prefix+pattern+"p<pid>-") with an owner
// file.
func MkdirTemp(dir, pattern string) (string, error) {
	d, err := os.MkdirTemp(dir, fmt.Sprintf("%s%sp%d-", Prefix, pattern, os.Getpid()))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(d, OwnerFile), []byte(ownerLine(os.Getpid())), 0o600); err != nil {
		os.RemoveAll(d)
		return "", fmt.Errorf("scratch: owner file: %w", err)
	}
	return d, nil
}

func ownerLine(pid int) string {
	return fmt.Sprintf("%d %s\n", pid, startTime(pid))
}

// Sweep removes, in each of dirs (the system's temp folders when none is
// given), the folders named Prefix* whose owner file names a process that
// is gone (or a pid now held by a process started at another time). It
// returns what it removed.
func Sweep(dirs ...string) []string {
	if len(dirs) == 0 {
		dirs = TempDirs()
	}
	var removed []string
	seen := map[string]bool{}
	for _, dir := range dirs {
		if seen[dir] {
			continue
		}
		seen[dir] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() || !strings.HasPrefix(e.Name(), Prefix) {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if ownerGone(p) && removeAll(p) == nil {
				removed = append(removed, p)
			}
		}
	}
	return removed
}

// removeAll is os.RemoveAll, tried again for a moment: the helpers of a
// browser killed with its dead owner may still be writing into its profile
// when the sweep comes, and a folder they refill is not empty on the first
// pass.
func removeAll(p string) error {
	var err error
	for range 20 {
		if err = os.RemoveAll(p); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

// TempDirs are where wright makes its folders: the temp dir, and /tmp
// (the browser's profiles go there when the temp dir's path is long).
func TempDirs() []string {
	out := []string{os.TempDir()}
	if fi, err := os.Stat("/tmp"); err == nil && fi.IsDir() && os.TempDir() != "/tmp" {
		out = append(out, "/tmp")
	}
	return out
}

// namedPid is the maker's pid in a name MkdirTemp made ("...p<pid>-<n>"),
// or 0.
func namedPid(name string) int {
	i := strings.LastIndexByte(name, '-')
	if i < 0 || strings.Trim(name[i+1:], "0123456789") != "" {
		return 0
	}
	j := strings.LastIndexByte(name[:i], 'p')
	if j < 0 {
		return 0
	}
	pid, err := strconv.Atoi(name[j+1 : i])
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// ownerGone reads dir's owner file. A folder without one (its maker was
// killed before writing it) goes only when the pid in its name is free: a
// live holder of that pid may be writing the file right now. A folder
// that names no maker is not ours to judge.
func ownerGone(dir string) bool {
	b, _ := os.ReadFile(filepath.Join(dir, OwnerFile))
	f := strings.Fields(string(b))
	if len(f) == 0 {
		pid := namedPid(filepath.Base(dir))
		return pid > 0 && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return false
	}
	if pid == os.Getpid() {
		return false
	}
	if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
		return true
	}
	// The pid lives: ours only if it is the same process (same start time).
	if len(f) > 1 && f[1] != "" {
		if now := startTime(pid); now != "" && now != f[1] {
			return true
		}
	}
	return false
}
