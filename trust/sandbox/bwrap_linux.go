package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	bwrapOnce sync.Once
	bwrapPath string
	bwrapWhy  string
)

// BwrapAvailable reports whether bubblewrap can make the sandbox Wrap
// asks for here, and if not, why. It tries once: containers and hardened
// kernels refuse user or network namespaces, and only a real start tells.
func BwrapAvailable() (bool, string) {
	bwrapOnce.Do(probeBwrap)
	return bwrapPath != "", bwrapWhy
}

func probeBwrap() {
	if os.Getenv("WRIGHT_NO_BWRAP") == "1" {
		bwrapWhy = "turned off by WRIGHT_NO_BWRAP=1"
		return
	}
	path, err := exec.LookPath("bwrap")
	if err != nil {
		bwrapWhy = "bubblewrap is not installed (no bwrap on PATH)"
		return
	}
	if _, _, err := guardTools(); err != nil {
		bwrapWhy = strings.TrimPrefix(err.Error(), "sandbox: ")
		return
	}
	truth, err := exec.LookPath("true")
	if err != nil {
		bwrapWhy = "no `true` binary to probe with"
		return
	}
	s := &Spec{Bwrap: path}
	args, err := s.args("", os.Getuid() == 0)
	if err != nil {
		bwrapWhy = err.Error()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, append(args, truth)...).CombinedOutput()
	if err != nil {
		bwrapWhy = fmt.Sprintf("bwrap cannot make a sandbox here (%v: %s): user namespaces may be turned off", err, strings.TrimSpace(string(out)))
		return
	}
	bwrapPath = path
}

// Wrap makes cmd run inside the sandbox spec describes: its Path and Args
// become the host guard's (guard_linux.go), which runs bubblewrap, which
// runs wright's InitCommand, which hands the proxy's listener out to wright
// and then executes the original command in cmd.Dir with cmd.Env. The
// sandbox dies with wright (the lifeline, and --die-with-parent inside),
// and every process in it dies with the command (it is the sandbox's first
// process after bubblewrap's own init).
//
// started must be called once cmd.Start has returned, whatever it
// returned: it lets go of wright's copy of what the child inherited and,
// with a proxy, starts carrying the sandbox's connections to it.
func (s *Spec) Wrap(cmd *exec.Cmd) (started func(), err error) {
	bw := s.Bwrap
	if bw == "" {
		ok, why := BwrapAvailable()
		if !ok {
			return nil, errors.New("sandbox: " + why)
		}
		bw = bwrapPath
	}
	if s.Wright == "" {
		return nil, errors.New("sandbox: no wright binary to start the sandbox with")
	}
	bash, setpriv, err := guardTools()
	if err != nil {
		return nil, err
	}
	args, err := s.args(cmd.Dir, os.Getuid() == 0)
	if err != nil {
		return nil, err
	}
	init := []string{s.Wright, InitCommand}
	started = func() {}
	if s.ProxySocket != "" {
		link, err := newProxyLink(s.ProxySocket)
		if err != nil {
			return nil, err
		}
		cmd.ExtraFiles = append(cmd.ExtraFiles, link.theirs)
		init = append(init, "--proxy-fd", strconv.Itoa(2+len(cmd.ExtraFiles)), "--listen", ProxyAddr)
		started = link.started
	}
	// The lifeline comes last: the guard keeps it from bubblewrap, which
	// gets the descriptors before it with their numbers.
	fd, err := attachLifeline(cmd)
	if err != nil {
		started()
		return nil, err
	}
	init = append(init, "--exec", cmd.Path, "--")
	init = append(init, cmd.Args...)
	cmd.Path = bash
	guard := []string{"wright-sandbox-guard", "-c", guardScript, "wright-sandbox-guard", strconv.Itoa(fd),
		setpriv, "--pdeathsig", "KILL", "--", bw}
	cmd.Args = append(append(guard, args...), init...)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// The guard ends on the lifeline, not on a parent-death signal: it
	// must outlive wright long enough to end the sandbox. It leads a
	// process group of its own (a session leader already does), so that
	// the group it kills is the sandbox's alone.
	cmd.SysProcAttr.Pdeathsig = 0
	if !cmd.SysProcAttr.Setsid {
		cmd.SysProcAttr.Setpgid, cmd.SysProcAttr.Pgid = true, 0
	}
	return started, nil
}

// FirstHostPID is the process ID, as wright sees it, of the command a
// sandbox started by the process outer runs (FirstPID inside): signals
// meant for the command alone (SIGINT for a KeyboardInterrupt) go there,
// since bubblewrap does not pass them on.
func FirstHostPID(outer int) (int, error) {
	pid := outer
	// The host guard, bubblewrap, its init inside the namespace, the
	// command. The guard's other child is its watcher, a bash.
	for level := range 3 {
		kids, err := children(pid)
		if err != nil {
			return 0, err
		}
		if level == 0 {
			kids = slices.DeleteFunc(kids, func(k int) bool {
				comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", k))
				return strings.TrimSpace(string(comm)) != "bwrap"
			})
		}
		if len(kids) != 1 {
			return 0, fmt.Errorf("sandbox: process %d has %d children, not the one expected", pid, len(kids))
		}
		pid = kids[0]
	}
	return pid, nil
}

// children lists a process's children from /proc, of every thread: a
// child is listed under the thread that forked it.
func children(pid int) ([]int, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			var n int
			if _, err := fmt.Sscan(f, &n); err == nil {
				out = append(out, n)
			}
		}
	}
	return out, nil
}
