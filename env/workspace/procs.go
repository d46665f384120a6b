package workspace

import (
	"os"
	"syscall"
	"time"

	"wright/env/proctab"
)

// The shell's processes are found in the process table (package proctab:
// /proc on Linux, sysctl on macOS), without cgroups: every
// process the shell starts inherits tagVar in its environment (kept across
// exec, setsid and double forks); for processes that cleared their
// environment, the sessions of the shells we started and the parent links
// are followed as well. A session id cannot be reused while the session has
// members (Linux keeps the number allocated), so a member of a session whose
// bash has died is still ours; a session whose number now belongs to a
// live process again is skipped.

const tagVar = "WRIGHT_SHELL_ID"

// shellProcs returns the live processes that belong to this shell: tagged
// ones, members of the sessions of the shells in sessions (the live one
// and those that died), and descendants of any of them.
func shellProcs(tag string, sessions []int) []int {
	procs, _ := proctab.List()
	self := os.Getpid()
	alive := map[int]bool{}
	for _, p := range procs {
		if !p.Zombie {
			alive[p.PID] = true
		}
	}
	ours := map[int]bool{}
	for i, sid := range sessions {
		// The last one is the live shell; an earlier one counts only
		// while its number is not in use by another process.
		if i == len(sessions)-1 || !alive[sid] {
			ours[sid] = true
		}
	}
	children := map[int][]int{}
	mine := map[int]bool{}
	for _, p := range procs {
		children[p.PPID] = append(children[p.PPID], p.PID)
		if p.PID == self || p.PID == 1 || p.Zombie {
			continue
		}
		if ours[p.SID] || proctab.HasEnv(p.PID, tagVar+"="+tag) {
			mine[p.PID] = true
		}
	}
	// Descendants of what we found (a child that cleared its environment).
	queue := make([]int, 0, len(mine))
	for pid := range mine {
		queue = append(queue, pid)
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if c != self && !mine[c] {
				mine[c] = true
				queue = append(queue, c)
			}
		}
	}
	zombies := map[int]bool{}
	for _, p := range procs {
		if p.Zombie {
			zombies[p.PID] = true
		}
	}
	out := make([]int, 0, len(mine))
	for pid := range mine {
		if !zombies[pid] {
			out = append(out, pid)
		}
	}
	return out
}

// killShellProcs sends SIGKILL to every process of the shell until none is
// left, for at most about a second: a process may fork while we kill.
func killShellProcs(tag string, sessions []int) {
	for round := 0; round < 50; round++ {
		pids := shellProcs(tag, sessions)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pidAlive reports whether pid exists and is not a zombie.
func pidAlive(pid int) bool { return proctab.Alive(pid) }
