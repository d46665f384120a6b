package proctab

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Limits is empty on Linux: /proc tells everything wright asks.
func Limits() string { return "" }

// List reads the process table. Processes that vanish while it reads are
// skipped.
func List() ([]Proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("read process table: %w", err)
	}
	out := make([]Proc, 0, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := Stat(pid); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// Stat reads one process's entry; false if it does not exist.
func Stat(pid int) (Proc, bool) {
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

// HasEnv reports whether the process was started with entry
// ("NAME=value") in its environment. False when it cannot be read.
func HasEnv(pid int, entry string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && hasEntry(b, entry)
}

// Cwd returns the process's working directory.
func Cwd(pid int) (string, error) {
	return os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
}
