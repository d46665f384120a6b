package proctab

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Limits says what macOS's process table does not tell wright.
func Limits() string {
	return "no /proc on macOS: processes are found through sysctl; the environment tag is readable only " +
		"for processes of the same user, and a process's working directory is not read (a step that " +
		"timed out reports the directory of its last completed command)"
}

// szomb is the state of an ended, unreaped process (sys/proc.h).
const szomb = 5

// List reads the process table through sysctl kern.proc.all.
func List() ([]Proc, error) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("read process table: %w", err)
	}
	out := make([]Proc, 0, len(kps))
	for i := range kps {
		out = append(out, fromKinfo(&kps[i]))
	}
	return out, nil
}

// Stat reads one process's entry; false if it does not exist.
func Stat(pid int) (Proc, bool) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp == nil || int(kp.Proc.P_pid) != pid {
		return Proc{}, false
	}
	return fromKinfo(kp), true
}

func fromKinfo(kp *unix.KinfoProc) Proc {
	p := Proc{
		PID:    int(kp.Proc.P_pid),
		PPID:   int(kp.Eproc.Ppid),
		PGID:   int(kp.Eproc.Pgid),
		Zombie: kp.Proc.P_stat == szomb,
	}
	// The session is a kernel pointer in kinfo_proc; getsid gives its id.
	if sid, err := unix.Getsid(p.PID); err == nil {
		p.SID = sid
	}
	return p
}

// HasEnv reports whether the process was started with entry
// ("NAME=value") in its environment, read through kern.procargs2 (argc,
// the executable path, the arguments, then the environment, all
// NUL-terminated). False when it cannot be read.
func HasEnv(pid int, entry string) bool {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil || len(b) < 4 {
		return false
	}
	return hasEntry(b[4:], entry)
}

// Cwd is not available without libproc; callers fall back to what they
// knew.
func Cwd(pid int) (string, error) {
	return "", errors.New("the working directory of another process is not readable on macOS")
}
