package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Ctrl-C in the middle of the tour's first rerun, sent to the tour's
// process group as a terminal sends it: the rerun ends interrupted, the
// tour stops there with exit 130 and its table so far, the script saved in
// step 1 is kept, and no process of the tour (the reruns, their Chromium,
// the shop) is left.
func TestTourCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo's agent and a rerun in Chromium")
	}
	t.Parallel()
	work := t.TempDir()
	out := filepath.Join(work, "tour")
	tag := fmt.Sprintf("WRIGHT_TOURTEST_TAG=%d-%d", os.Getpid(), time.Now().UnixNano())
	cmd := exec.Command(wrightBin, "demo", "scripts", "-o", out, "--addr", "127.0.0.1:0")
	cmd.Dir = work
	cmd.Env = append(os.Environ(), tag, "XDG_DATA_HOME="+filepath.Join(work, "data"))
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	reruns := filepath.Join(out, "library", "demo-book", "reruns")
	deadline := time.After(2 * time.Minute)
	for {
		if m, _ := filepath.Glob(filepath.Join(reruns, "*", "workspace", "final_runs", "run_1")); len(m) > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the tour ended before its first rerun started: %v\n%s", err, stderr.String())
		case <-deadline:
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("no rerun started in 2 minutes:\n%s", stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("the tour did not end within a minute of Ctrl-C:\n%s", stderr.String())
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Errorf("the tour ended with %v, want exit 130:\n%s", err, stderr.String())
	}
	text := stderr.String()
	if !strings.Contains(text, "wright: the tour") || !strings.Contains(text, "exit 0, as expected") {
		t.Errorf("the tour printed no table of the steps it ran:\n%s", text)
	}
	if !strings.Contains(text, "exit 130, interrupted") || !strings.Contains(text, "demo-book interrupted; the rerun folder is kept") {
		t.Errorf("the rerun Ctrl-C stopped is not shown as interrupted:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(out, "library", "demo-book", "v1")); err != nil {
		t.Errorf("the script saved before Ctrl-C is gone: %v", err)
	}
	left := marked(tag, out)
	for wait := time.Now().Add(10 * time.Second); len(left) > 0 && time.Now().Before(wait); left = marked(tag, out) {
		time.Sleep(100 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("%d processes outlived the tour:\n%s", len(left), strings.Join(left, "\n"))
	}
}

// The tour empties its folder before it starts, so it refuses a folder
// that holds anything no earlier tour made, and deletes nothing of it;
// a non-loopback --addr is refused before anything is touched.
func TestTourRefusesAForeignFolder(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	keep := filepath.Join(work, "mine", "notes.txt")
	os.MkdirAll(filepath.Dir(keep), 0o755)
	os.WriteFile(keep, []byte("mine"), 0o644)
	for _, args := range [][]string{
		{"demo", "scripts", "-o", filepath.Join(work, "mine")},
		{"demo", "scripts", "-o", filepath.Join(work, "mine"), "--addr", "0.0.0.0:8377"},
	} {
		r := wright(t, args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (a usage error)\n%s", args, r.code, r.stderr.String())
		}
		if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
			t.Fatalf("%v touched a file the tour did not make: %v", args, err)
		}
	}
}
