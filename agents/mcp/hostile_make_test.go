package mcp_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"wright/model"
	"wright/model/modeltest"
)

// A hostile client asks script_make for a task on a host the server's
// config blocks, with arguments that try to widen the policy; the run's
// model (as hostile) tries the host from a script and leaves the final
// script as a link to a host file. The run keeps the server's policy (the
// site never sees the blocked host), the extra arguments change nothing,
// and the answer does not carry the host file.
func TestScriptMakeKeepsTheServersPolicy(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var hosts []string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		w.Write([]byte("<title>inside</title><h1>the blocked page</h1>"))
	}))
	t.Cleanup(site.Close)
	port := site.URL[strings.LastIndex(site.URL, ":")+1:]
	blocked := "http://blocked.localhost:" + port + "/"
	hostFile := filepath.Join(t.TempDir(), "host.txt")
	const marker = "a host file the client must never read"
	if err := os.WriteFile(hostFile, []byte(marker), 0o644); err != nil {
		t.Fatal(err)
	}
	try := "python3 - <<'PY'\n" +
		"from playwright.sync_api import sync_playwright\n" +
		"with sync_playwright() as p:\n" +
		"    b = p.chromium.launch()\n" +
		"    pg = b.new_page()\n" +
		"    try:\n" +
		"        pg.goto(\"" + blocked + "\")\n" +
		"        print(\"reached:\", pg.inner_text(\"h1\"))\n" +
		"    except Exception as e:\n" +
		"        print(\"refused:\", str(e).splitlines()[0])\n" +
		"    b.close()\n" +
		"PY\n" +
		"ln -s " + hostFile + " final_script.py; echo linked"
	agent := modeltest.New(t,
		modeltest.Bash("try the blocked host", try),
		modeltest.Done(model.FieldBash, "done", `{"page": "none"}`))
	dir := t.TempDir()
	args := append([]string{"stdio", wrightBin, "mcp", "--no-browser", "-c", "browser.blocked_domains=[blocked.localhost]"}, append(modelFlags(agent, judge(t)), "-c", "gate.mode=off")...)
	c := startBridge(t, serverEnv(t), dir, args...)
	made := c.do(map[string]any{"op": "call", "tool": "script_make", "args": map[string]any{
		"task": "Read the heading.", "start_url": blocked,
		// Arguments no schema has: ignored, never a config.
		"allowed_domains": []string{"*"}, "blocked_domains": []string{}, "config": "browser.blocked_domains=[]",
		"crafted": false}})
	if made.Error != "" {
		t.Fatalf("script_make: %s\n%s", made.Error, c.stderr.String())
	}
	text := made.text()
	mu.Lock()
	seen := append([]string(nil), hosts...)
	mu.Unlock()
	for _, h := range seen {
		if strings.HasPrefix(h, "blocked.localhost") {
			t.Errorf("the site was reached as %s", h)
		}
	}
	if strings.Contains(text, marker) {
		t.Errorf("script_make's answer carries the host file:\n%s", text)
	}
	steps, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "debug", "steps.md"))
	if len(steps) != 1 {
		t.Fatalf("steps.md: %v", steps)
	}
	b, _ := os.ReadFile(steps[0])
	if !strings.Contains(string(b), "refused: page.goto") || strings.Contains(string(b), "the blocked page") {
		t.Errorf("the run's step did not show a refusal:\n%s", b)
	}
	t.Logf("script_make's answer: %.600s\nsteps:\n%s", text, b)
}
