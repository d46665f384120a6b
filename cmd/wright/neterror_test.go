package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"wright/model"
	"wright/model/modeltest"
)

// In both modes a navigation the policy proxy cannot complete raises the
// error Chromium gives without a proxy, and page.url is Chromium's error
// page: a refused port, and a 302 to a blocked host.
func TestProxyFailuresRaiseInBothModes(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if to := r.URL.Query().Get("to"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		fmt.Fprint(w, "<title>fine</title>")
	}))
	defer site.Close()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := fmt.Sprintf("http://127.0.0.1:%d/", closed.Addr().(*net.TCPAddr).Port)
	closed.Close()
	port := site.URL[strings.LastIndexByte(site.URL, ':')+1:]
	redirect := site.URL + "/?to=http://blocked.localhost:" + port + "/"
	probe := `for u in [` + fmt.Sprintf("%q, %q", refused, redirect) + `]:
    try:
        page.goto(u)
        print("NOERROR", page.url)
    except Exception as e:
        print("RAISED", str(e).splitlines()[0], "| url", page.url)
`
	check := func(mode, text string) {
		t.Helper()
		if !strings.Contains(text, "net::ERR_CONNECTION_REFUSED") || !strings.Contains(text, "net::ERR_BLOCKED_BY_CLIENT") ||
			strings.Count(text, "| url chrome-error://chromewebdata/") != 2 || strings.Contains(text, "NOERROR http") {
			t.Errorf("%s mode:\n%s", mode, text)
		}
	}

	live := modeltest.New(t, modeltest.Python("probe", probe), modeltest.Done(model.FieldPython, "done", "x"))
	dir := filepath.Join(t.TempDir(), "live")
	r := wright(t, "run", "--mode", "browser", "-t", "x", "--start-url", site.URL, "--run-dir", dir, "--base-url", live.URL+"/v1",
		"--model", "scripted", "-c", "agent.require_self_reflection_success=false", "-c", "browser.blocked_domains=[blocked.localhost]")
	if r.code != 0 {
		t.Fatalf("live: exit %d\n%s", r.code, r.stderr.String())
	}
	check("live", allText(live.Requests()[1]))

	script := "python3 - <<'PY'\nfrom playwright.sync_api import sync_playwright\nwith sync_playwright() as p:\n    page = p.chromium.launch().new_page()\n" +
		indent(probe, "    ") + "PY"
	ws := modeltest.New(t, modeltest.Bash("probe", script), modeltest.Done(model.FieldBash, "done", "x"))
	dir = filepath.Join(t.TempDir(), "ws")
	r = wright(t, append(runArgs(t, ws, dir), "-c", "browser.blocked_domains=[blocked.localhost]")...)
	if r.code != 0 {
		t.Fatalf("workspace: exit %d\n%s", r.code, r.stderr.String())
	}
	check("workspace", allText(ws.Requests()[1]))
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = by + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

// allText is every message of a model request, for checks on what the
// model was shown.
func allText(req modeltest.Request) string {
	var b strings.Builder
	for _, m := range req.Chat().Messages {
		b.WriteString(m.Text() + "\n")
	}
	return b.String()
}
