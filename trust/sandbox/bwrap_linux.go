package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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
// become the host guard's, which runs bubblewrap, which runs wright's
// InitCommand, which hands the proxy's listener out to the guard and then
// executes the original command in cmd.Dir with cmd.Env. The sandbox dies with wright (parent-death signal on
// bubblewrap, --die-with-parent inside), and every process in it dies
// with the command (it is the sandbox's first process after bubblewrap's
// own init).
func (s *Spec) Wrap(cmd *exec.Cmd) error {
	bw := s.Bwrap
	if bw == "" {
		ok, why := BwrapAvailable()
		if !ok {
			return errors.New("sandbox: " + why)
		}
		bw = bwrapPath
	}
	if s.Wright == "" {
		return errors.New("sandbox: no wright binary to start the sandbox with")
	}
	args, err := s.args(cmd.Dir, os.Getuid() == 0)
	if err != nil {
		return err
	}
	init := []string{s.Wright, InitCommand}
	// The command's own descriptors are 3..pass; the guard hands the
	// proxy link to bubblewrap as pass+1 and keeps the lifeline, which
	// comes after them, to itself.
	pass := 2 + len(cmd.ExtraFiles)
	fd, err := attachLifeline(cmd)
	if err != nil {
		return err
	}
	if s.ProxySocket != "" {
		init = append(init, "--proxy-fd", strconv.Itoa(pass+1), "--listen", ProxyAddr)
	}
	init = append(init, "--exec", cmd.Path, "--")
	init = append(init, cmd.Args...)
	// bubblewrap under the host guard (hostguard_linux.go), which keeps
	// the descriptors' numbers.
	cmd.Path = s.Wright
	guard := []string{s.Wright, InitCommand, "--host-guard"}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	if env, added := helperEnv(env); added {
		cmd.Env = env
		guard = append(guard, "--drop-gogc")
	}
	guard = append(guard, "--pass-fds", strconv.Itoa(pass), "--lifeline-fd", strconv.Itoa(fd))
	if s.ProxySocket != "" {
		guard = append(guard, "--proxy-socket", s.ProxySocket)
	}
	guard = append(guard, "--exec", bw, "--", "bwrap")
	cmd.Args = append(append(guard, args...), init...)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// The guard ends on the lifeline, not on a parent-death signal: it
	// must outlive wright long enough to end the sandbox.
	cmd.SysProcAttr.Pdeathsig = 0
	return nil
}

// FirstHostPID is the process ID, as wright sees it, of the command a
// sandbox started by the process outer runs (FirstPID inside): signals
// meant for the command alone (SIGINT for a KeyboardInterrupt) go there,
// since bubblewrap does not pass them on.
func FirstHostPID(outer int) (int, error) {
	pid := outer
	// The host guard, bubblewrap, its init inside the namespace, the command.
	for range 3 {
		kids, err := children(pid)
		if err != nil {
			return 0, err
		}
		if len(kids) != 1 {
			return 0, fmt.Errorf("sandbox: process %d has %d children, not the one expected", pid, len(kids))
		}
		pid = kids[0]
	}
	return pid, nil
}

// children lists a process's children from /proc, of every thread: a
// child is listed under the thread that forked it, and the host guard is
// a Go program whose forks come from any of its threads.
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
