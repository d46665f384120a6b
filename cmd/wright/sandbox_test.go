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
	"testing"
	"time"

	"wright/model"
	"wright/model/modeltest"
	"wright/trust/sandbox"
)

func requireBwrap(t *testing.T) {
	t.Helper()
	if ok, why := sandbox.BwrapAvailable(); !ok {
		t.Skip("bubblewrap cannot run here: " + why)
	}
}

// Under env.sandbox: bwrap the model's shell cannot see wright (no
// environ of any process it can read holds the key), cannot write outside
// the workspace, reaches the network only through the URL policy (going
// around the proxy reaches nothing), and leaves nothing behind.
func TestSandboxedRunIsConfined(t *testing.T) {
	requireBwrap(t)
	var mu sync.Mutex
	var reached []string
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.Host+r.URL.Path)
		mu.Unlock()
		fmt.Fprint(w, "reached")
	}))
	defer target.Close()
	port := target.URL[strings.LastIndexByte(target.URL, ':')+1:]
	home, _ := os.UserHomeDir()
	if home == "" || strings.HasPrefix(home, "/tmp") {
		home = "/var" // a home under /tmp would be the sandbox's own /tmp
	}
	probe := fmt.Sprintf(`n=0; for f in /proc/[0-9]*/environ; do grep -qs sk-wright-test "$f" && n=$((n+1)); done; echo "holders=$n"
test -e /proc/%d && echo SEES-HOST
echo "procs=$(ls -d /proc/[0-9]* | wc -l)"
for p in /usr/probe %q/wright-probe /etc/probe; do echo x 2>/dev/null > "$p" && echo "WROTE $p"; done
echo ok > in-workspace && echo ws-ok
curl -s -o /dev/null -w "blocked=%%{http_code}\n" http://blocked.localhost:%s/x
curl -s -w "\nallowed=%%{http_code}\n" http://127.0.0.1:%s/ok
env -u http_proxy -u HTTP_PROXY -u ALL_PROXY -u all_proxy curl -s --noproxy '*' -m 5 http://127.0.0.1:%s/direct || echo "direct=refused"
env -i setsid sleep 1981 </dev/null >/dev/null 2>&1 &
true`, os.Getpid(), home, port, port, port)
	srv := modeltest.New(t,
		modeltest.Bash("probe the sandbox", probe),
		modeltest.Done(model.FieldBash, "done", "x"),
	)
	dir := filepath.Join(t.TempDir(), "run")
	r := wright(t, append(runArgs(t, srv, dir), "-c", "env.sandbox=bwrap", "-c", "browser.blocked_domains=[blocked.localhost]")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr.String())
	}
	gone(t, "sleep 1981")
	msgs := srv.Requests()[1].Chat().Messages
	text := msgs[len(msgs)-1].Text()
	for _, want := range []string{"holders=0", "ws-ok", "blocked=403", "reached\nallowed=200", "direct=refused"} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q in the observation:\n%s", want, text)
		}
	}
	for _, bad := range []string{"SEES-HOST", "WROTE"} {
		if strings.Contains(text, bad) {
			t.Errorf("%s in the observation:\n%s", bad, text)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "wright-probe")); err == nil {
		os.Remove(filepath.Join(home, "wright-probe"))
		t.Error("the sandbox wrote to the home directory")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reached) != 1 || reached[0] != "127.0.0.1:"+port+"/ok" {
		t.Errorf("the target saw %v, want only the allowed request", reached)
	}
}

// The demo (a whole workspace-mode run: exploring with Chromium, the
// final script, `wright reflect` over the harness's socket, the gate)
// passes with its shell, scripts, driver and Chromium under bubblewrap.
func TestDemoUnderSandbox(t *testing.T) {
	requireBwrap(t)
	out := t.TempDir()
	cmd := exec.Command(wrightBin, "demo", "-o", out)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+testKey)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The shell is started by bubblewrap, through wright's sandbox-init.
	sawSandbox := false
	deadline := time.Now().Add(60 * time.Second)
	for !sawSandbox && time.Now().Before(deadline) {
		sawSandbox = cmdlineWith("bwrap", sandbox.InitCommand, out)
		time.Sleep(20 * time.Millisecond)
	}
	if code := waitExitWithin(t, cmd, 5*time.Minute); code != 0 || !strings.Contains(stderr.String(), "Submitted after 6 steps") {
		t.Fatalf("demo under the sandbox: exit %d\n%s", code, stderr.String())
	}
	if !sawSandbox {
		t.Error("the demo's shell did not run under bubblewrap")
	}
}

// cmdlineWith reports whether some process's command line holds every
// one of parts.
func cmdlineWith(parts ...string) bool {
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		all := true
		for _, p := range parts {
			all = all && bytes.Contains(b, []byte(p))
		}
		if all {
			return true
		}
	}
	return false
}

// env.sandbox: none keeps the older confinement (PID namespace, the proxy
// variables): the shell still runs, and its tools still meet the policy.
func TestSandboxNone(t *testing.T) {
	srv := modeltest.New(t,
		modeltest.Bash("where am I", `echo "init=$(cat /proc/1/comm)"`),
		modeltest.Done(model.FieldBash, "done", "x"),
	)
	dir := filepath.Join(t.TempDir(), "run")
	r := wright(t, append(runArgs(t, srv, dir), "-c", "env.sandbox=none")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr.String())
	}
	msgs := srv.Requests()[1].Chat().Messages
	if text := msgs[len(msgs)-1].Text(); strings.Contains(text, "init=bwrap") {
		t.Errorf("env.sandbox none ran under bubblewrap:\n%s", text)
	}
	r = wright(t, append(runArgs(t, srv, filepath.Join(t.TempDir(), "run")), "-c", "env.sandbox=bwrapp")...)
	if r.code != 2 || !strings.Contains(r.stderr.String(), "env.sandbox") {
		t.Errorf("a bad env.sandbox value: exit %d\n%s", r.code, r.stderr.String())
	}
}

// env.sandbox_read_only shows more paths in the sandbox, read-only; a
// directory not listed is not there at all.
func TestSandboxReadOnlyPaths(t *testing.T) {
	requireBwrap(t)
	tools, hidden := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(tools, "tool.txt"), []byte("tool here"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hidden, "secret.txt"), []byte("not for the model"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := modeltest.New(t,
		modeltest.Bash("look around", fmt.Sprintf(`cat %[1]s/tool.txt; echo; echo x > %[1]s/new 2>/dev/null && echo WROTE; cat %[2]s/secret.txt 2>/dev/null || echo hidden-absent`, tools, hidden)),
		modeltest.Done(model.FieldBash, "done", "x"),
	)
	dir := filepath.Join(t.TempDir(), "run")
	r := wright(t, append(runArgs(t, srv, dir), "-c", "env.sandbox=bwrap", "-c", "env.sandbox_read_only=["+tools+"]")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr.String())
	}
	msgs := srv.Requests()[1].Chat().Messages
	text := msgs[len(msgs)-1].Text()
	if !strings.Contains(text, "tool here") || !strings.Contains(text, "hidden-absent") || strings.Contains(text, "WROTE") || strings.Contains(text, "not for the model") {
		t.Errorf("observation:\n%s", text)
	}
}
