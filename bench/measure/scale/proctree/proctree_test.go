package proctree

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMeasureRealTree starts a shell that starts two children (one of them
// holding 64 MiB it has written to), and checks the tree is found whole,
// parent links and kinds right, and the written memory counted.
func TestMeasureRealTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc (Linux only)")
	}
	if _, err := os.Stat("/proc/self/smaps_rollup"); err != nil {
		t.Skip("this kernel has no smaps_rollup")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3 for a process that holds memory")
	}
	hold := `import sys, time; b = bytearray(64 << 20); b[::4096] = b"x" * len(b[::4096]); print("ready", flush=True); time.sleep(60)`
	cmd := exec.Command("/bin/sh", "-c", `"$0" -c "$1" & sleep 60 & wait`, py, hold)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s, _ := Measure(cmd.Process.Pid)
		for _, p := range s.Procs {
			_ = killPID(p.PID)
		}
		_ = cmd.Wait()
	})
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || !strings.HasPrefix(string(buf), "ready") {
		t.Fatalf("the child did not start: %q %v", buf, err)
	}
	var s Sample
	for i := 0; i < 100; i++ { // sleep may not have been forked yet
		if s, err = Measure(cmd.Process.Pid); err != nil {
			t.Fatal(err)
		}
		if len(s.Procs) == 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	kinds := map[string]Proc{}
	for _, p := range s.Procs {
		kinds[p.Kind] = p
	}
	if len(s.Procs) != 3 || kinds["sh"].PID != cmd.Process.Pid || kinds["python3"].PPID != cmd.Process.Pid || kinds["sleep"].PPID != cmd.Process.Pid {
		t.Fatalf("tree: %+v", s.Procs)
	}
	if kb := kinds["python3"].PSSKiB; kb < 60<<10 {
		t.Errorf("python3 holds %d KiB, want at least 60 MiB", kb)
	}
	var sum int64
	for _, k := range s.ByKind() {
		sum += k.PSSKiB
	}
	if sum != s.TotalKiB || s.ByKind()[0].Kind != "python3" {
		t.Errorf("by kind %+v, total %d", s.ByKind(), s.TotalKiB)
	}

	// The watcher's peak is a whole sample of the same tree.
	ctx, cancel := context.WithCancel(context.Background())
	w := Watch(ctx, cmd.Process.Pid, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond)
	cancel()
	peak, n := w.Wait()
	if n == 0 || peak.TotalKiB < 60<<10 || len(peak.Procs) != 3 {
		t.Errorf("peak of %d samples: %+v", n, peak)
	}
}

func killPID(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// TestWrightRoles names a wright process by what it does, so the sandbox's
// helpers are counted apart from the bench itself.
func TestWrightRoles(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"wright", "bench", "suite.yaml", "--parallel", "16"}, "bench"},
		{[]string{"wright", "sandbox-init", "--lifeline-fd", "5", "--host-guard", "--exec", "/usr/bin/bwrap", "--", "bwrap"}, "sandbox-init:host-guard"},
		{[]string{"wright", "sandbox-init", "--watch-pid", "2", "--serve-fd", "--proxy-socket", "/s"}, "sandbox-init:forwarder"},
		{[]string{"wright", "sandbox-init", "--watch-pid", "2", "--watch-fd", "3"}, "sandbox-init:watcher"},
		{[]string{"wright", "--help"}, ""},
		{[]string{"wright"}, ""},
	} {
		if got := wrightRole(c.args); got != c.want {
			t.Errorf("wrightRole(%q) = %q, want %q", c.args, got, c.want)
		}
	}
}
