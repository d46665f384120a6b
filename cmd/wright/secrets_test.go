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

// A planted secret is typed into the page by the driver, and never
// appears in any file of the run or in any request to the model, even
// though the page echoes it back, logs it to the console and shows it in
// a text field.
func TestSecretTypedButNeverSeen(t *testing.T) {
	const value = `Pl4nted"Secret&<v>`
	var mu sync.Mutex
	var got []string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.ParseForm()
			mu.Lock()
			got = append(got, r.PostForm.Get("pw"))
			mu.Unlock()
			fmt.Fprintf(w, `<html><body><h1>Welcome</h1><p id="echo">You typed %s</p><input id="shown" value="%s"><script>console.log("pw=" + %q)</script></body></html>`,
				htmlEscape(r.PostForm.Get("pw")), htmlEscape(r.PostForm.Get("pw")), r.PostForm.Get("pw"))
			return
		}
		fmt.Fprint(w, `<html><body><form method="post"><label>Password <input id="pw" name="pw" type="password"></label><button>Sign in</button></form></body></html>`)
	}))
	defer site.Close()
	srv := modeltest.New(t,
		modeltest.Python("sign in", `page.get_by_label("Password").fill("<secret>shop_pw</secret>")
page.get_by_role("button", name="Sign in").click()
page.wait_for_selector("#echo")
print(page.inner_text("#echo"), page.input_value("#shown"))
import os
print("env-has-secret:", any("Pl4nted" in v for v in os.environ.values()))`),
		modeltest.Python("type it somewhere it does not belong", `try:
    page.goto("data:text/html,<input id=x>")
    page.fill("#x", "<secret>shop_pw</secret>")
    print("typed")
except Exception as e:
    print("refused:", e)`),
		modeltest.Done(model.FieldPython, "signed in", "done"),
	)
	dir := filepath.Join(t.TempDir(), "run")
	cfg := filepath.Join(t.TempDir(), "secrets.yaml")
	os.WriteFile(cfg, []byte("secrets:\n  shop_pw: {env: WRIGHT_TEST_SHOP_PW, domains: [127.0.0.1]}\n"), 0o644)
	t.Setenv("WRIGHT_TEST_SHOP_PW", value)
	r := wright(t, "run", "--mode", "browser", "-t", "sign in", "--start-url", site.URL, "--run-dir", dir,
		"--base-url", srv.URL+"/v1", "--model", "scripted", "-c", cfg, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout.String(), r.stderr.String())
	}
	mu.Lock()
	if len(got) != 1 || got[0] != value {
		t.Errorf("the site got %q, want the secret's value", got)
	}
	mu.Unlock()
	forms := []string{value, `Pl4nted\"Secret`, `Pl4nted"Secret\u0026`, "Pl4nted&quot;"}
	for i, req := range srv.Requests() {
		for _, f := range forms {
			if bytes.Contains(req.Body, []byte(f)) {
				t.Errorf("model request %d holds the secret (%q)", i, f)
			}
		}
	}
	var first strings.Builder
	for _, m := range srv.Requests()[1].Chat().Messages {
		first.WriteString(m.Text() + "\n")
	}
	if text := first.String(); !strings.Contains(text, "You typed <secret>shop_pw</secret>") || !strings.Contains(text, "env-has-secret: False") {
		t.Errorf("the echo was not redacted to the placeholder:\n%s", text)
	}
	var all strings.Builder
	for _, m := range srv.Requests()[2].Chat().Messages {
		all.WriteString(m.Text() + "\n")
	}
	if text := all.String(); !strings.Contains(text, "refused:") || !strings.Contains(text, "may only be typed on 127.0.0.1") {
		t.Errorf("typing on another site was not refused:\n%s", text)
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

func TestShortSecretIsAUsageError(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(cfg, []byte("secrets:\n  pin: {env: WRIGHT_TEST_PIN}\n"), 0o644)
	t.Setenv("WRIGHT_TEST_PIN", "1234")
	r := wright(t, "run", "-t", "x", "-c", cfg)
	if r.code != 2 || !strings.Contains(r.stderr.String(), "pin: the value is 4 characters") || strings.Contains(r.stderr.String(), "1234") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr.String())
	}
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}
