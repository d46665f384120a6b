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

// Live mode, as a hostile model would try it: a secret for 127.0.0.1 is
// refused in a localhost iframe of a 127.0.0.1 page; a GET form that puts
// the value in the URL leaves it in no run file (script.py's step headers
// carry URLs); and reading the field back, even reversed by the page's
// own JavaScript, answers the placeholder (write_only).
func TestSecretBoundariesInLiveMode(t *testing.T) {
	const value = "Fr4me-Secret-42"
	var mu sync.Mutex
	var inner []string
	mux := http.NewServeMux()
	var otherURL string
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<html><body><form method="get" action="/signed"><input id="pw" name="pw"><button>Go</button></form><iframe id="f" src="%s/inner"></iframe></body></html>`, otherURL)
	})
	mux.HandleFunc("/inner", func(w http.ResponseWriter, r *http.Request) {
		if v := r.URL.Query().Get("got"); v != "" {
			mu.Lock()
			inner = append(inner, v)
			mu.Unlock()
		}
		fmt.Fprint(w, `<html><body><form><input id="in" name="got"></form></body></html>`)
	})
	mux.HandleFunc("/signed", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><body><h1>Signed in</h1></body></html>`)
	})
	site := httptest.NewServer(mux)
	defer site.Close()
	otherURL = strings.Replace(site.URL, "127.0.0.1", "localhost", 1)

	srv := modeltest.New(t,
		modeltest.Python("the iframe", `try:
    page.frame_locator("#f").locator("#in").fill("<secret>shop_pw</secret>")
    page.frame_locator("#f").locator("#in").press("Enter")
    print("iframe: typed")
except Exception as e:
    print("iframe: refused:", e)`),
		modeltest.Python("read it back", `page.fill("#pw", "<secret>shop_pw</secret>")
print("read:", page.input_value("#pw"))
print("reversed:", page.evaluate("() => document.querySelector('#pw').value.split('').reverse().join('')"))
page.click("button")
page.wait_for_url("**/signed**")`),
		modeltest.Python("after the GET form", `print("url:", page.url)`),
		modeltest.Done(model.FieldPython, "done", "done"),
	)
	dir := filepath.Join(t.TempDir(), "run")
	cfg := filepath.Join(t.TempDir(), "secrets.yaml")
	os.WriteFile(cfg, []byte("secrets:\n  shop_pw: {env: WRIGHT_TEST_FRAME_PW, domains: [127.0.0.1]}\n"), 0o644)
	t.Setenv("WRIGHT_TEST_FRAME_PW", value)
	r := wright(t, "run", "--mode", "browser", "-t", "sign in", "--start-url", site.URL, "--run-dir", dir,
		"--base-url", srv.URL+"/v1", "--model", "scripted", "-c", cfg, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout.String(), r.stderr.String())
	}
	mu.Lock()
	if len(inner) > 0 {
		t.Errorf("the localhost iframe received %q", inner)
	}
	mu.Unlock()
	reqs := srv.Requests()
	text := func(i int) string {
		var b strings.Builder
		for _, m := range reqs[i].Chat().Messages {
			b.WriteString(m.Text() + "\n")
		}
		return b.String()
	}
	if s := text(1); !strings.Contains(s, "iframe: refused:") || !strings.Contains(s, "may only be typed on 127.0.0.1") {
		t.Errorf("the iframe fill was not refused:\n%s", s)
	}
	if s := text(2); !strings.Contains(s, "read: <secret>shop_pw</secret>") || !strings.Contains(s, "reversed: <secret>shop_pw</secret>") {
		t.Errorf("reads of the field did not answer the placeholder:\n%s", s)
	}
	if s := text(3); !strings.Contains(s, "url: "+site.URL+"/signed?pw=<secret>shop_pw</secret>") {
		t.Errorf("the GET form's URL was not read back redacted:\n%s", s)
	}
	forms := []string{value, "Fr4me-Secret", "24-terceS"}
	for i, req := range reqs {
		for _, f := range forms {
			if bytes.Contains(req.Body, []byte(f)) {
				t.Errorf("model request %d holds the secret (%q)", i, f)
			}
		}
	}
	script, _ := os.ReadFile(filepath.Join(dir, "workspace", "script.py"))
	if !strings.Contains(string(script), "signed?pw=<secret>shop_pw</secret>") {
		t.Errorf("script.py has no redacted step header for the GET form's URL:\n%s", script)
	}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || strings.HasSuffix(p, ".png") {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, f := range forms {
			if bytes.Contains(b, []byte(f)) {
				t.Errorf("%s holds the secret (%q)", p, f)
			}
		}
		return nil
	})
}
