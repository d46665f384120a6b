// Package proctree finds, through /proc and without cgroups, the processes
// an environment started, so that closing it leaves none behind. Both
// environments tag what they start with a variable in its environment
// (kept across exec, setsid and double forks); the workspace shell also
// follows sessions and parent links for processes that cleared their
// environment.
package proctree

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Proc is one line of the process table.
type Proc struct {
	PID, PPID, PGID, SID int
	Zombie               bool
}

// List reads the process table. Processes that vanish while it reads are
// skipped.
func List() []Proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := Read(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// Read reads one process's /proc/<pid>/stat.
func Read(pid int) (Proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	// The command name is in parentheses and may itself hold spaces and
	// parentheses: the fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return Proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	sid, _ := strconv.Atoi(f[3])
	return Proc{PID: pid, PPID: ppid, PGID: pgid, SID: sid, Zombie: f[0] == "Z" || f[0] == "X"}, true
}

// Alive reports whether pid exists and is not a zombie.
func Alive(pid int) bool {
	p, ok := Read(pid)
	return ok && !p.Zombie
}

// HasTag reports whether the process was started with name=value in its
// environment.
func HasTag(pid int, name, value string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte(name + "=" + value + "\x00")
	return bytes.HasPrefix(b, want) || bytes.Contains(b, append([]byte{0}, want...))
}

// Tagged lists the live processes, other than this one, that carry
// name=value in their environment.
func Tagged(name, value string) []int {
	self := os.Getpid()
	var out []int
	for _, p := range List() {
		if p.PID != self && !p.Zombie && HasTag(p.PID, name, value) {
			out = append(out, p.PID)
		}
	}
	return out
}

// KillAll sends SIGKILL to every process find returns until it returns
// none, for about a second at most: a process may fork while we kill.
func KillAll(find func() []int) {
	for round := 0; round < 50; round++ {
		pids := find()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// NewTag is a random hex string of n bytes: a tag no other run shares.
func NewTag(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
