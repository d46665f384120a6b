package review

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A workspace the model filled with links: plan.md to /etc/passwd,
// final_script.py to a file of another run, a final run's log to
// /etc/passwd, a final run folder and a step file that are links to / and
// out of the run; and a bench holding links to another run and to /.
// Nothing they point at appears in the text, --json, --html or served
// views, and every route refuses them.
func TestReviewFollowsNoLinks(t *testing.T) {
	passwd, err := os.ReadFile("/etc/passwd")
	if err != nil || len(passwd) < 10 {
		t.Skip("no /etc/passwd to point at")
	}
	secretLine := strings.SplitN(string(passwd), "\n", 2)[0]
	const marker = "OTHER-RUN-MARKER-7731"

	outside := copyRun(t, fixture("finished"), filepath.Join(t.TempDir(), "other"))
	os.WriteFile(filepath.Join(outside, "workspace", "final_script.py"), []byte("print('"+marker+"')\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "workspace", "plan.md"), []byte(marker), 0o644)

	bench := t.TempDir()
	run := copyRun(t, fixture("finished"), filepath.Join(bench, "a"))
	ws := filepath.Join(run, "workspace")
	link := func(target, name string) {
		t.Helper()
		os.RemoveAll(name)
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	link("/etc/passwd", filepath.Join(ws, "plan.md"))
	link(filepath.Join(outside, "workspace", "final_script.py"), filepath.Join(ws, "final_script.py"))
	link("/etc/passwd", filepath.Join(ws, "final_runs", "run_1", "final_script_log.txt"))
	link("/", filepath.Join(ws, "final_runs", "run_2"))
	link(filepath.Join(outside, "workspace"), filepath.Join(ws, "final_runs", "run_3"))
	link(filepath.Join(outside, "debug", "steps", "step_0001.json"), filepath.Join(run, "debug", "steps", "step_0099.json"))
	link(outside, filepath.Join(bench, "linked"))
	link("/", filepath.Join(bench, "root"))
	os.WriteFile(filepath.Join(bench, "results.jsonl"), []byte(`{"task_id":"a","run_dir":"a"}`+"\n"+`{"task_id":"b","run_dir":"linked"}`+"\n"), 0o644)

	leaks := func(where, s string) {
		t.Helper()
		for _, bad := range []string{secretLine, marker, "daemon:x:"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s shows %q through a link", where, bad)
			}
		}
	}

	r, err := LoadRun(run)
	if err != nil {
		t.Fatal(err)
	}
	if r.Plan != "" || r.FinalScript != "" {
		t.Errorf("plan %q, final script %q: read through links", r.Plan, r.FinalScript)
	}
	for _, fr := range r.FinalRuns {
		if fr.N != 1 {
			t.Errorf("final run %d (a link) was listed", fr.N)
		}
	}
	text, _, page := renderAll(t, r)
	leaks("text", text)
	leaks("html", page)
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	leaks("json", js.String())

	b, err := LoadBench(bench)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range b.Attempts {
		if a.RunDir == "linked" && a.Found != "" {
			t.Errorf("the bench found a run through a link: %q", a.Found)
		}
	}
	for _, p := range b.Pending {
		if p == "linked" || p == "root" {
			t.Errorf("a link was listed as a pending run: %s", p)
		}
	}

	srv := httptest.NewServer(&Handler{Dir: bench, Token: "tok"})
	defer srv.Close()
	base := srv.URL + "/tok/"
	for _, rel := range []string{
		"run/linked/", "run/root/", "version/linked", "version/root",
		"file/a/workspace/plan.md", "file/a/workspace/final_script.py",
		"file/a/workspace/final_runs/run_1/final_script_log.txt",
		"file/a/workspace/final_runs/run_2/etc/passwd", "file/linked/workspace/plan.md",
		"file/root/etc/passwd", "run/a/workspace/final_runs/run_2/",
	} {
		code, body := get(t, base+rel, "")
		if code != 404 {
			t.Errorf("%s: %d, want 404", rel, code)
		}
		leaks(rel, body)
	}
	code, body := get(t, base+"run/a/", "")
	if code != 200 {
		t.Errorf("run/a/: %d", code)
	}
	leaks("run/a/", body)
	_, body = get(t, base, "")
	leaks("bench index", body)
	if code, _ := get(t, base+"file/a/workspace/task.json", ""); code != 200 {
		t.Errorf("a plain file of the run: %d, want 200", code)
	}
}
