//go:build linux || darwin

package proctab

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// A tagged child is found by its tag, and KillAll leaves it dead.
func TestKillAllTagged(t *testing.T) {
	tag := NewTag(8)
	cmd := exec.Command("sleep", "300")
	cmd.Env = append(os.Environ(), "PROCTAB_KILL_TEST="+tag)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	pid := cmd.Process.Pid
	find := func() []int { return WithEnv("PROCTAB_KILL_TEST="+tag, os.Getpid()) }
	if got := find(); !slices.Equal(got, []int{pid}) {
		t.Errorf("WithEnv = %v, want [%d]", got, pid)
	}
	if NewTag(8) == tag {
		t.Error("two tags are the same")
	}
	KillAll(find)
	<-done
	if Alive(pid) {
		t.Errorf("%d still alive", pid)
	}
}
