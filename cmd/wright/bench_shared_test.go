package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"wright/bench/measure/scale/proctree"
)

// blocker is a URL of the test's site that blocks its first visitor until the
// test opens it, so that two attempts are known to be in the browser at
// once.
type blocker struct {
	once   sync.Once
	hit    chan struct{} // closed at the first visit
	open   chan struct{} // closed by the test
	cookie string        // the Cookie header of the first visit
}

func newGate() *blocker { return &blocker{hit: make(chan struct{}), open: make(chan struct{})} }

func (g *blocker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	first := false
	g.once.Do(func() { first, g.cookie = true, r.Header.Get("Cookie"); close(g.hit) })
	if first {
		select {
		case <-g.open:
		case <-time.After(90 * time.Second):
		}
	}
	fmt.Fprint(w, `<!doctype html><title>Gate</title><p>passed</p>`)
}

func waitHit(t *testing.T, g *blocker, what string) {
	t.Helper()
	select {
	case <-g.hit:
	case <-time.After(3 * time.Minute):
		t.Fatalf("%s never reached the site", what)
	}
}

// startBench starts a bench of the tasks on the shared browser (the
// default) and returns a function that waits for it.
func startBench(t *testing.T, dir string, tasks []benchTask, site string) (*exec.Cmd, func() string) {
	t.Helper()
	suitePath := writeSuite(t, dir, site, tasks)
	cmd := exec.Command(wrightBin, "bench", suitePath, "-o", filepath.Join(dir, "out"), "--parallel", "2", "--task-timeout", "3m")
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+testKey)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, func() string {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("bench: %v\n%s", err, out.String())
			}
		case <-time.After(4 * time.Minute):
			_ = cmd.Process.Kill()
			t.Fatalf("the bench did not end\n%s", out.String())
		}
		return out.String()
	}
}

// sharedChromium finds the one Chromium the bench started for its live
// attempts: a browser process (no --type) in the bench's tree.
func sharedChromium(t *testing.T, bench int) []int {
	t.Helper()
	s, err := proctree.Measure(bench)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range s.Procs {
		if p.Kind == "chromium" || p.Kind == "chrome" {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

// TestBenchSharedBrowserIsolatesAttempts runs two live attempts at once on
// the bench's one Chromium: the first sets a cookie and stays on its page
// while the second, started after, must not send that cookie, must not see
// the first one's tab, and both run in the same browser process.
func TestBenchSharedBrowserIsolatesAttempts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a browser")
	}
	hold, probe := newGate(), newGate()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Home</title><h1>The answer is 42</h1>`)
	})
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "owner", Value: "first", Path: "/"})
		fmt.Fprint(w, `<!doctype html><title>Set</title>`)
	})
	mux.Handle("/hold", hold)
	mux.Handle("/probe", probe)
	var seenMu sync.Mutex
	seen := ""
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		seenMu.Lock()
		seen = r.URL.RawQuery
		seenMu.Unlock()
		fmt.Fprint(w, `<!doctype html><title>Report</title>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	site := srv.URL + "/"
	pass := map[string]any{"answer": map[string]any{"must_include": []string{"42"}}}
	tasks := []benchTask{
		{id: "a-sets-cookie", mode: "browser", eval: pass, replies: []map[string]any{
			pyStep("page.goto(task['start_url'] + 'set')\nprint(page.context.cookies())\npage.goto(task['start_url'] + 'hold', timeout=120000)"),
			doneStep("python_code", "42")}},
		{id: "b-looks", mode: "browser", eval: pass, replies: []map[string]any{
			pyStep("page.goto(task['start_url'] + 'probe', timeout=120000)\n" +
				"pages = sum(len(c.pages) for c in browser.contexts)\n" +
				"page.goto(task['start_url'] + 'report?cookies=%d&doc=%s&pages=%d' % (len(page.context.cookies()), page.evaluate('document.cookie') or '-', pages))"),
			doneStep("python_code", "42")}},
	}
	dir := t.TempDir()
	cmd, wait := startBench(t, dir, tasks, site)
	waitHit(t, hold, "the first attempt")
	waitHit(t, probe, "the second attempt")
	if n := len(sharedChromium(t, cmd.Process.Pid)); n != 1 {
		t.Errorf("%d Chromium browser processes in the bench's tree, want the one shared", n)
	}
	close(probe.open)
	// The second attempt reports, then the first one may go on.
	deadline := time.Now().Add(time.Minute)
	for {
		seenMu.Lock()
		s := seen
		seenMu.Unlock()
		if s != "" || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	close(hold.open)
	out := wait()
	if hold.cookie != "owner=first" {
		t.Errorf("the first attempt sent cookie %q on its own page, want owner=first", hold.cookie)
	}
	if probe.cookie != "" {
		t.Errorf("the second attempt sent the first one's cookie: %q", probe.cookie)
	}
	if seen != "cookies=0&doc=-&pages=1" {
		t.Errorf("the second attempt saw %q, want no cookie and only its own page", seen)
	}
	for id, r := range readResults(t, filepath.Join(dir, "out")) {
		if r.Passed == nil || !*r.Passed || r.Error != "" {
			t.Errorf("%s: %s passed %s error %q\n%s", id, r.ExitStatus, fmtPtr(r.Passed), r.Error, out)
		}
	}
}

// TestBenchSharedBrowserCrashIsRetried kills the shared Chromium while two
// live attempts are in it: each is recorded as the browser's failure and
// run again on a new browser, where both pass; none passes on what it made
// of the dead browser.
func TestBenchSharedBrowserCrashIsRetried(t *testing.T) {
	if testing.Short() {
		t.Skip("runs browsers")
	}
	one, two := newGate(), newGate()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Home</title><h1>The answer is 42</h1>`)
	})
	mux.Handle("/one", one)
	mux.Handle("/two", two)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	pass := map[string]any{"answer": map[string]any{"must_include": []string{"42"}}}
	step := func(path string) []map[string]any {
		// After the kill the step fails and the recorded model answers
		// anyway: only the bench can tell that the browser died.
		return []map[string]any{pyStep("page.goto(task['start_url'] + '" + path + "', timeout=120000)"), doneStep("python_code", "42")}
	}
	tasks := []benchTask{{id: "one", mode: "browser", eval: pass, replies: step("one")}, {id: "two", mode: "browser", eval: pass, replies: step("two")}}
	dir := t.TempDir()
	cmd, wait := startBench(t, dir, tasks, srv.URL+"/")
	waitHit(t, one, "the first attempt")
	waitHit(t, two, "the second attempt")
	pids := sharedChromium(t, cmd.Process.Pid)
	if len(pids) != 1 {
		t.Fatalf("%d Chromium browser processes in the bench's tree, want the one shared", len(pids))
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	close(one.open)
	close(two.open)
	out := wait()
	recs := readResults(t, filepath.Join(dir, "out"))
	if len(recs) != 2 {
		t.Fatalf("%d results, want 2\n%s", len(recs), out)
	}
	for id, r := range recs {
		if r.Retries < 1 || r.Passed == nil || !*r.Passed || r.Error != "" {
			t.Errorf("%s: %s passed %s after %d retries, error %q\n%s", id, r.ExitStatus, fmtPtr(r.Passed), r.Retries, r.Error, out)
		}
	}
	if !strings.Contains(out, "Submitted pass") {
		t.Errorf("the bench's output:\n%s", out)
	}
}
