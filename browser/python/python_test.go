package python

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The wright binary the browser tests drive, built once in TestMain. A build
// failure fails the tests that need it (with the compiler's output) and
// leaves the pure-Python ones running.
var (
	wrightBin string
	buildErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wright-python-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "make temp dir:", err)
		os.Exit(1)
	}
	wrightBin = filepath.Join(dir, "wright")
	out, err := exec.Command("go", "build", "-o", wrightBin, "wright/cmd/wright").CombinedOutput()
	if err != nil {
		buildErr = fmt.Errorf("go build wright/cmd/wright: %v\n%s", err, out)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func needWright(t testing.TB) {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// shortTempDir is a temporary directory with a short path: it becomes the
// scripts' TMPDIR, and Chromium puts a Unix socket under it, whose path
// must stay under 108 bytes.
func shortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "wp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// fixtureServer serves testdata/site plus two dynamic pages: /echo shows a
// submitted form's fields as JSON, /slow answers only when the test ends.
func fixtureServer(t testing.TB) string {
	t.Helper()
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join("testdata", "site"))))
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		fields := map[string]string{}
		for k, v := range r.URL.Query() {
			fields[k] = v[0]
		}
		data, _ := json.Marshal(fields)
		var esc bytes.Buffer
		json.HTMLEscape(&esc, data)
		fmt.Fprintf(w, "<!doctype html><title>Echo</title><pre id=\"result\">%s</pre>", esc.String())
	})
	mux.HandleFunc("/ws", echoWebSocket)
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "<!doctype html><title>Slow</title>finally")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		close(release)
		srv.Close()
	})
	return srv.URL
}

// echoWebSocket answers each message of a WebSocket with "echo:" and the
// message, for the WebSocket routes that connect to a server.
func echoWebSocket(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	for {
		typ, data, err := c.Read(r.Context())
		if err != nil {
			return
		}
		if err := c.Write(r.Context(), typ, append([]byte("echo:"), data...)); err != nil {
			return
		}
	}
}

// script is one run of a python3 script under testdata/scripts.
type script struct {
	name    string
	args    []string
	fixture string            // FIXTURE_URL
	env     map[string]string // on top of the defaults
	// standalone puts only the self-contained wright_browser.py (Client) on
	// PYTHONPATH instead of the package and the module beside it.
	standalone bool
}

// command prepares the script with the client installed from the embedded
// copy (so the embed is what is tested), its own TMPDIR (so every process it
// causes can be found by that path) and a fresh working directory.
func (s script) command(t testing.TB, ctx context.Context) (*exec.Cmd, string) {
	t.Helper()
	clientDir := t.TempDir()
	if s.standalone {
		if err := os.WriteFile(filepath.Join(clientDir, FileName), []byte(Client()), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if _, err := Install(clientDir); err != nil {
		t.Fatal(err)
	}
	scriptPath, err := filepath.Abs(filepath.Join("testdata", "scripts", s.name))
	if err != nil {
		t.Fatal(err)
	}
	tmp := shortTempDir(t)
	cmd := exec.CommandContext(ctx, "python3", append([]string{scriptPath}, s.args...)...)
	cmd.Dir = t.TempDir()
	env := map[string]string{
		"WRIGHT_BIN":              wrightBin,
		"FIXTURE_URL":             s.fixture,
		"PYTHONPATH":              clientDir,
		"TMPDIR":                  tmp,
		"PYTHONDONTWRITEBYTECODE": "1",
		"PYTHONUNBUFFERED":        "1",
		"WRIGHT_DRIVER_SOCKET":    "",
		"WRIGHT_RUN_DIR":          "",
	}
	for k, v := range s.env {
		env[k] = v
	}
	// The test's own environment, minus whatever is set here (an empty value
	// unsets a variable the test process may have).
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !hasKey(env, k) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range env {
		if v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.WaitDelay = 5 * time.Second
	return cmd, tmp
}

// run runs the script to its end and returns stdout and stderr.
func (s script) run(t testing.TB) (stdout, stderr string, tmp string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd, tmp := s.command(t, ctx)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), tmp, err
}

// processesWith lists the live processes whose command line contains marker
// (Chromium carries its profile directory, which lies under the script's
// TMPDIR). Zombies have an empty command line and do not count.
func processesWith(marker string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(marker)) {
			continue
		}
		found = append(found, e.Name()+": "+string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	return found
}

func processAlive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	fields := strings.Fields(string(stat[i+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// assertNothingLeft fails unless the driver (pid, if known) and every
// process under tmp are gone. Orphans are reaped by init, so it allows a
// few seconds before it looks for the last time.
func assertNothingLeft(t *testing.T, tmp string, driverPID int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := processesWith(tmp)
		driver := driverPID > 0 && processAlive(driverPID)
		if len(left) == 0 && !driver {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range left {
				if pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0]); err == nil {
					syscall.Kill(pid, syscall.SIGKILL) // do not leak them past the test
				}
			}
			if driver {
				syscall.Kill(driverPID, syscall.SIGKILL)
			}
			t.Fatalf("left behind: driver alive=%v, processes under %s:\n%s", driver, tmp, strings.Join(left, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func driverPID(t *testing.T, stdout string) int {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		if rest, ok := strings.CutPrefix(line, "DRIVER_PID "); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(rest))
			if err != nil {
				t.Fatalf("bad DRIVER_PID line %q", line)
			}
			return pid
		}
	}
	return 0
}

func TestPythonUnit(t *testing.T) {
	clientDir := t.TempDir()
	if _, err := Install(clientDir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", filepath.Join("testdata", "unit_client.py"))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+clientDir, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python unit tests failed: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("\nOK")) {
		t.Fatalf("python unit tests did not report OK:\n%s", out)
	}
}

func TestEmbedMatchesSource(t *testing.T) {
	src, err := os.ReadFile(FileName)
	if err != nil {
		t.Fatal(err)
	}
	if Module != string(src) {
		t.Fatal("the embedded module differs from wright_browser.py")
	}
	if !strings.Contains(Module, "def next_run_dir(") || !strings.Contains(Module, "__all__") {
		t.Fatal("the embedded module does not look like wright_browser.py")
	}
}

func TestInstall(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "py", "path")
	path, err := Install(dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, FileName) {
		t.Fatalf("path %s", path)
	}
	if err := os.WriteFile(path, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Install(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != Module {
		t.Fatal("Install did not replace a stale copy")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("Install left temporary files: %v", entries)
	}
	for _, f := range []string{"__init__.py", "sync_api/__init__.py", "_impl/_path_utils.py"} {
		if _, err := os.Stat(filepath.Join(dir, PackageName, f)); err != nil {
			t.Fatalf("Install did not write the playwright package: %v", err)
		}
	}

	// A file where the directory should be: an error that says so.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, []byte("keep me"), 0o644)
	if _, err := Install(blocker); err == nil || !strings.Contains(err.Error(), "install python client") {
		t.Fatalf("Install over a file: %v", err)
	}
	if kept, _ := os.ReadFile(blocker); string(kept) != "keep me" {
		t.Fatal("Install damaged the file in its way")
	}
}

func TestClientCommand(t *testing.T) {
	needWright(t)
	out, err := exec.Command(wrightBin, "client", "python").Output()
	if err != nil {
		t.Fatalf("wright client python: %v", err)
	}
	if string(out) != Client() {
		t.Fatal("wright client python does not print the embedded client")
	}
	out2 := t.TempDir()
	if err := exec.Command(wrightBin, "client", "python", "--out", out2).Run(); err != nil {
		t.Fatalf("wright client python --out: %v", err)
	}
	for _, f := range []string{FileName, "playwright/sync_api/__init__.py"} {
		if _, err := os.Stat(filepath.Join(out2, f)); err != nil {
			t.Fatalf("--out did not write %s: %v", f, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(out2, FileName)); string(got) != Module {
		t.Fatal("--out did not write the thin wright_browser.py beside the package")
	}
	cmd := exec.Command(wrightBin, "client", "ruby")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("wright client ruby: want exit code 2, got %v", err)
	}
	if !strings.Contains(stderr.String(), `unknown client language "ruby"`) || !strings.Contains(stderr.String(), "python") {
		t.Fatalf("wright client ruby said: %s", stderr.String())
	}
}

// TestDriverKilled kills the driver while the script waits on it: the call
// must fail at once with the driver's fate, and nothing may be left.
func TestDriverKilled(t *testing.T) {
	needWright(t)
	base := fixtureServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd, tmp := script{name: "killed.py", fixture: base}.command(t, ctx)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var seen []string
	pid := 0
	for lines.Scan() {
		seen = append(seen, lines.Text())
		if rest, ok := strings.CutPrefix(lines.Text(), "DRIVER_PID "); ok {
			pid, _ = strconv.Atoi(rest)
			break
		}
	}
	if pid == 0 {
		cmd.Wait()
		t.Fatalf("the script never reported its driver\nstdout:\n%s\nstderr:\n%s", strings.Join(seen, "\n"), stderr.String())
	}
	// Let the script enter its long wait, then kill the driver under it.
	time.Sleep(500 * time.Millisecond)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill driver %d: %v", pid, err)
	}
	rest, _ := io.ReadAll(stdout)
	seen = append(seen, strings.Split(string(rest), "\n")...)
	err = cmd.Wait()
	out := strings.Join(seen, "\n")
	if ctx.Err() != nil {
		t.Fatalf("the script hung after its driver was killed\nstdout:\n%s\nstderr:\n%s", out, stderr.String())
	}
	if err != nil || !strings.HasSuffix(strings.TrimSpace(out), "OK") {
		t.Fatalf("killed.py: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	assertNothingLeft(t, tmp, pid)
}

// TestCleanup ends scripts every way they can end and checks that neither
// the driver nor Chromium survives any of them.
func TestCleanup(t *testing.T) {
	needWright(t)
	base := fixtureServer(t)
	for _, mode := range []string{"with", "close", "exception", "atexit"} {
		t.Run(mode, func(t *testing.T) {
			stdout, stderr, tmp, err := script{name: "cleanup.py", args: []string{mode}, fixture: base}.run(t)
			if err != nil {
				t.Fatalf("cleanup.py %s: %v\nstdout:\n%s\nstderr:\n%s", mode, err, stdout, stderr)
			}
			pid := driverPID(t, stdout)
			if pid == 0 {
				t.Fatalf("no DRIVER_PID\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
			}
			assertNothingLeft(t, tmp, pid)
		})
	}
	t.Run("sigterm", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd, tmp := script{name: "cleanup.py", args: []string{"sigterm"}, fixture: base}.command(t, ctx)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var seen []string
		lines := bufio.NewScanner(stdout)
		for lines.Scan() && lines.Text() != "READY" {
			seen = append(seen, lines.Text())
		}
		cmd.Process.Signal(syscall.SIGTERM)
		io.Copy(io.Discard, stdout)
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			t.Fatalf("want death by SIGTERM, got %v\nstdout:\n%s\nstderr:\n%s", err, strings.Join(seen, "\n"), stderr.String())
		}
		assertNothingLeft(t, tmp, driverPID(t, strings.Join(seen, "\n")))
	})
}

// TestConnectSocket is live mode: the test owns a socket driver, scripts
// connect to it, and closing a connection leaves the browser running.
func TestConnectSocket(t *testing.T) {
	needWright(t)
	base := fixtureServer(t)
	tmp := shortTempDir(t)
	sock := filepath.Join(tmp, "driver.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	driver := exec.CommandContext(ctx, wrightBin, "driver", "--socket", sock)
	driver.Env = append(os.Environ(), "TMPDIR="+tmp)
	var driverErr bytes.Buffer
	driver.Stderr = &driverErr
	driver.WaitDelay = 5 * time.Second
	if err := driver.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- driver.Wait() }()
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		driver.Process.Signal(syscall.SIGTERM)
		return <-done
	}
	defer stop()
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i == 200 {
			t.Fatalf("the driver never made %s\nstderr:\n%s", sock, driverErr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	stdout, stderr, _, err := script{name: "live.py", fixture: base, env: map[string]string{"WRIGHT_DRIVER_SOCKET": sock}}.run(t)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(stdout), "OK") {
		t.Fatalf("live.py: %v\nstdout:\n%s\nstderr:\n%s\ndriver stderr:\n%s", err, stdout, stderr, driverErr.String())
	}
	if !processAlive(driver.Process.Pid) {
		t.Fatal("the socket driver died when its clients disconnected")
	}
	if err := stop(); err != nil {
		t.Logf("driver exit after SIGTERM: %v", err)
	}
	assertNothingLeft(t, tmp, driver.Process.Pid)
}

// BenchmarkClickRoundTrip reports one locator.click and one trivial call
// (page.title) through the Python client, timed inside the script.
func BenchmarkClickRoundTrip(b *testing.B) {
	needWright(b)
	base := fixtureServer(b)
	var click, call float64
	for b.Loop() {
		stdout, stderr, _, err := script{name: "bench.py", fixture: base, env: map[string]string{"BENCH_N": "200"}}.run(b)
		if err != nil {
			b.Fatalf("bench.py: %v\n%s\n%s", err, stdout, stderr)
		}
		for _, line := range strings.Split(stdout, "\n") {
			if v, ok := strings.CutPrefix(line, "CLICK_MS "); ok {
				click, _ = strconv.ParseFloat(v, 64)
			}
			if v, ok := strings.CutPrefix(line, "CALL_MS "); ok {
				call, _ = strconv.ParseFloat(v, 64)
			}
		}
	}
	b.ReportMetric(click, "ms/click")
	b.ReportMetric(call, "ms/call")
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}
