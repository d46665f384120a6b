package review

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func fixture(name string) string { return filepath.Join("testdata", "runs", name) }

func load(t *testing.T, name string) *Run {
	t.Helper()
	r, err := LoadRun(fixture(name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// stepFiles reads the fixture's debug/steps files, the facts to check against.
func stepFiles(t *testing.T, name string) map[int]map[string]any {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(fixture(name), "debug", "steps", "step_*.json"))
	out := map[int]map[string]any{}
	for _, f := range files {
		var m map[string]any
		b, err := os.ReadFile(f)
		if err != nil || json.Unmarshal(b, &m) != nil {
			t.Fatalf("read %s: %v", f, err)
		}
		out[int(m["step"].(float64))] = m
	}
	return out
}

func resultFile(t *testing.T, name string) map[string]any {
	t.Helper()
	var m map[string]any
	b, err := os.ReadFile(filepath.Join(fixture(name), "result.json"))
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("result.json: %v", err)
	}
	return m
}

// renderAll renders a run the three ways and returns text, digest and page.
func renderAll(t *testing.T, r *Run) (string, Digest, string) {
	t.Helper()
	text, err := r.Text(TextOptions{Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var d Digest
	if err := json.Unmarshal(js.Bytes(), &d); err != nil {
		t.Fatalf("the digest is not JSON: %v", err)
	}
	var page bytes.Buffer
	if err := WriteRunHTML(&page, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	return text, d, page.String()
}

// checkAgainstFiles checks what every view shows against result.json and
// the step files.
func checkAgainstFiles(t *testing.T, name string, text string, d Digest, page string) {
	t.Helper()
	steps := stepFiles(t, name)
	if res, err := os.ReadFile(filepath.Join(fixture(name), "result.json")); err == nil {
		var m map[string]any
		_ = json.Unmarshal(res, &m)
		if d.ExitStatus != m["exit_status"] || d.FinalResponse != m["final_response"] || d.Header.Steps != int(m["steps"].(float64)) {
			t.Errorf("digest header %+v does not match result.json %v", d.Header, m)
		}
		if !strings.Contains(text, "- **Exit status:** "+m["exit_status"].(string)+"\n") {
			t.Errorf("text does not show the exit status %v", m["exit_status"])
		}
		if !strings.Contains(page, `id="exit-status">`+m["exit_status"].(string)+"<") {
			t.Errorf("the page does not show the exit status")
		}
	}
	for n, s := range steps {
		thought, _ := s["thought"].(string)
		if !strings.Contains(text, "## Step "+itoa(n)+" ") {
			t.Errorf("text has no heading for step %d", n)
		}
		if !strings.Contains(page, `id="step-`+itoa(n)+`"`) {
			t.Errorf("page has no section for step %d", n)
		}
		var got *DigestStep
		for i := range d.StepList {
			if d.StepList[i].Step == n {
				got = &d.StepList[i]
			}
		}
		if got == nil || got.Thought != thought || got.PromptTokens != int(s["prompt_tokens"].(float64)) {
			t.Errorf("digest step %d = %+v, want thought %q", n, got, thought)
		}
		if obs, ok := s["observation"].(map[string]any); ok {
			if rc, ok := obs["returncode"]; ok && got != nil && got.Status != "rc "+itoa(int(rc.(float64))) {
				t.Errorf("step %d status %q, returncode %v", n, got.Status, rc)
			}
		}
	}
	if strings.Contains(page, "http://") && regexp.MustCompile(`(src|href)="https?://`).MatchString(strings.ReplaceAll(page, `href="http://127.0.0.1`, "")) {
		t.Error("the page loads or links something remote")
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestFinishedRun(t *testing.T) {
	r := load(t, "finished")
	text, d, page := renderAll(t, r)
	checkAgainstFiles(t, "finished", text, d, page)
	if !r.Header.Finished || r.Header.GateVerdict != "success" || r.Header.JudgedRun != "run_1" || len(r.Missing) != 0 {
		t.Errorf("header %+v, missing %v", r.Header, r.Missing)
	}
	if !strings.Contains(text, "> The log shows the search, the book page and the final price $39.99") {
		t.Error("text does not show the judge's verdict")
	}
	if !strings.Contains(text, "- **Gate verdict:** success (judged run_1)\n") {
		t.Error("text does not say which run the gate judged")
	}
	var verdict struct {
		ImageRecords []struct {
			Score     int    `json:"Score"`
			Reasoning string `json:"Reasoning"`
		} `json:"image_records"`
	}
	b, _ := os.ReadFile(filepath.Join(fixture("finished"), "workspace", "final_runs", "run_1", "self_reflect_result.json"))
	if err := json.Unmarshal(b, &verdict); err != nil || len(verdict.ImageRecords) != 3 {
		t.Fatalf("fixture verdict: %v", err)
	}
	for _, rec := range verdict.ImageRecords {
		if !strings.Contains(page, templateEscape(rec.Reasoning)) {
			t.Errorf("the page lacks the judge's reasoning %q", rec.Reasoning)
		}
	}
	if n := strings.Count(page, `class="score s5"`); n != 3 {
		t.Errorf("%d scores shown, want 3", n)
	}
	// 3 final screenshots and the one the exploration saved.
	if n := strings.Count(page, `src="data:image/jpeg;base64,`); n != 4 {
		t.Errorf("%d inline images, want 4", n)
	}
	for _, want := range []string{"# Plan", "final_script_log.txt", "judge: success", `href="workspace/final_runs/run_1/screenshots/final_execution_1_home.png"`} {
		if !strings.Contains(page, templateEscape(want)) && !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if !strings.Contains(page, "<h1>Plan</h1>") {
		t.Error("plan.md is not rendered as Markdown")
	}
}

func templateEscape(s string) string {
	var b bytes.Buffer
	_ = pages.New("x").Execute(&b, nil) // keep pages referenced
	r := strings.NewReplacer(`&`, "&amp;", `"`, "&#34;", `'`, "&#39;", `<`, "&lt;", `>`, "&gt;")
	return r.Replace(s)
}

func TestGateRefusedRun(t *testing.T) {
	r := load(t, "gate_refused")
	text, d, page := renderAll(t, r)
	checkAgainstFiles(t, "gate_refused", text, d, page)
	files := stepFiles(t, "gate_refused")
	refusal := strings.TrimPrefix(files[3]["notes"].([]any)[0].(string), "Done refused: ")
	s3, s4 := d.StepList[2], d.StepList[3]
	if s3.Status != "done refused" || len(s3.Notes) != 1 || s3.Notes[0].Kind != NoteGateRefusal || s3.Notes[0].Text != refusal {
		t.Errorf("step 3 = %+v, want the refusal %q", s3, refusal)
	}
	if s4.Status != "format error" || s4.Notes[0].Kind != NoteFormatError {
		t.Errorf("step 4 = %+v", s4)
	}
	if notes := d.StepList[1].Notes; len(notes) != 1 || notes[0].Kind != NoteNotice || !strings.Contains(notes[0].Text, "2 steps remain") {
		t.Errorf("step 2's notice: %+v", notes)
	}
	for _, want := range []string{`<div class="note gate_refusal"><b>Done refused</b>`, `<div class="note format_error"><b>Format error</b>`,
		`<div class="note notice"><b>Notice</b>`, `class="step st-gate_refusal"`, "Runtime errors"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if !strings.Contains(text, "⛔ Done refused:** There is no final_runs/ folder") || !strings.Contains(text, "✗ Format error:") {
		t.Errorf("text does not mark the refusal and the format error:\n%s", text)
	}
	// The harness's words are text, not Markdown: nothing in them is lost
	// to the terminal renderer.
	term, _ := r.Text(TextOptions{Width: 200})
	term = regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(term, "")
	if !strings.Contains(term, "as final_execution_<n>_<what>.png") || !strings.Contains(term, "⛔ Done refused: There is no final_runs/ folder") {
		t.Errorf("the terminal view mangles the refusal:\n%s", term)
	}
	if d.ExitStatus != "LimitsExceeded" || d.Message == "" {
		t.Errorf("exit %q message %q", d.ExitStatus, d.Message)
	}
}

func TestCompactedRun(t *testing.T) {
	r := load(t, "compacted")
	text, d, page := renderAll(t, r)
	checkAgainstFiles(t, "compacted", text, d, page)
	var want []Compaction
	readJSONL(fixture("compacted"), "compactions.jsonl", func(b []byte) {
		var c Compaction
		_ = json.Unmarshal(b, &c)
		want = append(want, c)
	})
	if len(want) != 2 || len(d.Compactions) != 2 {
		t.Fatalf("compactions: file %v, digest %v", want, d.Compactions)
	}
	for _, c := range want {
		if !d.StepList[c.Step-1].Compacted {
			t.Errorf("step %d is not marked compacted", c.Step)
		}
		line := "⟳ History compacted after this step: " + itoa(c.TokensBefore) + " → " + itoa(c.TokensAfter) + " tokens."
		if !strings.Contains(text, line) {
			t.Errorf("text lacks %q", line)
		}
		if !strings.Contains(page, "history compacted after step "+itoa(c.Step)+": ") {
			t.Errorf("the chart does not mark the compaction after step %d", c.Step)
		}
	}
	if n := strings.Count(page, `<line `); n != 2 {
		t.Errorf("%d compaction marks in the chart, want 2", n)
	}
	if n := strings.Count(page, `<rect `); n != len(r.Steps) {
		t.Errorf("%d bars for %d steps", n, len(r.Steps))
	}
}

func TestCrashedRun(t *testing.T) {
	r := load(t, "crashed")
	text, d, page := renderAll(t, r)
	checkAgainstFiles(t, "crashed", text, d, page)
	if r.Header.Finished || r.Header.ExitStatus != "unfinished" || r.Header.Steps != 2 {
		t.Errorf("header %+v", r.Header)
	}
	if len(r.Missing) != 2 || !strings.Contains(r.Missing[0], "result.json: missing") || !strings.Contains(r.Missing[1], "step 2:") {
		t.Errorf("missing: %q", r.Missing)
	}
	s2 := d.StepList[1]
	if s2.Status != "no result yet" || s2.Code != "sleep 6; echo finished" || s2.Thought != "Now a long job." {
		t.Errorf("step 2 = %+v: the reply in raw_responses.jsonl is not shown", s2)
	}
	for _, want := range []string{"Missing: result.json: missing", "No result recorded", `id="step-2"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if !strings.Contains(text, "**Missing:** result.json: missing") {
		t.Error("text does not say result.json is missing")
	}
}

// A trajectory cut in the middle of a write (a crash while saving) still
// gives a page from the step files, and says what is wrong.
func TestTruncatedTrajectory(t *testing.T) {
	dir := copyRun(t, fixture("gate_refused"), t.TempDir())
	b, _ := os.ReadFile(filepath.Join(dir, "trajectory.json"))
	if err := os.WriteFile(filepath.Join(dir, "trajectory.json"), b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "result.json"))
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Steps) != 4 || !strings.Contains(strings.Join(r.Missing, "\n"), "trajectory.json: unreadable") {
		t.Errorf("%d steps, missing %q", len(r.Steps), r.Missing)
	}
}

func TestLiveRun(t *testing.T) {
	r := load(t, "live")
	text, d, page := renderAll(t, r)
	checkAgainstFiles(t, "live", text, d, page)
	for i, s := range d.StepList[:3] {
		want := "workspace/screenshots/step_000" + itoa(i+1) + ".png"
		if len(s.Screenshots) != 1 || s.Screenshots[0] != want {
			t.Errorf("step %d screenshots %v, want %s", s.Step, s.Screenshots, want)
		}
		if !strings.Contains(page, `href="`+want+`"`) {
			t.Errorf("page does not link %s", want)
		}
	}
	if n := strings.Count(page, `src="data:image/jpeg;base64,`); n != 3 {
		t.Errorf("%d inline images, want 3", n)
	}
	if d.StepList[1].Status != "failed" || !strings.Contains(d.StepList[1].Output, "TimeoutError") {
		t.Errorf("step 2 = %+v", d.StepList[1])
	}
	if !strings.Contains(d.StepList[0].Page, "search.html?q=Go+Programming") {
		t.Errorf("step 1 page %q", d.StepList[0].Page)
	}
	if !strings.Contains(page, `class="step st-failed"`) || !strings.Contains(page, `class="chroma"`) {
		t.Error("the failed step is not marked, or the code is not highlighted")
	}
	if d.Mode != "browser" {
		t.Errorf("mode %q", d.Mode)
	}
}

func TestStepGrepAndTerminal(t *testing.T) {
	r := load(t, "live")
	one, err := r.Markdown(TextOptions{Step: 2})
	if err != nil || strings.Count(one, "## Step ") != 1 || !strings.Contains(one, "## Step 2 ") || !strings.Contains(one, "last state: no element matches") {
		t.Errorf("--step 2 (%v):\n%s", err, one)
	}
	if _, err := r.Markdown(TextOptions{Step: 99}); err == nil || !strings.Contains(err.Error(), "no step 99") {
		t.Errorf("--step 99: %v", err)
	}
	g, _ := r.Markdown(TextOptions{Grep: "timeouterror"})
	if strings.Count(g, "## Step ") != 1 || !strings.Contains(g, "1 of 4 steps hold") {
		t.Errorf("--grep:\n%s", g)
	}
	out, err := r.Text(TextOptions{Width: 80})
	plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(out, "")
	if err != nil || !strings.Contains(out, "\x1b[") || !strings.Contains(plain, "Search for the book.") || strings.Contains(plain, "```") {
		t.Errorf("the terminal view is not rendered (%v):\n%s", err, plain)
	}
}

func TestNotARun(t *testing.T) {
	if _, err := LoadRun(t.TempDir()); err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := LoadRun(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Error("a missing dir loaded")
	}
}

// A run's thought holding HTML and a remote image must not load anything
// or inject markup.
func TestHostileThought(t *testing.T) {
	dir := copyRun(t, fixture("compacted"), t.TempDir())
	p := filepath.Join(dir, "debug", "steps", "step_0001.json")
	b, _ := os.ReadFile(p)
	var s map[string]any
	_ = json.Unmarshal(b, &s)
	s["thought"] = "<script>alert(1)</script>\n\nsee <img src=\"http://evil.invalid/x.png\"> and ![pic](http://evil.invalid/y.png)"
	b, _ = json.Marshal(s)
	_ = os.WriteFile(p, b, 0o644)
	r, _ := LoadRun(dir)
	var page bytes.Buffer
	if err := WriteRunHTML(&page, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), "<script>alert") || strings.Contains(page.String(), `src="http://evil`) {
		t.Error("markup from the run reached the page")
	}
	if !strings.Contains(page.String(), `[image: <a href="http://evil.invalid/y.png"`) {
		t.Error("a Markdown image is not turned into a link")
	}
}

// copyRun copies a run directory (a fixture) into dst.
func copyRun(t *testing.T, src, dst string) string {
	t.Helper()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// result.json's gate_label and gate_run, when the run recorded them, name
// the judged run even when a newer final run exists.
func TestGateLabelFromResult(t *testing.T) {
	dir := copyRun(t, fixture("finished"), t.TempDir())
	p := filepath.Join(dir, "result.json")
	b, _ := os.ReadFile(p)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["gate_label"], m["gate_run"] = 1, 1
	b, _ = json.Marshal(m)
	_ = os.WriteFile(p, b, 0o644)
	if err := os.MkdirAll(filepath.Join(dir, "workspace", "final_runs", "run_2"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Header.GateLabel == nil || *r.Header.GateLabel != 1 || r.Header.GateLabelText() != "1 (success)" || r.Header.JudgedRun != "run_1" || len(r.FinalRuns) != 2 {
		t.Errorf("header %+v, %d final runs", r.Header, len(r.FinalRuns))
	}
	// The digest is for programs: the label is the number result.json has.
	var buf bytes.Buffer
	if err := r.WriteDigest(&buf, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(buf.Bytes(), &d); err != nil || d["gate_label"] != 1.0 {
		t.Errorf("digest gate_label %#v (%v)", d["gate_label"], err)
	}
}

func TestDigestOfSomeSteps(t *testing.T) {
	r := load(t, "live")
	var b bytes.Buffer
	if err := r.WriteDigest(&b, TextOptions{Grep: "TimeoutError"}); err != nil {
		t.Fatal(err)
	}
	var d Digest
	if err := json.Unmarshal(b.Bytes(), &d); err != nil || len(d.StepList) != 1 || d.StepList[0].Step != 2 || d.Header.Steps != 4 {
		t.Errorf("digest of the grep: %+v (%v)", d.StepList, err)
	}
	if err := r.WriteDigest(&b, TextOptions{Step: 9}); err == nil {
		t.Error("a digest of step 9 of 4")
	}
}

// A run stopped by Ctrl-C reads as interrupted, not in Go's words.
func TestInterruptedInWords(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "result.json"), []byte(`{"task_id": "x", "exit_status": "EnvironmentError", "message": "start shell: context canceled", "steps": 0}`), 0o644)
	os.WriteFile(filepath.Join(dir, "runtime_errors.jsonl"), []byte(`{"step": 1, "kind": "model", "error": "model: request abandoned: context canceled"}`+"\n"), 0o644)
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := r.Text(TextOptions{Plain: true})
	if strings.Contains(text, "context canceled") || !strings.Contains(text, "request abandoned: interrupted (Ctrl-C or SIGTERM)") || !strings.Contains(text, "start shell: interrupted") {
		t.Errorf("review text:\n%s", text)
	}
}

// A reply the loop refused as a format error is shown as the model wrote
// it, in the terminal view, the HTML page and the digest.
func TestFormatErrorShowsTheReply(t *testing.T) {
	r := load(t, "gate_refused")
	const said = "I think I will just say hello without JSON this time."
	text, _ := r.Text(TextOptions{Plain: true})
	if !strings.Contains(text, "Model reply:") || !strings.Contains(text, said) {
		t.Errorf("the terminal view lacks the reply:\n%s", text)
	}
	var page bytes.Buffer
	if err := WriteRunHTML(&page, r, HTMLOptions{}); err != nil || !strings.Contains(page.String(), `<pre class="raw">`+said) {
		t.Errorf("the page lacks the reply (%v)", err)
	}
	var js bytes.Buffer
	if err := r.WriteDigest(&js, TextOptions{}); err != nil || !strings.Contains(js.String(), said) {
		t.Errorf("the digest lacks the reply (%v)", err)
	}
}
