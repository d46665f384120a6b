package main

import (
	"bytes"
	"fmt"
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

// In a sandboxed workspace run, a script's browser comes from wright,
// outside the sandbox: `<secret>name</secret>` is typed as the value on the
// secret's domains only, the value is in no process the sandbox can see,
// in no file of the run and in no model request; the script cannot choose
// the browser's executable, nor have a screenshot written outside the
// workspace, while one inside is written.
func TestSecretTypedInSandboxedWorkspace(t *testing.T) {
	requireBwrap(t)
	const value = "Ws-Pl4nted-Secret-93"
	var mu sync.Mutex
	var got []string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.ParseForm()
			mu.Lock()
			got = append(got, r.PostForm.Get("pw"))
			mu.Unlock()
			fmt.Fprintf(w, `<html><body><h1>Welcome</h1><p id="echo">You typed %s</p></body></html>`, htmlEscape(r.PostForm.Get("pw")))
			return
		}
		fmt.Fprint(w, `<html><body><form method="post"><label>Password <input id="pw" name="pw" type="password"></label><button>Sign in</button></form></body></html>`)
	}))
	defer site.Close()
	script := `cat > signin.py <<'PY'
import os, sys
from playwright.sync_api import sync_playwright
with sync_playwright() as p:
    b = p.chromium.launch()
    page = b.new_page()
    page.goto(sys.argv[1])
    page.get_by_label("Password").fill("<secret>shop_pw</secret>")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector("#echo")
    print(page.inner_text("#echo"))
    page.screenshot(path="shots/after.png")
    print("shot:", os.path.getsize("shots/after.png") > 0)
    try:
        page.screenshot(path="/usr/escape.png")
        print("OUTSIDE-WRITTEN")
    except Exception as e:
        print("outside refused:", "outside the workspace" in str(e))
    try:
        page.goto("data:text/html,<input id=x>")
        page.fill("#x", "<secret>shop_pw</secret>")
        print("typed elsewhere")
    except Exception as e:
        print("elsewhere refused:", "may only be typed on" in str(e))
    b.close()
from playwright._impl._transport import _SocketTransport
t = _SocketTransport(os.environ["WRIGHT_DRIVER_SPAWN"])
for bad in ({"executable": "/bin/sh"}, {"args": ["--renderer-cmd-prefix=/bin/sh"]}):
    try:
        t.call("browser.launch", bad, guard_s=30)
        print("LAUNCH-PARAM-TAKEN", bad)
    except Exception as e:
        print("launch param refused:", "cannot be chosen" in str(e))
t.shutdown()
PY
mkdir -p shots && python3 signin.py ` + site.URL + `/
n=0; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do grep -qs Ws-Pl4nted "$f" && n=$((n+1)); done; echo "holders=$n"`
	srv := modeltest.New(t,
		modeltest.Bash("sign in", script),
		modeltest.Done(model.FieldBash, "signed in", "done"),
	)
	dir := filepath.Join(t.TempDir(), "run")
	cfg := filepath.Join(t.TempDir(), "secrets.yaml")
	os.WriteFile(cfg, []byte("secrets:\n  shop_pw: {env: WRIGHT_TEST_WS_PW, domains: [127.0.0.1]}\n"), 0o644)
	t.Setenv("WRIGHT_TEST_WS_PW", value)
	r := wright(t, append(runArgs(t, srv, dir), "-c", "env.sandbox=bwrap", "-c", cfg)...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr.String())
	}
	mu.Lock()
	if len(got) != 1 || got[0] != value {
		t.Errorf("the site got %q, want the secret's value once", got)
	}
	mu.Unlock()
	msgs := srv.Requests()[1].Chat().Messages
	text := msgs[len(msgs)-1].Text()
	for _, want := range []string{"You typed <secret>shop_pw</secret>", "shot: True", "outside refused: True", "elsewhere refused: True", "launch param refused: True\nlaunch param refused: True", "holders=0"} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q in the observation:\n%s", want, text)
		}
	}
	if sys := srv.Requests()[0].Chat().Messages[0].Text(); !strings.Contains(sys, "shop_pw") {
		t.Error("the system prompt does not offer the secret in a sandboxed workspace run")
	}
	if _, err := os.Stat("/usr/escape.png"); err == nil {
		os.Remove("/usr/escape.png")
		t.Error("a screenshot was written outside the workspace")
	}
	for i, req := range srv.Requests() {
		if bytes.Contains(req.Body, []byte(value)) {
			t.Errorf("model request %d holds the secret", i)
		}
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && !strings.HasSuffix(p, ".png") {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(value)) {
				t.Errorf("%s holds the secret", p)
			}
		}
		return nil
	})
}
