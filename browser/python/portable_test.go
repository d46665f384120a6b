package python

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestProcessesWithArgWithoutProc checks that the client finds a Chromium's
// processes by their --user-data-dir argument both from /proc and, as on
// macOS, from ps, and that the two agree.
func TestProcessesWithArgWithoutProc(t *testing.T) {
	dir := t.TempDir()
	if _, err := Install(dir); err != nil {
		t.Fatal(err)
	}
	marker := "--user-data-dir=" + filepath.Join(dir, "profile")
	start := func(arg string) int {
		cmd := exec.Command("python3", "-c", "import time; time.sleep(60)", arg)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd.Process.Pid
	}
	want := start(marker)
	start(marker + "-other") // a longer argument is not a match

	script := `
import json, os, sys
from playwright._impl import _transport as wb
marker = os.environ["MARKER"]
from_proc = sorted(wb._processes_with_arg(marker))
isdir = os.path.isdir
os.path.isdir = lambda p: False if p == "/proc/self" else isdir(p)
from_ps = sorted(wb._processes_with_arg(marker))
print(json.dumps([from_proc, from_ps]))
`
	cmd := exec.Command("python3", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MARKER="+marker)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var got [2][]int
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	for i, how := range []string{"/proc", "ps"} {
		if !slices.Equal(got[i], []int{want}) {
			t.Errorf("from %s: %v, want [%d]", how, got[i], want)
		}
	}
}
