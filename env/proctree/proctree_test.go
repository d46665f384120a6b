package proctree

import (
	"os"
	"os/exec"
	"slices"
	"testing"
)

// A tagged child is found by its tag, by its parent link and as alive, and
// KillAll leaves it dead.
func TestTaggedAndKillAll(t *testing.T) {
	tag := NewTag(8)
	cmd := exec.Command("sleep", "300")
	cmd.Env = append(os.Environ(), "PROCTREE_TEST="+tag)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	pid := cmd.Process.Pid
	if got := Tagged("PROCTREE_TEST", tag); !slices.Equal(got, []int{pid}) {
		t.Errorf("Tagged = %v, want [%d]", got, pid)
	}
	if p, ok := Read(pid); !ok || p.PPID != os.Getpid() || !Alive(pid) {
		t.Errorf("Read(%d) = %+v, %v", pid, p, ok)
	}
	if len(Tagged("PROCTREE_TEST", NewTag(8))) != 0 {
		t.Error("another tag matched")
	}
	KillAll(func() []int { return Tagged("PROCTREE_TEST", tag) })
	<-done
	if Alive(pid) {
		t.Errorf("%d still alive", pid)
	}
}
