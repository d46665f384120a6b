package workspace

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The shell's processes are found through /proc, without cgroups: every
// process the shell starts inherits tagVar in its environment (kept across
// exec, setsid and double forks); for processes that cleared their
// environment, the sessions of the shells we started and the parent links
// are followed as well. A session id cannot be reused while the session has
// members (Linux keeps the number allocated), so a member of a session whose
// bash has died is still ours; a session whose number now belongs to a
// live process again is skipped.

const tagVar = "WRIGHT_SHELL_ID"

type procInfo struct {
	pid, ppid, pgid, sid int
	zombie               bool
}

// listProcs reads the process table. Processes that vanish while it reads
// are skipped.
func listProcs() []procInfo {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []procInfo
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := readStat(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

func readStat(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	// The command name is in parentheses and may itself hold spaces and
	// parentheses: the fields start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 4 {
		return procInfo{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	sid, _ := strconv.Atoi(f[3])
	return procInfo{pid: pid, ppid: ppid, pgid: pgid, sid: sid, zombie: f[0] == "Z" || f[0] == "X"}, true
}

// hasTag reports whether the process was started with tagVar=tag.
func hasTag(pid int, tag string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte(tagVar + "=" + tag + "\x00")
	return bytes.HasPrefix(b, want) || bytes.Contains(b, append([]byte{0}, want...))
}

// shellProcs returns the live processes that belong to this shell: tagged
// ones, members of the sessions of the shells in sessions (the live one
// and those that died), and descendants of any of them.
func shellProcs(tag string, sessions []int) []int {
	procs := listProcs()
	self := os.Getpid()
	alive := map[int]bool{}
	for _, p := range procs {
		if !p.zombie {
			alive[p.pid] = true
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
		children[p.ppid] = append(children[p.ppid], p.pid)
		if p.pid == self || p.pid == 1 || p.zombie {
			continue
		}
		if ours[p.sid] || hasTag(p.pid, tag) {
			mine[p.pid] = true
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
		if p.zombie {
			zombies[p.pid] = true
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
func pidAlive(pid int) bool {
	p, ok := readStat(pid)
	return ok && !p.zombie
}
