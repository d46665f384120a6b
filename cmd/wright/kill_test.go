package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/model"
	"wright/model/modeltest"
)

// marked lists the live processes that belong to one wright start: their
// command line names its temp or output folder, or their environment holds
// its tag (Chromium's profile, the guard, bubblewrap's binds, the shell's
// rc file all name one of the folders).
func marked(tag string, paths ...string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i < 0 || bytes.HasPrefix(stat[i+1:], []byte(" Z")) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		hit := bytes.Contains(environ, []byte(tag))
		for _, p := range paths {
			hit = hit || bytes.Contains(cmdline, []byte(p)) || bytes.Contains(environ, []byte("TMPDIR="+p))
		}
		if hit {
			out = append(out, fmt.Sprintf("%d %.120s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
		}
	}
	return out
}

// wrightFolders lists the wright-* folders in dir.
func wrightFolders(dir string) []string {
	var out []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.IsDir() && strings.HasPrefix(e.Name(), "wright-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// SIGKILL in the first second of `wright run --mode browser`, `wright run`
// (workspace, sandboxed where bubblewrap works) and `wright bench` leaves no
// process behind, and the next run sweeps the temp folders the dead ones
// left (and only those).
func TestEarlySIGKILLLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts several browsers")
	}
	site := benchSite(t)
	work := t.TempDir()
	srv := modeltest.New(t, modeltest.Bash("wait", "sleep 30").Forever())
	pysrv := modeltest.New(t, modeltest.Python("wait", "import time\ntime.sleep(30)").Forever())
	tasks := []benchTask{
		{id: "b1", mode: "browser", replies: []map[string]any{pyStep("import time\ntime.sleep(30)")}},
		{id: "b2", mode: "workspace", replies: []map[string]any{bashStep("sleep 30")}},
	}
	suitePath := writeSuite(t, work, site, tasks)
	type start struct {
		name string
		args func(out string) []string
	}
	starts := []start{
		{"run browser", func(out string) []string {
			return []string{"run", "--mode", "browser", "-t", "wait", "--start-url", site, "--run-dir", out,
				"--base-url", pysrv.URL + "/v1", "--model", "scripted", "-c", "agent.require_self_reflection_success=false"}
		}},
		{"run workspace", func(out string) []string {
			return []string{"run", "-t", "wait", "--run-dir", out,
				"--base-url", srv.URL + "/v1", "--model", "scripted", "-c", "agent.require_self_reflection_success=false"}
		}},
		{"bench", func(out string) []string {
			return []string{"bench", suitePath, "-o", out, "--parallel", "2", "-c", "agent.require_self_reflection_success=false"}
		}},
	}
	delays := []time.Duration{400 * time.Millisecond, 1000 * time.Millisecond}
	for _, s := range starts {
		for _, d := range delays {
			tmp, err := os.MkdirTemp("/tmp", "wk")
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(tmp)
			out := filepath.Join(work, fmt.Sprintf("%s-%d", strings.ReplaceAll(s.name, " ", "-"), d.Milliseconds()))
			tag := fmt.Sprintf("WRIGHT_KILLTEST_TAG=%d-%d", os.Getpid(), time.Now().UnixNano())
			cmd := exec.Command(wrightBin, s.args(out)...)
			cmd.Dir = work
			cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+testKey, "TMPDIR="+tmp, tag)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(d)
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()
			deadline := time.Now().Add(10 * time.Second)
			left := marked(tag, tmp, out)
			for len(left) > 0 && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
				left = marked(tag, tmp, out)
			}
			if len(left) > 0 {
				t.Errorf("%s killed after %v: %d processes left:\n%s", s.name, d, len(left), strings.Join(left, "\n"))
				for _, l := range left {
					if pid, err := strconv.Atoi(strings.Fields(l)[0]); err == nil {
						_ = syscall.Kill(pid, syscall.SIGKILL)
					}
				}
			}
			// The next run sweeps what the dead one left in the temp dir,
			// and a folder of a live owner stays.
			keep := filepath.Join(tmp, "wright-keep")
			os.MkdirAll(keep, 0o755)
			os.WriteFile(filepath.Join(keep, ".wright-owner"), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
			before := wrightFolders(tmp)
			done := modeltest.New(t, modeltest.Done(model.FieldBash, "done", "ok"))
			next := exec.Command(wrightBin, "run", "-t", "x", "--run-dir", out+"-next", "--base-url", done.URL+"/v1", "--model", "scripted",
				"-c", "agent.require_self_reflection_success=false")
			next.Env = append(os.Environ(), "OPENAI_API_KEY="+testKey, "TMPDIR="+tmp)
			if b, err := next.CombinedOutput(); err != nil {
				t.Fatalf("the next run: %v\n%s", err, b)
			}
			if after := wrightFolders(tmp); len(after) != 1 || after[0] != "wright-keep" {
				t.Errorf("%s killed after %v: folders before the next run %v, after %v (want only wright-keep)", s.name, d, before, after)
			}
		}
	}
}
