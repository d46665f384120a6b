package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"wright/model"
	"wright/model/modeltest"
)

// A stdio client with a browser session open (Chromium, the driver, the
// session's runner) starts script_make and dies mid-run. Every process
// below the server ends with it, the session's browser and the run's
// alike, and the run folder is saved as interrupted.
func TestClientDeathMidRunEndsBrowserAndRun(t *testing.T) {
	t.Parallel()
	site := greeter(t)
	agent := modeltest.New(t,
		modeltest.Bash("wait for the page", "sleep 97.33; echo slept"),
		modeltest.Done(model.FieldBash, "never reached", "nothing"))
	dir := t.TempDir()
	args := append([]string{"stdio", wrightBin, "mcp", "-c", "browser.headless=true"}, modelFlags(agent, judge(t))...)
	c := startBridge(t, serverEnv(t), dir, args...)
	c.call("navigate", map[string]any{"url": site})
	line, _ := json.Marshal(map[string]any{"op": "call", "id": 1, "tool": "script_make", "args": map[string]any{"task": "Wait a while."}})
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(sleepersOf("97.33")) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the run's sleep never started\n%s", c.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	below := descendants(c.server)
	chromium := 0
	for _, p := range below {
		if b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "comm")); strings.Contains(string(b), "chrom") {
			chromium++
		}
	}
	if chromium < 2 {
		t.Fatalf("want the session's and the run's Chromium below the server; %d Chromium processes among %v", chromium, below)
	}
	c.cmd.Process.Kill() // the client dies; the server's stdin closes
	waitGone(t, append(below, c.server), "after the client died mid-run")
	if left := sleepersOf("97.33"); len(left) > 0 {
		t.Errorf("the run's sleep outlived the client: %v", left)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "result.json"))
	if len(runs) != 1 {
		t.Fatalf("run folders with a result.json: %v", runs)
	}
	b, _ := os.ReadFile(runs[0])
	if !strings.Contains(string(b), `"exit_status": "Interrupted"`) {
		t.Errorf("the run's result.json:\n%s", b)
	}
	t.Logf("client killed mid-run: %d processes below the server (%d Chromium) all gone; %s saved as Interrupted", len(below), chromium, filepath.Base(filepath.Dir(runs[0])))
}
