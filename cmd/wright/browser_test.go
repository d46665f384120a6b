package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/env/proctab"
	"wright/model"
	"wright/model/modeltest"
)

// browserSite is the CLI tests' own site: a form posting to /done, and a
// page that says which session's page it is.
func browserSite(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Order</title><h1>Order</h1>
<form action="/done"><label>Name <input name="name"></label><button>Send</button></form>`)
	})
	mux.HandleFunc("/done", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><title>Done</title><h1>Thanks %s</h1>`, r.URL.Query().Get("name"))
	})
	mux.HandleFunc("/page/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/page/")
		fmt.Fprintf(w, `<!doctype html><title>Page %s</title><h1>Only in %s</h1>`, name, name)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// browserEnv is a runtime directory of the test's own, so its sessions
// are apart from any other's; short, for the sockets' path limit.
func browserEnv(t *testing.T) []string {
	t.Helper()
	rt, err := os.MkdirTemp("", "wb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Whatever a failed test left running ends here.
		infos, _ := filepath.Glob(filepath.Join(rt, "wright-browser", "*.json"))
		for _, f := range infos {
			if pid := daemonPID(t, f); pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGTERM)
			}
		}
		time.Sleep(200 * time.Millisecond)
		os.RemoveAll(rt)
	})
	return append(os.Environ(), "XDG_RUNTIME_DIR="+rt)
}

type wbRun struct {
	out, err string
	code     int
	took     time.Duration
}

func wb(t *testing.T, environ []string, args ...string) wbRun {
	t.Helper()
	cmd := exec.Command(wrightBin, append([]string{"browser"}, args...)...)
	cmd.Env = environ
	cmd.Dir = t.TempDir()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := wbRun{out: out.String(), err: errb.String(), took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func wbOK(t *testing.T, environ []string, args ...string) wbRun {
	t.Helper()
	r := wb(t, environ, args...)
	if r.code != 0 {
		t.Fatalf("wright browser %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.out, r.err)
	}
	return r
}

func daemonPID(t *testing.T, info string) int {
	b, err := os.ReadFile(info)
	if err != nil {
		return 0
	}
	var v struct{ PID int }
	_ = json.Unmarshal(b, &v)
	return v.PID
}

// tree is pid and every live process under it.
func tree(t *testing.T, pid int) []int {
	t.Helper()
	procs, err := proctab.List()
	if err != nil {
		t.Fatal(err)
	}
	kids := map[int][]int{}
	alive := map[int]bool{}
	for _, p := range procs {
		if !p.Zombie {
			kids[p.PPID] = append(kids[p.PPID], p.PID)
			alive[p.PID] = true
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		if alive[p] {
			out = append(out, p)
		}
		for _, c := range kids[p] {
			walk(c)
		}
	}
	walk(pid)
	return out
}

func comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

func waitGone(t *testing.T, pids []int, within time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var left []int
		for _, p := range pids {
			if st, ok := proctab.Stat(p); ok && !st.Zombie {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var refRe = regexp.MustCompile(`\[ref=(e\d+)\]`)

func refFor(t *testing.T, snapshot, role, name string) string {
	t.Helper()
	for _, line := range strings.Split(snapshot, "\n") {
		if strings.Contains(line, "- "+role+` "`+name+`"`) {
			if m := refRe.FindStringSubmatch(line); m != nil {
				return m[1]
			}
		}
	}
	t.Fatalf("no %s %q in:\n%s", role, name, snapshot)
	return ""
}

func TestBrowserCLI(t *testing.T) {
	srv := browserSite(t)
	environ := browserEnv(t)
	open := wbOK(t, environ, "open", srv.URL+"/", "--session", "cli")
	if !strings.HasPrefix(open.out, `page.goto("`+srv.URL+`/")`) || !strings.Contains(open.out, `heading "Order"`) {
		t.Fatalf("open should print the goto line and the page:\n%s", open.out)
	}
	t.Logf("open (daemon start, Chromium, runner, first page): %v", open.took)

	snap := wbOK(t, environ, "snapshot", "--session", "cli", "-o", filepath.Join(t.TempDir(), "copy.yml"))
	m := regexp.MustCompile(`written to (\S+) \((\d+) chars`).FindStringSubmatch(snap.out)
	if m == nil {
		t.Fatalf("snapshot should print the file's path and size:\n%s", snap.out)
	}
	whole, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if full := wbOK(t, environ, "snapshot", "--full", "--session", "cli"); !strings.Contains(full.out, "written to") || !strings.Contains(full.out, `textbox "Name"`) {
		t.Errorf("snapshot --full should print the whole page under its file's path:\n%s", full.out)
	}
	name := refFor(t, string(whole), "textbox", "Name")
	send := refFor(t, string(whole), "button", "Send")

	fill := wbOK(t, environ, "--session", "cli", "fill", name, "Ada")
	if first := strings.SplitN(fill.out, "\n", 2)[0]; first != `page.get_by_role("textbox", name="Name", exact=True).fill("Ada")` {
		t.Errorf("fill printed %q first", first)
	}
	click := wbOK(t, environ, "--session", "cli", "click", send)
	if !strings.Contains(click.out, "Thanks Ada") || !strings.Contains(click.out, "/done?name=Ada") {
		t.Fatalf("click should show the page it led to:\n%s", click.out)
	}

	code := filepath.Join(t.TempDir(), "steps.py")
	if err := os.WriteFile(code, []byte("heading = page.locator('h1').inner_text()\nprint('heading is', heading)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := wbOK(t, environ, "--session", "cli", "run", code)
	if !strings.Contains(run.out, "heading is Thanks Ada") {
		t.Errorf("run: %s", run.out)
	}
	// The namespace is kept from one command to the next.
	again := filepath.Join(t.TempDir(), "again.py")
	if err := os.WriteFile(again, []byte("print('still', heading.upper())\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := wbOK(t, environ, "--session", "cli", "run", again); !strings.Contains(r.out, "still THANKS ADA") {
		t.Errorf("a second run does not see the first one's variables: %s", r.out)
	}
	ev := wbOK(t, environ, "--session", "cli", "eval", "document.title")
	if !strings.Contains(ev.out, "Output:\nDone") {
		t.Errorf("eval: %s", ev.out)
	}
	js := wbOK(t, environ, "--session", "cli", "--json", "tabs")
	var reply browserReply
	if err := json.Unmarshal([]byte(js.out), &reply); err != nil || !strings.Contains(reply.Text, "Done") {
		t.Errorf("tabs --json: %v %s", err, js.out)
	}

	// A second command attaches to the running session: the whole
	// command, process start included.
	var times []time.Duration
	for i := 0; i < 7; i++ {
		r := wbOK(t, environ, "--session", "cli", "tabs")
		times = append(times, r.took)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	t.Logf("`wright browser tabs` on a running session, the whole command: min %v, median %v, max %v", times[0], times[len(times)/2], times[len(times)-1])
	if times[len(times)/2] > time.Second {
		t.Errorf("attaching takes %v", times[len(times)/2])
	}
	// The attach itself, as the command does it once its process runs:
	// connect to the socket, ask, read the answer.
	t.Setenv("XDG_RUNTIME_DIR", envValue(environ, "XDG_RUNTIME_DIR"))
	for _, req := range []browserRequest{{Op: "ping"}, {Tool: "tabs"}} {
		var best, total time.Duration
		for i := 0; i < 10; i++ {
			start := time.Now()
			if _, err := callSession(context.Background(), "cli", req); err != nil {
				t.Fatal(err)
			}
			d := time.Since(start)
			total += d
			if best == 0 || d < best {
				best = d
			}
		}
		t.Logf("attach and %s%s over the socket: mean %v, best %v", req.Op, req.Tool, total/10, best)
		if total/10 > 50*time.Millisecond {
			t.Errorf("attach and %s%s takes %v on average", req.Op, req.Tool, total/10)
		}
	}

	out := filepath.Join(t.TempDir(), "flow.py")
	wbOK(t, environ, "--session", "cli", "script", "-o", out)
	script, _ := os.ReadFile(out)
	for _, want := range []string{`page.goto("` + srv.URL + `/")`, `.fill("Ada")`, `get_by_role("button", name="Send", exact=True).click()`, "print('heading is', heading)"} {
		if !strings.Contains(string(script), want) {
			t.Errorf("script lacks %s:\n%s", want, script)
		}
	}
	// It runs: a fresh browser redoes the session's actions, with wright's
	// own client.
	client := t.TempDir()
	if out, err := exec.Command(wrightBin, "client", "python", "--out", client).CombinedOutput(); err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	py := exec.Command("python3", out)
	py.Env = append(os.Environ(), "PYTHONPATH="+client, "WRIGHT_BIN="+wrightBin)
	py.Dir = t.TempDir()
	if got, err := py.CombinedOutput(); err != nil || !strings.Contains(string(got), "heading is Thanks Ada") {
		t.Errorf("the session's script did not redo the session (%v):\n%s", err, got)
	}

	info := filepath.Join(envValue(environ, "XDG_RUNTIME_DIR"), "wright-browser", "cli.json")
	pid := daemonPID(t, info)
	procs := tree(t, pid)
	if pid == 0 || len(procs) < 3 {
		t.Fatalf("the daemon %d should hold Chromium and the runner: %v", pid, procs)
	}
	sock := strings.TrimSuffix(info, ".json") + ".sock"
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket %s: %v %v", sock, fi.Mode(), err)
	}
	closed := wbOK(t, environ, "--session", "cli", "close")
	if !strings.Contains(closed.out, `Session "cli" closed.`) {
		t.Errorf("close: %s", closed.out)
	}
	if left := waitGone(t, procs, 5*time.Second); len(left) > 0 {
		t.Errorf("processes left after close: %v", left)
	}
	if r := wb(t, environ, "--session", "cli", "snapshot"); r.code == 0 || !strings.Contains(r.err, `no browser session "cli" is running`) {
		t.Errorf("a command after close: %d %s", r.code, r.err)
	}
}

func envValue(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// A daemon killed outright takes its Chromium and runner with it.
func TestBrowserKilledDaemonLeavesNoChromium(t *testing.T) {
	srv := browserSite(t)
	environ := browserEnv(t)
	wbOK(t, environ, "open", srv.URL+"/", "--session", "k")
	info := filepath.Join(envValue(environ, "XDG_RUNTIME_DIR"), "wright-browser", "k.json")
	pid := daemonPID(t, info)
	procs := tree(t, pid)
	chromium := 0
	for _, p := range procs {
		if strings.Contains(comm(p), "chrom") {
			chromium++
		}
	}
	if chromium == 0 {
		t.Fatalf("no Chromium under the daemon %d: %v", pid, procs)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if left := waitGone(t, procs, 10*time.Second); len(left) > 0 {
		var names []string
		for _, p := range left {
			names = append(names, fmt.Sprintf("%d %s", p, comm(p)))
		}
		t.Fatalf("processes left after the daemon was killed: %v", names)
	}
	t.Logf("killed daemon %d: all %d processes under it (%d Chromium) gone", pid, len(procs), chromium)
	// The name is free again: a new open replaces the dead one's socket.
	wbOK(t, environ, "open", srv.URL+"/", "--session", "k")
	wbOK(t, environ, "close", "--session", "k")
}

// Two sessions are two browsers: neither sees the other's pages.
func TestBrowserSessionsApart(t *testing.T) {
	srv := browserSite(t)
	environ := browserEnv(t)
	wbOK(t, environ, "open", srv.URL+"/page/one", "--session", "one")
	wbOK(t, environ, "open", srv.URL+"/page/two", "--session", "two")
	t.Cleanup(func() {
		wb(t, environ, "close", "--session", "one")
		wb(t, environ, "close", "--session", "two")
	})
	for _, c := range []struct{ name, other string }{{"one", "two"}, {"two", "one"}} {
		tabs := wbOK(t, environ, "tabs", "--session", c.name)
		snap := wbOK(t, environ, "snapshot", "--full", "--max-chars", "2000", "--session", c.name)
		if !strings.Contains(snap.out, "Only in "+c.name) || strings.Contains(snap.out+tabs.out, c.other) {
			t.Errorf("session %s sees:\n%s\n%s", c.name, tabs.out, snap.out)
		}
	}
	// list answers while a session is busy with a long run.
	slow := filepath.Join(t.TempDir(), "slow.py")
	if err := os.WriteFile(slow, []byte("import time\ntime.sleep(4)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	busy := exec.Command(wrightBin, "browser", "run", slow, "--session", "one")
	busy.Env = environ
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	list := wbOK(t, environ, "list")
	if !strings.Contains(list.out, "one\tpid") || !strings.Contains(list.out, "two\tpid") || !strings.Contains(list.out, "/page/two") {
		t.Errorf("list: %s", list.out)
	}
	if list.took > 2*time.Second {
		t.Errorf("list waited %v for a busy session", list.took)
	}
	if err := busy.Wait(); err != nil {
		t.Errorf("the slow run: %v", err)
	}
}

// A session ends by itself after --idle without a command, and when its
// Chromium dies; either way nothing of it is left.
func TestBrowserSessionEndsIdleOrWithChromium(t *testing.T) {
	srv := browserSite(t)
	environ := browserEnv(t)
	dir := filepath.Join(envValue(environ, "XDG_RUNTIME_DIR"), "wright-browser")

	wbOK(t, environ, "open", srv.URL+"/", "--session", "idle", "--idle", "1500ms")
	procs := tree(t, daemonPID(t, filepath.Join(dir, "idle.json")))
	start := time.Now()
	if left := waitGone(t, procs, 15*time.Second); len(left) > 0 {
		t.Fatalf("an idle session is still running after %v: %v", time.Since(start), left)
	}
	if _, err := os.Stat(filepath.Join(dir, "idle.sock")); !os.IsNotExist(err) {
		t.Errorf("the idle session's socket is left: %v", err)
	}
	t.Logf("idle session (--idle 1500ms) gone %v after its last command", time.Since(start))

	wbOK(t, environ, "open", srv.URL+"/", "--session", "crash")
	pid := daemonPID(t, filepath.Join(dir, "crash.json"))
	procs = tree(t, pid)
	for _, p := range procs {
		if st, ok := proctab.Stat(p); ok && strings.Contains(comm(p), "chrom") && !strings.Contains(comm(st.PPID), "chrom") {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	if left := waitGone(t, procs, 15*time.Second); len(left) > 0 {
		t.Fatalf("the session whose Chromium was killed is still running: %v", left)
	}
	if r := wb(t, environ, "--session", "crash", "tabs"); r.code == 0 || !strings.Contains(r.err, "no browser session") {
		t.Errorf("a command to the crashed session: %d %s", r.code, r.err)
	}
}

// `open -c` reads the session's trust from a config, as a run does: the
// URL policy and the secrets.
func TestBrowserConfig(t *testing.T) {
	const value = "wb-secret-value-42"
	srv := browserSite(t)
	environ := append(browserEnv(t), "WB_TEST_PASS="+value)
	cfg := filepath.Join(t.TempDir(), "trust.yaml")
	if err := os.WriteFile(cfg, []byte("secrets:\n  pass: {env: WB_TEST_PASS}\nbrowser:\n  blocked_domains: [blocked.localhost]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := wbOK(t, environ, "open", srv.URL+"/", "--session", "cfg", "-c", cfg)
	t.Cleanup(func() { wb(t, environ, "close", "--session", "cfg") })
	name := refFor(t, open.out, "textbox", "Name")
	send := refFor(t, open.out, "button", "Send")
	fill := wbOK(t, environ, "--session", "cfg", "fill", name, "<secret>pass</secret>")
	click := wbOK(t, environ, "--session", "cfg", "click", send)
	// The server got the value: the page it answered is about it.
	if !strings.Contains(click.out, "/done?name=") {
		t.Fatalf("click: %s", click.out)
	}
	run := wbOK(t, environ, "--session", "cfg", "eval", "document.body.innerText + ' ' + location.href")
	all := open.out + fill.out + click.out + run.out
	if strings.Contains(all, value) {
		t.Fatalf("a command printed the secret's value:\n%s", all)
	}
	if !strings.Contains(run.out, "Thanks <secret>pass</secret>") {
		t.Errorf("the page's text should show the placeholder where the value is:\n%s", run.out)
	}
	port := srv.URL[strings.LastIndexByte(srv.URL, ':')+1:]
	blocked := wb(t, environ, "--session", "cfg", "navigate", "http://blocked.localhost:"+port+"/")
	if blocked.code == 0 || !strings.Contains(blocked.err+blocked.out, "blocked") {
		t.Errorf("a navigation the config's policy blocks: exit %d\n%s%s", blocked.code, blocked.out, blocked.err)
	}
}

// Inside a sandboxed workspace run, the model's shell can use `wright
// browser`: the session's Chromium goes through the run's policy proxy
// (the sandbox has no other network), the run's URL policy holds, and the
// session ends with the run even when the model never closes it.
func TestBrowserInWorkspaceSandbox(t *testing.T) {
	requireBwrap(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>In</title><h1>Inside the sandbox</h1><a href="/next">Next</a>`)
	}))
	defer site.Close()
	port := site.URL[strings.LastIndexByte(site.URL, ':')+1:]
	name := fmt.Sprintf("wsbox%d", os.Getpid())
	script := fmt.Sprintf(`wright browser open %[1]s/ --session %[2]s 2>&1; echo "open=$?"
wright browser snapshot --full --max-chars 2000 --session %[2]s 2>&1
wright browser navigate http://blocked.localhost:%[3]s/ --session %[2]s 2>&1`, site.URL, name, port)
	srv := modeltest.New(t, modeltest.Bash("explore with wright browser", script), modeltest.Done(model.FieldBash, "done", "x"))
	dir := filepath.Join(t.TempDir(), "run")
	r := wright(t, append(runArgs(t, srv, dir), "-c", "env.sandbox=bwrap", "-c", "browser.blocked_domains=[blocked.localhost]")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr.String())
	}
	msgs := srv.Requests()[1].Chat().Messages
	text := msgs[len(msgs)-1].Text()
	// The run's policy proxy answers the blocked host with its refusal.
	for _, want := range []string{"open=0", `heading "Inside the sandbox"`, `link "Next"`, "refused by the network policy: host blocked.localhost"} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q in the observation:\n%s", want, text)
		}
	}
	gone(t, "browser serve --session "+name)
}
