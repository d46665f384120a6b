package sandbox

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// Confine sets attr so that the process it starts is the init of a PID
// namespace of its own (when the machine allows one) and is SIGKILLed when
// wright dies. When a namespace's init ends, the kernel kills every other
// process in it: nothing the model starts can outlive its shell, whatever
// it does to its session, process group or environment. It reports whether
// the process gets its own namespace; without one only the parent-death
// signal applies.
func Confine(attr *syscall.SysProcAttr) bool {
	attr.Pdeathsig = syscall.SIGKILL
	mode := pidNamespaceMode()
	if mode == nsNone {
		return false
	}
	attr.Cloneflags |= syscall.CLONE_NEWPID
	if mode == nsUser {
		addUserNamespace(attr)
	}
	return true
}

// PIDNamespaces reports whether Confine can give a process its own PID
// namespace here, and if not, why.
func PIDNamespaces() (bool, string) {
	pidOnce.Do(probe)
	return pidMode != nsNone, pidWhy
}

type nsMode int

const (
	nsNone  nsMode = iota
	nsPlain        // privileged: CLONE_NEWPID alone
	nsUser         // unprivileged: a user namespace mapping us to ourselves
)

var (
	pidOnce sync.Once
	pidMode nsMode
	pidWhy  string
)

func pidNamespaceMode() nsMode {
	pidOnce.Do(probe)
	return pidMode
}

// probe starts /bin/true both ways once: containers and hardened kernels
// refuse one or both, and the only reliable test is to try.
func probe() {
	if os.Getenv("WRIGHT_NO_PIDNS") == "1" {
		pidWhy = "turned off by WRIGHT_NO_PIDNS=1"
		return
	}
	truth, err := exec.LookPath("true")
	if err != nil {
		pidWhy = "no `true` binary to probe with"
		return
	}
	try := func(m nsMode) error {
		attr := &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWPID}
		if m == nsUser {
			addUserNamespace(attr)
		}
		cmd := exec.Command(truth)
		cmd.SysProcAttr = attr
		return cmd.Run()
	}
	var errs []string
	for _, m := range []nsMode{nsPlain, nsUser} {
		err := try(m)
		if err == nil {
			pidMode = m
			return
		}
		errs = append(errs, err.Error())
	}
	pidWhy = "the kernel refuses new PID namespaces (" + errs[len(errs)-1] + ")"
}

// addUserNamespace maps this process's user and group to themselves in a
// new user namespace, which lets an unprivileged process make the PID one.
func addUserNamespace(attr *syscall.SysProcAttr) {
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
}
