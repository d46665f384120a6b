// Package proctree measures what a process and everything it started cost
// in memory: the proportional set size (PSS) of the whole tree, from
// /proc/<pid>/smaps_rollup, where pages shared between the tree's processes
// (Chromium's renderers share most of their code with the browser) are
// counted once, in shares, and not once per process as the resident size
// would count them. Linux only.
package proctree

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Proc is one process of a tree at one sample.
type Proc struct {
	PID    int
	PPID   int
	Kind   string // what it is: "chromium:renderer", "python3", "wright", ...
	PSSKiB int64
}

// Sample is the tree at one moment.
type Sample struct {
	Procs    []Proc
	TotalKiB int64
}

// ByKind sums the sample's PSS and counts its processes per kind, largest
// first.
func (s Sample) ByKind() []KindTotal {
	m := map[string]*KindTotal{}
	for _, p := range s.Procs {
		k := m[p.Kind]
		if k == nil {
			k = &KindTotal{Kind: p.Kind}
			m[p.Kind] = k
		}
		k.Count++
		k.PSSKiB += p.PSSKiB
	}
	out := make([]KindTotal, 0, len(m))
	for _, k := range m {
		out = append(out, *k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].PSSKiB != out[j].PSSKiB {
			return out[i].PSSKiB > out[j].PSSKiB
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}

// KindTotal is what the processes of one kind hold together.
type KindTotal struct {
	Kind   string
	Count  int
	PSSKiB int64
}

// Measure samples the tree rooted at root: root and all its descendants
// alive now, each with its PSS. Processes that end while they are read are
// left out. An error means root itself could not be read.
func Measure(root int) (Sample, error) {
	parents, err := parentsOf()
	if err != nil {
		return Sample{}, err
	}
	pids := descendants(root, parents)
	var s Sample
	for _, pid := range pids {
		pss, err := readPSS(pid)
		if err != nil {
			if pid == root {
				return Sample{}, err
			}
			continue // it ended between the scan and the read
		}
		s.Procs = append(s.Procs, Proc{PID: pid, PPID: parents[pid], Kind: kindOf(pid), PSSKiB: pss})
		s.TotalKiB += pss
	}
	return s, nil
}

// parentsOf maps every process id on the machine to its parent's.
func parentsOf() (map[int]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("read /proc: %w", err)
	}
	parents := make(map[int]int, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: the fields
		// after it start past its last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(f[1]); err == nil {
			parents[pid] = ppid
		}
	}
	return parents, nil
}

// descendants lists root and every process below it.
func descendants(root int, parents map[int]int) []int {
	children := map[int][]int{}
	for pid, ppid := range parents {
		children[ppid] = append(children[ppid], pid)
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// readPSS is the Pss line of /proc/pid/smaps_rollup, in KiB.
func readPSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Pss:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				break
			}
			return strconv.ParseInt(f[0], 10, 64)
		}
	}
	// A zombie, or a kernel thread: no mappings, nothing held.
	return 0, nil
}

// kindOf names what a process is: its program's name, for a Chromium
// helper the --type it was started with (renderer, gpu-process, zygote,
// utility with its sub-type's last part, e.g. "utility:NetworkService"),
// and for wright its role (wrightRole, e.g. "wright:bench").
func kindOf(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	if len(args) == 1 && strings.Contains(args[0], " --") {
		// Chromium's helpers rewrite their command line as one string.
		args = strings.Fields(args[0])
	}
	name := ""
	if len(args) > 0 && args[0] != "" {
		name = filepath.Base(args[0])
	}
	if name == "" {
		c, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		name = strings.TrimSpace(string(c))
	}
	if name == "" {
		// Its memory was read, then it ended before its name was.
		return "(ended)"
	}
	typ, sub := "", ""
	for _, a := range args[1:] {
		if v, ok := strings.CutPrefix(a, "--type="); ok {
			typ = v
		}
		if v, ok := strings.CutPrefix(a, "--utility-sub-type="); ok {
			sub = v[strings.LastIndexByte(v, '.')+1:]
		}
	}
	switch {
	case typ != "" && sub != "":
		return name + ":" + typ + ":" + sub
	case typ != "":
		return name + ":" + typ
	case strings.HasPrefix(name, "python"):
		return "python3"
	case strings.HasPrefix(name, "wright"):
		if role := wrightRole(args); role != "" {
			return name + ":" + role
		}
	}
	return name
}

// wrightRole is what a wright process does, from its arguments: the
// subcommand (bench, driver, ...), and for the sandbox's helpers which one
// (the host guard outside, the forwarder or the watcher inside), since
// each costs a Go runtime of its own and they are counted apart.
func wrightRole(args []string) string {
	if len(args) < 2 || strings.HasPrefix(args[1], "-") {
		return ""
	}
	if args[1] != "sandbox-init" {
		return args[1]
	}
	for _, a := range args[2:] {
		switch a {
		case "--host-guard":
			return "sandbox-init:host-guard"
		case "--serve-fd":
			return "sandbox-init:forwarder"
		case "--watch-fd":
			return "sandbox-init:watcher"
		}
	}
	return "sandbox-init"
}
