package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The command's file is whole on disk, under its step name, while the
// command runs (a crash mid-command leaves it), and its log is there after.
func TestStepFilesOnDiskWhileRunning(t *testing.T) {
	dir := t.TempDir()
	s := newShell(t, Options{Dir: dir})
	ctx := context.Background()
	for step := 1; step <= 3; step++ {
		code := "cat steps/step_000" + string(rune('0'+step)) + ".sh; echo out-" + string(rune('0'+step))
		obs, err := s.Execute(ctx, step, code)
		if err != nil {
			t.Fatal(err)
		}
		out := obs.Output
		if !strings.HasPrefix(out, code+"\n") {
			t.Errorf("step %d: the command did not find itself on disk: %q", step, out)
		}
		log, err := os.ReadFile(filepath.Join(dir, "logs", "step_000"+string(rune('0'+step))+".log"))
		if err != nil || !strings.Contains(string(log), "out-"+string(rune('0'+step))) {
			t.Errorf("step %d log: %q %v", step, log, err)
		}
	}
	// A step run again under the same number replaces its files.
	if _, err := s.Execute(ctx, 2, "echo again"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "steps", "step_0002.sh")); string(b) != "echo again\n" {
		t.Errorf("step 2 again: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "logs", "step_0002.log")); string(b) != "again\n" {
		t.Errorf("step 2 log again: %q", b)
	}
}

// A command that removes the shell's directories, or the files made ahead
// for the next step, does not break the next step.
func TestStepFilesSurviveRemoval(t *testing.T) {
	dir := t.TempDir()
	s := newShell(t, Options{Dir: dir})
	ctx := context.Background()
	if _, err := s.Execute(ctx, 1, "rm -rf steps logs tmp"); err != nil {
		t.Fatal(err)
	}
	// Give the background preparation time to run, then take its files away.
	time.Sleep(100 * time.Millisecond)
	if _, err := s.Execute(ctx, 2, "rm -f steps/.wright-next.sh logs/.wright-next.log"); err != nil {
		t.Fatal(err)
	}
	obs, err := s.Execute(ctx, 3, "echo still")
	if out := obs.Output; err != nil || strings.TrimSpace(out) != "still" {
		t.Fatalf("step 3: %v %v", obs, err)
	}
	for _, f := range []string{"steps/step_0003.sh", "logs/step_0003.log", "tmp"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// Close removes the files made ahead; nothing of wright's own is left.
func TestCloseRemovesSpareFiles(t *testing.T) {
	dir := t.TempDir()
	s, err := New(context.Background(), Options{Dir: dir, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(context.Background(), 1, "true"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"steps/" + spareScript, "logs/" + spareLog} {
		if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s left behind: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "steps", "step_0001.sh")); err != nil {
		t.Error(err)
	}
}
