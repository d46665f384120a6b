package mcp_test

// These tests drive `wright mcp` from real MCP clients: the official
// TypeScript SDK under Node (testdata/clients/bridge.mjs, which a test
// feeds one request a line) and MCP Inspector's CLI, both installed from
// npm into a cache folder on first use. The server is the wright binary,
// built once; the browser is the machine's Chromium; the model and the
// judge are modeltest's HTTP stand-ins.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"wright/model"
	"wright/model/modeltest"
)

// wrightBin is the binary under test, built once for the package.
var wrightBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wright-mcp-bin-")
	if err != nil {
		panic(err)
	}
	wrightBin = filepath.Join(dir, "wright")
	out, err := exec.Command("go", "build", "-o", wrightBin, "wright/cmd/wright").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		panic("build wright: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testKey is the key the server's environment holds; no answer may hold it.
const testKey = "sk-wright-mcp-test-0123456789abcdef"

// clientsDir installs the clients' package.json into a cache folder keyed
// by its hash (once; a new pin makes a new folder) and returns the folder,
// with bridge.mjs copied in beside node_modules so that its imports resolve.
func clientsDir(t *testing.T) string {
	t.Helper()
	pkg, err := os.ReadFile(filepath.Join("testdata", "clients", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not on PATH (make test-deps installs it): the MCP client tests need Node")
	}
	sum := sha256.Sum256(pkg)
	root := os.Getenv("WRIGHT_MCP_CLIENTS")
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Fatal(err)
		}
		root = filepath.Join(cache, "wright-mcp-clients")
	}
	final := filepath.Join(root, hex.EncodeToString(sum[:8]))
	marker := filepath.Join(final, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(marker); err != nil {
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		tmp, err := os.MkdirTemp(root, ".install-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		if err := os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--silent")
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("npm install of the MCP clients failed (no registry here?): %v\n%s", err, out)
		}
		// Renamed whole, so a parallel test process never sees half an
		// install; a lost race leaves the other's, which is the same.
		if err := os.Rename(tmp, final); err != nil {
			if _, serr := os.Stat(marker); serr != nil {
				t.Fatal(err)
			}
		}
	}
	bridge, err := os.ReadFile(filepath.Join("testdata", "clients", "bridge.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	// Written under a name of this content, so parallel tests never read
	// a half-written file.
	bsum := sha256.Sum256(bridge)
	name := filepath.Join(final, "bridge-"+hex.EncodeToString(bsum[:6])+".mjs")
	if _, err := os.Stat(name); err != nil {
		tmp := name + ".tmp" + strconv.Itoa(os.Getpid())
		if err := os.WriteFile(tmp, bridge, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, name); err != nil {
			t.Fatal(err)
		}
	}
	return final
}

func bridgeScript(t *testing.T) string {
	dir := clientsDir(t)
	m, _ := filepath.Glob(filepath.Join(dir, "bridge-*.mjs"))
	bridge, _ := os.ReadFile(filepath.Join("testdata", "clients", "bridge.mjs"))
	sum := sha256.Sum256(bridge)
	want := filepath.Join(dir, "bridge-"+hex.EncodeToString(sum[:6])+".mjs")
	for _, p := range m {
		if p == want {
			return p
		}
	}
	t.Fatalf("bridge not installed in %s", dir)
	return ""
}

// serverEnv is the environment of every wright mcp the tests start.
func serverEnv(t *testing.T) []string {
	return append(os.Environ(), "OPENAI_API_KEY="+testKey, "WRIGHT_LIBRARY="+filepath.Join(t.TempDir(), "library"))
}

// bridge is a running bridge.mjs: the TypeScript SDK's client.
type bridge struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	next   int
	server int // the wright mcp process's pid, when the client started it
	stderr *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startBridge starts the client: over stdio with the server's command
// line, or over HTTP with a URL (and the token in env).
func startBridge(t *testing.T, env []string, dir string, args ...string) *bridge {
	t.Helper()
	cmd := exec.Command("node", append([]string{bridgeScript(t)}, args...)...)
	cmd.Env, cmd.Dir = env, dir
	b := &bridge{t: t, cmd: cmd, stderr: &lockedBuffer{}}
	cmd.Stderr = b.stderr
	var err error
	if b.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	b.out = bufio.NewReaderSize(stdout, 1<<20)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	var ready struct {
		Op  string `json:"op"`
		Pid int    `json:"pid"`
	}
	b.read(&ready)
	if ready.Op != "ready" {
		t.Fatalf("bridge did not start: %+v\n%s", ready, b.stderr.String())
	}
	b.server = ready.Pid
	return b
}

func (b *bridge) read(v any) {
	b.t.Helper()
	line, err := b.out.ReadBytes('\n')
	if err != nil {
		b.t.Fatalf("bridge: %v\nstderr:\n%s", err, b.stderr.String())
	}
	if err := json.Unmarshal(line, v); err != nil {
		b.t.Fatalf("bridge answer %q: %v", line, err)
	}
}

// answer is one bridge answer.
type answer struct {
	ID    int    `json:"id"`
	Error string `json:"error"`
	Chars int    `json:"chars"`
	MS    int    `json:"ms"`
	Tools []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"tools"`
	Result struct {
		Content []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			MimeType string `json:"mimeType"`
			Data     string `json:"data"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
	Progress []struct {
		Progress float64 `json:"progress"`
		Total    float64 `json:"total"`
		Message  string  `json:"message"`
	} `json:"progress"`
	Cancelled bool `json:"cancelled"`
	Resources []struct {
		URI string `json:"uri"`
	} `json:"resources"`
	Contents []struct {
		URI  string `json:"uri"`
		Text string `json:"text"`
	} `json:"contents"`
	raw string
}

// text is the answer's text contents, joined.
func (a answer) text() string {
	var parts []string
	for _, c := range a.Result.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (b *bridge) do(req map[string]any) answer {
	b.t.Helper()
	b.next++
	req["id"] = b.next
	line, _ := json.Marshal(req)
	if _, err := b.in.Write(append(line, '\n')); err != nil {
		b.t.Fatalf("bridge: %v\n%s", err, b.stderr.String())
	}
	raw, err := b.out.ReadBytes('\n')
	if err != nil {
		b.t.Fatalf("bridge: %v\nstderr:\n%s", err, b.stderr.String())
	}
	var a answer
	if err := json.Unmarshal(raw, &a); err != nil {
		b.t.Fatalf("bridge answer %q: %v", raw, err)
	}
	a.raw = string(raw)
	if strings.Contains(a.raw, testKey) {
		b.t.Errorf("an answer holds the server's API key: %s", a.raw)
	}
	return a
}

// call calls a tool and fails the test on a protocol error or a tool error.
func (b *bridge) call(tool string, args map[string]any) answer {
	b.t.Helper()
	a := b.do(map[string]any{"op": "call", "tool": tool, "args": args})
	if a.Error != "" || a.Result.IsError {
		b.t.Fatalf("%s %v: %s%s\nstderr:\n%s", tool, args, a.Error, a.text(), b.stderr.String())
	}
	return a
}

func (b *bridge) close() {
	b.t.Helper()
	b.do(map[string]any{"op": "close"})
	// The server's stderr reaches the bridge's (stdio's "inherit"): its
	// log holds no key either.
	if strings.Contains(b.stderr.String(), testKey) {
		b.t.Errorf("the server's log holds its API key:\n%s", b.stderr.String())
	}
}

// refOf finds the ref of the snapshot line naming role and name.
func refOf(t *testing.T, snapshot, role, name string) string {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(role+` "`+name+`"`) + `[^\n]*\[ref=(e\d+)\]`)
	m := re.FindStringSubmatch(snapshot)
	if m == nil {
		t.Fatalf("no %s %q with a ref in:\n%s", role, name, snapshot)
	}
	return m[1]
}

// greeter is the test's own site: a field, a button and what it writes.
func greeter(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Greeter</title></head><body><h1>Greeter</h1>
<label>Your name <input id="n"></label>
<button onclick="document.getElementById('out').textContent='Hello, '+document.getElementById('n').value+'!'">Greet</button>
<p id="out"></p></body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	parent := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: fields
		// start after the last ')'.
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, err := strconv.Atoi(fields[1]); err == nil {
			parent[ppid] = append(parent[ppid], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range parent[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// sleepers are the processes running the cancel test's own sleep.
func sleepers() []int { return sleepersOf("97.31") }

// sleepersOf are the processes running `sleep arg`.
func sleepersOf(arg string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if string(b) == "sleep\x00"+arg+"\x00" && len(alive([]int{p})) == 1 {
			out = append(out, p)
		}
	}
	return out
}

// alive is the subset of pids that still run (zombies count as gone).
func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		s := string(b)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] == "Z" {
			continue
		}
		out = append(out, p)
	}
	return out
}

// waitGone waits until none of pids runs.
func waitGone(t *testing.T, pids []int, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if len(alive(pids)) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s: processes still running: %v", what, alive(pids))
}

// drivePage is the browser part both transports share: navigate, take a
// snapshot, fill and click by refs, run code, read the result.
func drivePage(t *testing.T, c *bridge, site string) {
	list := c.do(map[string]any{"op": "list"})
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"navigate", "snapshot", "click", "fill", "run_code", "screenshot", "script_make", "script_rerun", "script_list"} {
		if !names[want] {
			t.Errorf("tools/list lacks %s (has %v)", want, names)
		}
	}
	t.Logf("tools/list: %d tools, %d characters", len(list.Tools), list.Chars)

	nav := c.call("navigate", map[string]any{"url": site})
	t.Logf("navigate: %d characters, %d ms", nav.Chars, nav.MS)
	field := refOf(t, nav.text(), "textbox", "Your name")
	button := refOf(t, nav.text(), "button", "Greet")
	fill := c.call("fill", map[string]any{"ref": field, "text": "Ada"})
	if !strings.Contains(fill.text(), ".fill(") {
		t.Errorf("fill does not say the Playwright line it ran:\n%s", fill.text())
	}
	click := c.call("click", map[string]any{"ref": button})
	if !strings.Contains(click.text(), "Hello, Ada!") {
		t.Errorf("click's result does not show what changed:\n%s", click.text())
	}
	t.Logf("fill: %d characters, click: %d characters (%d ms)", fill.Chars, click.Chars, click.MS)
	full := c.call("snapshot", map[string]any{"mode": "full"})
	if !strings.Contains(full.text(), "Hello, Ada!") || !strings.Contains(full.text(), "[ref=") {
		t.Errorf("full snapshot:\n%s", full.text())
	}
	code := c.call("run_code", map[string]any{"code": "greeting = page.locator('#out').inner_text()\nprint(greeting.upper())"})
	if !strings.Contains(code.text(), "HELLO, ADA!") {
		t.Errorf("run_code's output:\n%s", code.text())
	}
	// The namespace is kept between calls.
	again := c.call("run_code", map[string]any{"code": "print(len(greeting))"})
	if !strings.Contains(again.text(), "11") {
		t.Errorf("run_code lost its variable:\n%s", again.text())
	}
	shot := c.call("screenshot", map[string]any{})
	img := false
	for _, ct := range shot.Result.Content {
		img = img || ct.Type == "image" && ct.Data != "" && strings.HasPrefix(ct.MimeType, "image/")
	}
	if !img {
		t.Errorf("screenshot has no image content: %.300s", shot.raw)
	}
	stale := c.do(map[string]any{"op": "call", "tool": "click", "args": map[string]any{"ref": "e999"}})
	if !stale.Result.IsError || !strings.Contains(stale.text(), "e999") {
		t.Errorf("an unknown ref is not a clear tool error: %s", stale.raw)
	}
}

func TestTypeScriptClientOverStdio(t *testing.T) {
	t.Parallel()
	site := greeter(t)
	dir := t.TempDir()
	c := startBridge(t, serverEnv(t), dir, "stdio", wrightBin, "mcp", "-c", "browser.headless=true")
	drivePage(t, c, site)
	if c.server == 0 {
		t.Fatal("the bridge did not say the server's pid")
	}
	below := descendants(c.server)
	if len(alive(below)) == 0 {
		t.Fatal("no browser processes below the server while a session is open")
	}
	c.close()
	// The client closed stdin: the server ends, and its browser with it.
	waitGone(t, append(below, c.server), "after the stdio client closed")
}

func TestTypeScriptClientOverHTTP(t *testing.T) {
	t.Parallel()
	site := greeter(t)
	dir := t.TempDir()
	srv, url, token := startHTTPServer(t, dir, "--keepalive", "1s")
	env := append(serverEnv(t), "WRIGHT_MCP_TOKEN="+token)
	c := startBridge(t, env, dir, "http", url)
	drivePage(t, c, site)
	// A second MCP session gets a browser of its own: neither sees the
	// other's page.
	other := startBridge(t, env, dir, "http", url)
	if nav := other.call("navigate", map[string]any{"url": shop(t)}); !strings.Contains(nav.text(), "Acme") {
		t.Errorf("the second session's page:\n%s", nav.text())
	}
	if snap := c.call("snapshot", map[string]any{"mode": "full"}); !strings.Contains(snap.text(), "Hello, Ada!") || strings.Contains(snap.text(), "Acme") {
		t.Errorf("the first session's page after the second navigated:\n%s", snap.text())
	}
	other.close()
	below := descendants(srv.Process.Pid)
	if len(alive(below)) == 0 {
		t.Fatal("no browser processes below the server while a session is open")
	}
	c.close()
	// The session ended (DELETE) and the server runs on: the session's
	// Chromium, driver and runner are gone.
	waitGone(t, below, "after the HTTP session ended")
	if len(alive([]int{srv.Process.Pid})) != 1 {
		t.Error("the HTTP server ended with its session")
	}

	// A client that dies without a word: the pings go unanswered and the
	// session ends, its browser with it, while the server runs on.
	gone := startBridge(t, env, dir, "http", url)
	gone.call("navigate", map[string]any{"url": site})
	time.Sleep(3 * time.Second) // idle with pings answered: the session lives
	gone.call("snapshot", map[string]any{})
	before := alive(descendants(srv.Process.Pid))
	if len(before) == 0 {
		t.Fatal("no browser below the server for the third session")
	}
	gone.cmd.Process.Kill()
	waitGone(t, before, "after the HTTP client died")

	// No token, a wrong one, or a Host that is not loopback: refused.
	for _, tc := range []struct {
		auth, host string
		want       int
	}{{"", "", 401}, {"Bearer nope", "", 401}, {"Bearer " + token, "evil.example", 403}} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("auth %q host %q: status %d, want %d", tc.auth, tc.host, resp.StatusCode, tc.want)
		}
	}
}

// startHTTPServer starts wright mcp --http on a free port and reads the URL
// and token it prints.
func startHTTPServer(t *testing.T, dir string, extra ...string) (*exec.Cmd, string, string) {
	t.Helper()
	args := append([]string{"mcp", "--http", "127.0.0.1:0", "-c", "browser.headless=true"}, extra...)
	cmd := exec.Command(wrightBin, args...)
	cmd.Env, cmd.Dir = serverEnv(t), dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	r := bufio.NewReader(stdout)
	var url, token string
	for url == "" || token == "" {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("wright mcp --http: %v\n%s", err, stderr.String())
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "url: "); ok {
			url = v
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "token: "); ok {
			token = v
		}
	}
	go io.Copy(io.Discard, r)
	return cmd, url, token
}

// The scripts tests look up a price on a small shop.
var prices = map[string]string{"Office chair": "120.5", "Desk lamp": "35", "Monitor arm": "89"}

func shop(t *testing.T) string { return versionedShop(t, new(atomic.Int32)) }

// versionedShop is the shop whose search button is "Find" until version
// holds 2, then "Search now" (a redesign a script must be healed for).
func versionedShop(t *testing.T, version *atomic.Int32) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			button := "Find"
			if version.Load() == 2 {
				button = "Search now"
			}
			fmt.Fprintf(w, `<!doctype html><html><body><h1>Acme</h1>
<form action="/search"><label>Product <input name="q"></label><button type="submit">%s</button></form></body></html>`, button)
		case "/search":
			q := r.URL.Query().Get("q")
			p, ok := prices[q]
			if !ok {
				fmt.Fprint(w, `<!doctype html><h1>No such product</h1>`)
				return
			}
			fmt.Fprintf(w, `<!doctype html><h1 id="name">%s</h1><p>Price: <span id="price">%s</span></p>`, q, p)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

const priceSchema = `{"type": "object", "properties": {"item": {"type": "string"}, "price": {"type": "number"}}, "required": ["item", "price"], "additionalProperties": false}`

// priceTool is the crafted tool the scripted agent writes.
const priceTool = `"""Look up a product's price on the Acme shop."""
import argparse, json, os
from playwright.sync_api import sync_playwright


def run(item: str = "Office chair") -> dict:
    run_dir = os.environ.get("WRIGHT_RUN_DIR", "out")
    os.makedirs(os.path.join(run_dir, "screenshots"), exist_ok=True)
    with open(os.environ["TASK_JSON"]) as f:
        start = json.load(f)["start_url"]
    with sync_playwright() as p:
        browser = p.chromium.launch()
        page = browser.new_page()
        page.set_default_timeout(5000)
        page.goto(start)
        page.get_by_label("Product").fill(item)
        page.get_by_role("button", name="Find").click()
        page.locator("#price").wait_for()
        page.screenshot(path=os.path.join(run_dir, "screenshots", "final_execution_1_price.png"))
        result = {"item": page.locator("#name").inner_text(), "price": float(page.locator("#price").inner_text())}
        browser.close()
    with open(os.path.join(run_dir, "final_script_log.txt"), "a") as f:
        f.write("step 1 action: looked up %s: %s\n" % (item, json.dumps(result)))
    return result


def main():
    ap = argparse.ArgumentParser(description="Look up a product's price. Returns item and price.")
    ap.add_argument("--item", dest="item", default="Office chair", help="the product to look up")
    args = ap.parse_args()
    result = run(args.item)
    with open(os.path.join(os.environ.get("WRIGHT_RUN_DIR", "out"), "result.json"), "w") as f:
        json.dump(result, f)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
`

var (
	judgeTaskItem   = regexp.MustCompile(`price of \\?"([^"\\]+)\\?"`)
	judgeResultItem = regexp.MustCompile(`"item": "([^"]+)"`)
)

// judge scores every screenshot 5 and passes a run whose result names the
// item its task asks about.
func judge(t *testing.T) *modeltest.Server {
	return modeltest.New(t, modeltest.Func(func(r modeltest.Request) modeltest.Response {
		msgs := r.Chat().Messages
		text := msgs[len(msgs)-1].Text()
		if !strings.Contains(text, "----- result start -----") {
			return modeltest.Reply("Score: 5\nReasoning: the page shows a product and its price.").WithUsage(100, 10)
		}
		task, res := judgeTaskItem.FindStringSubmatch(text), judgeResultItem.FindStringSubmatch(text)
		if task != nil && res != nil && task[1] == res[1] {
			return modeltest.Reply("The result matches the product page.\nStatus: success").WithUsage(200, 20)
		}
		return modeltest.Reply("The result names another product.\nStatus: failure").WithUsage(200, 20)
	}).Forever())
}

// modelFlags point wright mcp's runs at the stand-ins: the agent, the
// judge, the rerun gate.
func modelFlags(agent, judge *modeltest.Server) []string {
	return []string{"--base-url", agent.URL + "/v1", "--model", "scripted",
		"-c", "gate.model={name: judge, base_url: " + strconv.Quote(judge.URL+"/v1") + "}",
		"-c", "gate.mode=rerun", "-c", "model.retry={attempts: 2, initial_delay_seconds: 0.01, max_delay_seconds: 0.02}"}
}

func TestScriptMakeThenRerunOverMCP(t *testing.T) {
	t.Parallel()
	site := shop(t)
	agent := modeltest.New(t,
		modeltest.Bash("write the tool", "cat > final_script.py <<'EOF'\n"+priceTool+"EOF\npython3 final_script.py --help >/dev/null && echo ok"),
		modeltest.Done(model.FieldBash, "the gate reruns it", `{"item": "Office chair", "price": 120.5}`))
	dir := t.TempDir()
	args := append([]string{"stdio", wrightBin, "mcp", "--no-browser"}, modelFlags(agent, judge(t))...)
	c := startBridge(t, serverEnv(t), dir, args...)

	var schema map[string]any
	if err := json.Unmarshal([]byte(priceSchema), &schema); err != nil {
		t.Fatal(err)
	}
	made := c.do(map[string]any{"op": "call", "tool": "script_make", "args": map[string]any{
		"task": `On the Acme shop, find the price of "Office chair" and report it.`, "start_url": site,
		"output_schema": schema, "name": "price"}})
	if made.Error != "" || made.Result.IsError {
		t.Fatalf("script_make: %s %s\n%s", made.Error, made.text(), c.stderr.String())
	}
	var ans struct {
		Verified bool           `json:"verified"`
		Why      string         `json:"why"`
		Result   map[string]any `json:"result"`
		RunDir   string         `json:"run_dir"`
		Script   string         `json:"script"`
		Saved    *struct {
			Name    string `json:"name"`
			Version int    `json:"version"`
		} `json:"saved"`
		Resources []string `json:"resources"`
	}
	if err := json.Unmarshal([]byte(made.text()), &ans); err != nil {
		t.Fatalf("script_make's answer: %v\n%s", err, made.text())
	}
	if !ans.Verified || ans.Saved == nil || ans.Saved.Name != "price" || ans.Saved.Version != 1 || ans.Result["price"] != 120.5 || !strings.Contains(ans.Script, "def run(") {
		t.Fatalf("script_make: %+v", ans)
	}
	var steps []string
	for _, p := range made.Progress {
		steps = append(steps, fmt.Sprintf("%g/%g %s", p.Progress, p.Total, p.Message))
	}
	t.Logf("script_make (%d ms): verified=%v why=%q\nprogress:\n  %s", made.MS, ans.Verified, ans.Why, strings.Join(steps, "\n  "))
	if len(made.Progress) < 4 || !strings.Contains(strings.Join(steps, "\n"), "step 1: write the tool") || !strings.Contains(strings.Join(steps, "\n"), "step 2") {
		t.Errorf("progress notifications per step: %v", steps)
	}

	rerun := c.call("script_rerun", map[string]any{"name": "price", "params": map[string]any{"item": "Desk lamp"}})
	var rep struct {
		Verified bool           `json:"verified"`
		Output   map[string]any `json:"output"`
		Task     string         `json:"task"`
	}
	if err := json.Unmarshal([]byte(rerun.text()), &rep); err != nil {
		t.Fatalf("script_rerun's answer: %v\n%s", err, rerun.text())
	}
	if !rep.Verified || rep.Output["item"] != "Desk lamp" || rep.Output["price"] != 35.0 || !strings.Contains(rep.Task, `"Desk lamp"`) {
		t.Fatalf("script_rerun: %+v", rep)
	}
	bad := c.do(map[string]any{"op": "call", "tool": "script_rerun", "args": map[string]any{"name": "price", "params": map[string]any{"colour": "red"}}})
	if !bad.Result.IsError || !strings.Contains(bad.text(), "colour") {
		t.Errorf("an unknown parameter is not a tool error naming it: %s", bad.raw)
	}

	list := c.call("script_list", map[string]any{})
	if !strings.Contains(list.text(), `"name": "price"`) || !strings.Contains(list.text(), `"reruns": 1`) {
		t.Errorf("script_list:\n%s", list.text())
	}
	show := c.call("script_show", map[string]any{"name": "price"})
	if !strings.Contains(show.text(), "def run(") || !strings.Contains(show.text(), `{item}`) {
		t.Errorf("script_show:\n%.500s", show.text())
	}

	res := c.do(map[string]any{"op": "resources"})
	uris := map[string]bool{}
	for _, r := range res.Resources {
		uris[r.URI] = true
	}
	for _, u := range ans.Resources {
		if !uris[u] {
			t.Errorf("resources/list lacks %s (has %v)", u, uris)
		}
	}
	script := c.do(map[string]any{"op": "read", "uri": "wright://script/price"})
	if len(script.Contents) != 1 || !strings.Contains(script.Contents[0].Text, "def run(") {
		t.Errorf("reading the script: %.300s", script.raw)
	}
	id := filepath.Base(ans.RunDir)
	stepsMD := c.do(map[string]any{"op": "read", "uri": "wright://run/" + id + "/steps.md"})
	if len(stepsMD.Contents) != 1 || !strings.Contains(stepsMD.Contents[0].Text, "write the tool") {
		t.Errorf("reading steps.md: %.300s", stepsMD.raw)
	}
	escape := c.do(map[string]any{"op": "read", "uri": "wright://run/../result.json"})
	if escape.Error == "" {
		t.Errorf("a run id with a path in it was read: %.300s", escape.raw)
	}
	c.close()
}

func TestCancelledScriptMakeLeavesASavedRunAndNoProcess(t *testing.T) {
	t.Parallel()
	agent := modeltest.New(t,
		modeltest.Bash("wait for the page", "sleep 97.31; echo slept"),
		modeltest.Done(model.FieldBash, "never reached", "nothing"))
	dir := t.TempDir()
	args := append([]string{"stdio", wrightBin, "mcp", "--no-browser"}, modelFlags(agent, judge(t))...)
	c := startBridge(t, serverEnv(t), dir, args...)
	// Cancelled a moment after the second notice (the run's start, then
	// step 1's): the sleep is running by then, as the test sees.
	var a answer
	done := make(chan struct{})
	go func() {
		defer close(done)
		a = c.do(map[string]any{"op": "call", "tool": "script_make", "cancel_after": 2, "cancel_delay_ms": 1500, "args": map[string]any{
			"task": "Wait a while.", "name": "never"}})
	}()
	sawSleep := false
	for waiting := true; waiting; {
		select {
		case <-done:
			waiting = false
		case <-time.After(100 * time.Millisecond):
			sawSleep = sawSleep || len(sleepers()) > 0
		}
	}
	if !sawSleep {
		t.Error("the run's sleep never ran: the test cancels nothing")
	}
	if !a.Cancelled {
		t.Fatalf("the call was not cancelled: %s", a.raw)
	}
	var runDir string
	for _, p := range a.Progress {
		if id, ok := strings.CutPrefix(p.Message, "run "); ok {
			runDir = filepath.Join(dir, "runs", id)
		}
	}
	if runDir == "" {
		t.Fatalf("no run folder in the progress: %+v", a.Progress)
	}
	var res struct {
		ExitStatus string `json:"exit_status"`
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(runDir, "result.json")); err == nil && json.Unmarshal(b, &res) == nil && res.ExitStatus != "" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if res.ExitStatus != "Interrupted" {
		t.Fatalf("result.json of the cancelled run: %q", res.ExitStatus)
	}
	for _, f := range []string{"trajectory.json", "debug/steps.md", "config.yaml"} {
		if _, err := os.Stat(filepath.Join(runDir, f)); err != nil {
			t.Errorf("the cancelled run lacks %s: %v", f, err)
		}
	}
	// The server lives on (the session is still open), with nothing
	// below it: the shell and its sleep are gone.
	waitGone(t, descendants(c.server), "after a cancelled script_make")
	if left := sleepers(); len(left) > 0 {
		t.Errorf("the cancelled run's sleep outlived it: %v", left)
	}
	if len(alive([]int{c.server})) != 1 {
		t.Error("the server ended with the cancelled call")
	}
	// The session still serves calls.
	if l := c.call("script_list", map[string]any{}); strings.Contains(l.text(), "never") {
		t.Errorf("a cancelled run saved a script:\n%s", l.text())
	}
	c.close()
}

func TestInspectorCLI(t *testing.T) {
	t.Parallel()
	dir := clientsDir(t)
	inspector := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	site := greeter(t)
	work := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, inspector, append([]string{"--cli"}, args...)...)
		cmd.Env, cmd.Dir = append(serverEnv(t), "MCP_CATALOG_PATH="+filepath.Join(work, "catalog.json")), work
		out, err := cmd.Output()
		if err != nil {
			stderr := ""
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr)
		}
		if strings.Contains(string(out), testKey) {
			t.Errorf("the inspector's output holds the key")
		}
		return string(out)
	}
	// Over stdio: the inspector starts wright mcp.
	out := run(wrightBin, "mcp", "-c", "browser.headless=true", "--method", "tools/list")
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Tools) < 20 {
		t.Fatalf("tools/list over stdio: %v\n%.500s", err, out)
	}
	out = run(wrightBin, "mcp", "-c", "browser.headless=true", "--method", "tools/call", "--tool-name", "navigate", "--tool-arg", "url="+site)
	if !strings.Contains(out, `textbox \"Your name\"`) {
		t.Errorf("navigate over the inspector:\n%s", out)
	}
	// Over HTTP, with the token.
	_, url, token := startHTTPServer(t, work)
	out = run(url, "--transport", "http", "--header", "Authorization: Bearer "+token, "--method", "tools/call", "--tool-name", "script_list")
	if !strings.Contains(out, `"content"`) || strings.Contains(out, `"isError": true`) {
		t.Errorf("script_list over HTTP:\n%s", out)
	}
}

// actionJSON is one reply of the action protocol, as a model writes it.
func actionJSON(thought, bash string, done bool, final string) string {
	b, _ := json.Marshal(map[string]any{"thought": thought, "bash_command": bash, "done": done, "final_response": final})
	return string(b)
}

// With model.api sampling and no model endpoint at all, script_make asks
// the client's own model (the agent's turns and the judge's, screenshots
// included) and saves a verified script.
func TestSamplingMakesAScriptWithTheClientsModel(t *testing.T) {
	t.Parallel()
	t.Run("rerun gate", func(t *testing.T) {
		t.Parallel()
		testSampling(t, "rerun", []string{
			actionJSON("write the tool", "cat > final_script.py <<'EOF'\n"+priceTool+"EOF\npython3 final_script.py --help >/dev/null && echo ok", false, ""),
			actionJSON("the gate reruns it", "", true, `{"item": "Office chair", "price": 120.5}`),
		})
	})
	// The file gate: the agent runs the script and asks `wright reflect`
	// from its shell, which the harness answers with the client's model.
	t.Run("file gate", func(t *testing.T) {
		t.Parallel()
		testSampling(t, "file", []string{
			actionJSON("write and run the tool", "cat > final_script.py <<'EOF'\n"+priceTool+"EOF\nmkdir -p final_runs/run_1 && WRIGHT_RUN_DIR=final_runs/run_1 python3 final_script.py", false, ""),
			actionJSON("ask the judge", "wright reflect", false, ""),
			actionJSON("judged", "", true, `{"item": "Office chair", "price": 120.5}`),
		})
	})
}

func testSampling(t *testing.T, gateMode string, agentReplies []string) {
	site := shop(t)
	script, _ := json.Marshal(map[string]any{
		"agent":        agentReplies,
		"agent_marker": "bash_command",
		"final_marker": "----- result start -----",
		"judge_score":  "Score: 5\nReasoning: the page shows the product and its price.",
		"judge_final":  "The result matches the product page.\nStatus: success",
	})
	dir := t.TempDir()
	env := append(serverEnv(t), "WRIGHT_TEST_SAMPLING="+string(script))
	c := startBridge(t, env, dir, "stdio", wrightBin, "mcp", "--no-browser", "-c", "model.api=sampling", "-c", "gate.mode="+gateMode)
	var schema map[string]any
	_ = json.Unmarshal([]byte(priceSchema), &schema)
	made := c.call("script_make", map[string]any{"task": `On the Acme shop, find the price of "Office chair" and report it.`,
		"start_url": site, "output_schema": schema, "name": "sampled"})
	var ans struct {
		Verified bool `json:"verified"`
		Saved    *struct {
			Name string `json:"name"`
		} `json:"saved"`
	}
	if err := json.Unmarshal([]byte(made.text()), &ans); err != nil || !ans.Verified || ans.Saved == nil {
		t.Fatalf("script_make over sampling: %v\n%s\n%s", err, made.text(), c.stderr.String())
	}
	var st struct {
		Stats struct {
			Requests, Agent, Judge, Images int
		} `json:"stats"`
	}
	raw := c.do(map[string]any{"op": "sampling_stats"}).raw
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		t.Fatal(err)
	}
	t.Logf("sampling: %+v", st.Stats)
	if st.Stats.Agent != len(agentReplies) || st.Stats.Judge < 2 || st.Stats.Images < 1 {
		t.Errorf("the client's model was not the agent and the judge: %+v", st.Stats)
	}
	// A client without sampling is told so, and nothing runs.
	plain := startBridge(t, serverEnv(t), t.TempDir(), "stdio", wrightBin, "mcp", "--no-browser", "-c", "model.api=sampling")
	refused := plain.do(map[string]any{"op": "call", "tool": "script_make", "args": map[string]any{"task": "anything"}})
	if !refused.Result.IsError || !strings.Contains(refused.text(), "offers no sampling") {
		t.Errorf("sampling without a client that offers it: %s", refused.raw)
	}
	c.close()
	plain.close()
}

// A client that dies mid script_make ends the run as a cancel does: the
// server sees its stdin close, the run stops Interrupted with its folder
// saved, and the server exits leaving no process.
func TestClientDeathEndsTheRun(t *testing.T) {
	t.Parallel()
	agent := modeltest.New(t,
		modeltest.Bash("wait for the page", "sleep 97.32; echo slept"),
		modeltest.Done(model.FieldBash, "never reached", "nothing"))
	dir := t.TempDir()
	args := append([]string{"stdio", wrightBin, "mcp", "--no-browser"}, modelFlags(agent, judge(t))...)
	c := startBridge(t, serverEnv(t), dir, args...)
	line, _ := json.Marshal(map[string]any{"op": "call", "id": 1, "tool": "script_make", "args": map[string]any{"task": "Wait a while."}})
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for len(sleepersOf("97.32")) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the run's sleep never started\n%s", c.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	below := descendants(c.server)
	c.cmd.Process.Kill() // the client dies; the server's stdin closes
	waitGone(t, append(below, c.server), "after the client died")
	if left := sleepersOf("97.32"); len(left) > 0 {
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
}

// script_heal repairs a script the site broke: the rerun fails on the
// redesigned shop, the heal's agent run writes the next version, and that
// version's rerun is verified.
func TestScriptHealOverMCP(t *testing.T) {
	t.Parallel()
	var version atomic.Int32
	site := versionedShop(t, &version)
	healed := strings.Replace(priceTool, `name="Find"`, `name="Search now"`, 1)
	agent := modeltest.New(t,
		modeltest.Bash("write the tool", "cat > final_script.py <<'EOF'\n"+priceTool+"EOF\necho ok"),
		modeltest.Done(model.FieldBash, "the gate reruns it", `{"item": "Office chair", "price": 120.5}`),
		modeltest.Bash("the button was renamed", "cat > final_script.py <<'EOF'\n"+healed+"EOF\necho ok"),
		modeltest.Done(model.FieldBash, "the gate reruns the repair", `{"item": "Office chair", "price": 120.5}`))
	dir := t.TempDir()
	args := append([]string{"stdio", wrightBin, "mcp", "--no-browser"}, modelFlags(agent, judge(t))...)
	c := startBridge(t, serverEnv(t), dir, args...)
	var schema map[string]any
	_ = json.Unmarshal([]byte(priceSchema), &schema)
	c.call("script_make", map[string]any{"task": `On the Acme shop, find the price of "Office chair" and report it.`,
		"start_url": site, "output_schema": schema, "name": "price"})

	version.Store(2)
	broken := c.call("script_rerun", map[string]any{"name": "price"})
	if !strings.Contains(broken.text(), `"verified": false`) {
		t.Fatalf("the rerun on the redesigned shop:\n%s", broken.text())
	}
	heal := c.call("script_heal", map[string]any{"name": "price", "params": map[string]any{"item": "Monitor arm"}})
	var rep struct {
		Verified bool           `json:"verified"`
		Version  int            `json:"version"`
		Output   map[string]any `json:"output"`
		Heal     *struct {
			Saved int `json:"saved_version"`
		} `json:"heal"`
	}
	if err := json.Unmarshal([]byte(heal.text()), &rep); err != nil {
		t.Fatalf("script_heal's answer: %v\n%s", err, heal.text())
	}
	if !rep.Verified || rep.Version != 2 || rep.Heal == nil || rep.Heal.Saved != 2 || rep.Output["item"] != "Monitor arm" {
		t.Fatalf("script_heal: %+v\n%s", rep, heal.text())
	}
	if len(heal.Progress) < 3 {
		t.Errorf("the heal's steps sent no progress: %+v", heal.Progress)
	}
	show := c.call("script_show", map[string]any{"name": "price"})
	if !strings.Contains(show.text(), `"version": 2`) || !strings.Contains(show.text(), "Search now") {
		t.Errorf("script_show after the heal:\n%.400s", show.text())
	}
	c.close()
}
