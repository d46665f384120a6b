package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/browser"
)

// remoteBrowser is a Chromium the test starts, as a browser grid serves one.
type remoteBrowser struct {
	cmd   *exec.Cmd
	wsURL string
	host  string // host:port of its DevTools server
}

var devtoolsListening = regexp.MustCompile(`DevTools listening on (ws://([^/\s]+)\S*)`)

func startRemoteBrowser(t *testing.T) *remoteBrowser {
	t.Helper()
	exe, err := browser.FindExecutable("")
	if err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	cmd := exec.Command(exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--remote-debugging-port=0", "--user-data-dir="+t.TempDir(), "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rb := &remoteBrowser{cmd: cmd}
	t.Cleanup(rb.kill)
	found := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsListening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
				break
			}
		}
		for sc.Scan() { // Chromium blocks if nobody drains its stderr
		}
	}()
	select {
	case m := <-found:
		rb.wsURL, rb.host = m[1], m[2]
	case <-time.After(60 * time.Second):
		t.Fatal("Chromium printed no DevTools URL within 60s")
	}
	return rb
}

func (rb *remoteBrowser) kill() {
	if rb.cmd.Process != nil {
		_ = syscall.Kill(-rb.cmd.Process.Pid, syscall.SIGKILL)
		_ = rb.cmd.Wait()
		rb.cmd.Process = nil
	}
}

// busy says whether an attempt has a page on the browser: a tab away from
// about:blank.
func (rb *remoteBrowser) busy() bool {
	resp, err := http.Get("http://" + rb.host + "/json/list")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var targets []struct{ Type, URL string }
	json.NewDecoder(resp.Body).Decode(&targets)
	for _, tg := range targets {
		if tg.Type == "page" && strings.HasPrefix(tg.URL, "http") {
			return true
		}
	}
	return false
}

// TestBenchRemoteBrowsers runs the demo suite at --parallel 3 on three
// remote Chromiums read from browser.cdp_urls_file, and kills the second
// (worker 2's) while an attempt runs on it: that attempt is retried on
// another endpoint as an infrastructure error, the dead one leaves the
// rotation, and every task still passes, each recorded once.
func TestBenchRemoteBrowsers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs browsers")
	}
	var grid []*remoteBrowser
	var lines []string
	for i := range 3 {
		rb := startRemoteBrowser(t)
		grid = append(grid, rb)
		// One by its WebSocket URL, the others by their DevTools servers.
		u := "http://" + rb.host
		if i == 0 {
			u = rb.wsURL
		}
		lines = append(lines, u+"  # remote "+string(rune('A'+i)))
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "grid.txt")
	if err := os.WriteFile(file, []byte("# the test's grid\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	cmd := exec.Command(wrightBin, "bench", "builtin:demo", "--model", "builtin:recorded", "--parallel", "3",
		"--filter", "demo-(price|search-count|filter|shipping|login|about)$", "-o", out, "-c", "browser.cdp_urls_file="+file)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+testKey)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	killed := false
	deadline := time.After(4 * time.Minute)
wait:
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("bench: %v\n%s\n%s", err, stdout.String(), stderr.String())
			}
			break wait
		case <-deadline:
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("bench did not end within 4 minutes\n%s", stderr.String())
		case <-time.After(50 * time.Millisecond):
			if !killed && grid[1].busy() {
				grid[1].kill()
				killed = true
			}
		}
	}
	if !killed {
		t.Fatal("no attempt ever ran on the second remote browser")
	}
	recs := readResults(t, out)
	if len(recs) != 6 {
		t.Errorf("%d tasks recorded, want 6", len(recs))
	}
	retried := 0
	for id, r := range recs {
		if r.Passed == nil || !*r.Passed {
			t.Errorf("%s did not pass: %s %s", id, r.ExitStatus, r.Error)
		}
		retried += r.Retries
	}
	if retried == 0 {
		t.Errorf("no attempt was retried after its browser was killed\n%s", stderr.String())
	}
	if want := "http://" + grid[1].host + " stopped answering"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
	}
	// Each task once: the retry replaced the lost attempt, it added no line.
	b, _ := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if n := bytes.Count(b, []byte("\n")); n != 6 {
		t.Errorf("results.jsonl has %d lines, want 6", n)
	}
}
