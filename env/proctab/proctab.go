// Package proctab reads the process table: which processes exist, their
// parent, group and session, whether one carries a given environment
// entry, and where it stands. wright uses it to find and end every process
// a shell or a Python runner left behind, including those that left the
// process group.
//
// Linux reads /proc. macOS has no /proc: the table comes from sysctl
// (kern.proc.all, kern.procargs2), which can read the environment only of
// processes of the same user and cannot tell a process's working
// directory. Limits says, for the platform wright runs on, what is not
// available, so that `wright doctor` and a run's notes can say so.
package proctab

import "bytes"

// Proc is one entry of the process table.
type Proc struct {
	PID, PPID, PGID, SID int
	// Zombie: the process has ended and waits to be reaped.
	Zombie bool
}

// hasEntry reports whether a NUL-separated block of strings (an
// environment as the kernel hands it out) holds entry exactly.
func hasEntry(block []byte, entry string) bool {
	want := []byte(entry + "\x00")
	return bytes.HasPrefix(block, want) || bytes.Contains(block, append([]byte{0}, want...))
}

// Alive reports whether pid exists and has not ended.
func Alive(pid int) bool {
	p, ok := Stat(pid)
	return ok && !p.Zombie
}

// WithEnv lists the processes, other than this one and zombies, whose
// environment holds entry ("NAME=value").
func WithEnv(entry string, self int) []int {
	procs, err := List()
	if err != nil {
		return nil
	}
	var out []int
	for _, p := range procs {
		if p.PID != self && !p.Zombie && HasEnv(p.PID, entry) {
			out = append(out, p.PID)
		}
	}
	return out
}
