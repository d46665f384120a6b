package proctab

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"
)

// startSleeper starts a real child in a session of its own, in dir, with
// entry in its environment, and ends it when the test ends.
func startSleeper(t *testing.T, dir, entry string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), entry)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sleep: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

func TestListStatAndEnv(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the complete process table is a Linux feature; see Limits")
	}
	if Limits() != "" {
		t.Fatalf("Limits on Linux = %q, want none", Limits())
	}
	dir := t.TempDir()
	entry := "WRIGHT_PROCTAB_TEST=" + filepath.Base(dir)
	cmd := startSleeper(t, dir, entry)
	pid := cmd.Process.Pid

	procs, err := List()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(procs, func(p Proc) bool { return p.PID == pid })
	if i < 0 {
		t.Fatalf("child %d not in the process table", pid)
	}
	want := Proc{PID: pid, PPID: os.Getpid(), PGID: pid, SID: pid}
	if procs[i] != want {
		t.Fatalf("entry %+v, want %+v", procs[i], want)
	}
	if !HasEnv(pid, entry) || HasEnv(pid, entry[:len(entry)-1]) || HasEnv(pid, "WRIGHT_PROCTAB_TEST=") {
		t.Fatalf("HasEnv does not match the entry exactly")
	}
	if got := WithEnv(entry, os.Getpid()); !slices.Equal(got, []int{pid}) {
		t.Fatalf("WithEnv = %v, want [%d]", got, pid)
	}
	real, _ := filepath.EvalSymlinks(dir)
	if cwd, err := Cwd(pid); err != nil || cwd != real {
		t.Fatalf("Cwd = %q, %v; want %q", cwd, err, real)
	}
}

func TestZombieAndGone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux process table")
	}
	cmd := startSleeper(t, t.TempDir(), "WRIGHT_PROCTAB_TEST=z")
	pid := cmd.Process.Pid
	if !Alive(pid) {
		t.Fatalf("running child %d not alive", pid)
	}
	// Killed but not yet waited for: a zombie, not alive.
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		p, ok := Stat(pid)
		if ok && p.Zombie {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d never became a zombie: %+v %v", pid, p, ok)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if Alive(pid) || len(WithEnv("WRIGHT_PROCTAB_TEST=z", os.Getpid())) != 0 {
		t.Fatal("a zombie counts as alive")
	}
	_ = cmd.Wait()
	if _, ok := Stat(pid); ok {
		t.Fatalf("reaped child %d still in the table", pid)
	}
}

func TestHasEntry(t *testing.T) {
	block := []byte("A=1\x00WRIGHT=x\x00B=22\x00")
	for entry, want := range map[string]bool{"A=1": true, "WRIGHT=x": true, "B=22": true, "B=2": false, "RIGHT=x": false, "A=": false} {
		if got := hasEntry(block, entry); got != want {
			t.Errorf("hasEntry(%q) = %v, want %v", entry, got, want)
		}
	}
}
