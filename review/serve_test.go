package review

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckAddr(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:0": true, "localhost:8080": true, "[::1]:9": true,
		"0.0.0.0:8080": false, ":8080": false, "192.0.2.7:80": false, "nonsense": false} {
		if err := CheckAddr(addr, false); (err == nil) != ok {
			t.Errorf("CheckAddr(%q) = %v", addr, err)
		}
	}
	if err := CheckAddr("0.0.0.0:8080", true); err != nil {
		t.Errorf("--public: %v", err)
	}
}

func get(t *testing.T, url, host string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if host != "" {
		req.Host = host
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServeRun(t *testing.T) {
	dir := copyRun(t, fixture("crashed"), t.TempDir())
	tok, err := NewToken()
	if err != nil || len(tok) != 32 {
		t.Fatalf("token %q: %v", tok, err)
	}
	srv := httptest.NewServer(&Handler{Dir: dir, Token: tok})
	defer srv.Close()
	base := srv.URL + "/" + tok + "/"

	code, page := get(t, base, "")
	if code != 200 || !strings.Contains(page, `id="step-2"`) || !strings.Contains(page, `data-poll="/`+tok+`/version"`) {
		t.Fatalf("page: %d\n%.300s", code, page)
	}
	for name, c := range map[string]struct{ url, host string }{
		"no token":    {srv.URL + "/", ""},
		"wrong token": {srv.URL + "/" + strings.Repeat("0", 32) + "/", ""},
		"token query": {srv.URL + "/?token=" + tok, ""},
	} {
		if code, _ := get(t, c.url, c.host); code != 404 {
			t.Errorf("%s: %d", name, code)
		}
	}
	// DNS rebinding: a page on evil.example resolved to 127.0.0.1 sends its own Host.
	if code, _ := get(t, base, "evil.example:"+strings.Split(srv.URL, ":")[2]); code != 403 {
		t.Errorf("a foreign Host header got %d", code)
	}
	if code, body := get(t, base+"file/workspace/steps/step_0001.sh", ""); code != 200 || !strings.Contains(body, "echo started") {
		t.Errorf("file: %d %q", code, body)
	}
	for _, p := range []string{"file/../../etc/passwd", "file/%2e%2e/%2e%2e/etc/passwd", "file/workspace", "run/../x/"} {
		if code, _ := get(t, base+p, ""); code == 200 {
			t.Errorf("%s was served", p)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "link")); err == nil {
		if code, _ := get(t, base+"file/link", ""); code == 200 {
			t.Error("a symlink out of the run was followed")
		}
	}

	// Live: the version changes when the run writes its next step.
	_, v1 := get(t, base+"version", "")
	b, _ := os.ReadFile(filepath.Join(dir, "debug", "steps", "step_0001.json"))
	_ = os.WriteFile(filepath.Join(dir, "debug", "steps", "step_0002.json"), []byte(strings.Replace(string(b), `"step": 1`, `"step": 2`, 1)), 0o644)
	_, v2 := get(t, base+"version", "")
	if v1 == v2 || v1 == "" {
		t.Errorf("the version did not change: %q", v2)
	}
	if _, page := get(t, base, ""); strings.Contains(page, "No result recorded") {
		t.Error("the page still shows step 2 as running after its file appeared")
	}
}

func TestServeBench(t *testing.T) {
	dir, rows := makeBench(t)
	srv := httptest.NewServer(&Handler{Dir: dir, Token: "tok"})
	defer srv.Close()
	code, page := get(t, srv.URL+"/tok/", "")
	if code != 200 || strings.Count(page, "<tr data-status=") != 20 {
		t.Fatalf("bench page %d", code)
	}
	link := `/tok/run/runs/` + rows[0].TaskID + `/`
	if !strings.Contains(page, `href="`+link+`"`) {
		t.Fatalf("no row links to %s", link)
	}
	code, run := get(t, srv.URL+link, "")
	if code != 200 || !strings.Contains(run, `href="/tok/"`) || !strings.Contains(run, `href="/tok/file/runs/task_01/workspace/final_runs/run_1/screenshots/final_execution_1_home.png"`) {
		t.Errorf("run page %d\n%.400s", code, run)
	}
	// A served run page carries the bench's evaluator results too.
	if !strings.Contains(run, `id="bench-result"`) || !strings.Contains(run, "found $39.99") {
		t.Errorf("the served run page lacks the bench's result")
	}
	if code, _ := get(t, srv.URL+"/tok/run/runs/", ""); code != 404 {
		t.Errorf("a folder that is no run: %d", code)
	}
	// A row's thumbnail opens the full screenshot, served from the bench.
	shot := `/tok/file/runs/task_01/workspace/final_runs/run_1/screenshots/final_execution_3_book.png`
	if !strings.Contains(page, `href="`+shot+`"`) {
		t.Errorf("no thumbnail links to %s", shot)
	} else if code, png := get(t, srv.URL+shot, ""); code != 200 || !strings.HasPrefix(png, "\x89PNG") {
		t.Errorf("the thumbnail's screenshot: %d", code)
	}
}

func TestRedactor(t *testing.T) {
	const planted = "sk-planted-0123456789"
	t.Setenv("SOME_SERVICE_API_KEY", planted)
	t.Setenv("SHORT_TOKEN", "abc")
	dir := copyRun(t, fixture("crashed"), t.TempDir())
	p := filepath.Join(dir, "workspace", "steps", "step_0001.sh")
	if err := os.WriteFile(p, []byte("echo "+planted+" abc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	red := RedactorFromEnv()
	if got := string(red.Redact([]byte("x " + planted + " abc"))); got != "x [redacted] abc" {
		t.Errorf("redacted %q", got)
	}
	srv := httptest.NewServer(&Handler{Dir: dir, Token: "tok", Redactor: red})
	defer srv.Close()
	if _, body := get(t, srv.URL+"/tok/file/workspace/steps/step_0001.sh", ""); body != "echo [redacted] abc\n" {
		t.Errorf("served file %q", body)
	}
}
