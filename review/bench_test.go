package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"wright/bench/results"
)

// makeBench writes a bench of 20 tasks as `wright bench` lays it out: one
// results.jsonl line per attempt, a summary, and the run folders (copies of
// the fixture runs) below it.
func makeBench(t *testing.T) (string, []Attempt) {
	t.Helper()
	dir := t.TempDir()
	yes, no := true, false
	var rows []Attempt
	for i := 1; i <= 20; i++ {
		a := Attempt{Record: results.Record{TaskID: fmt.Sprintf("task_%02d", i), Attempt: 1, Steps: i, Tokens: 1000 * i, Cost: 0.01 * float64(i), Seconds: float64(3 * i)}}
		var src string
		switch {
		case i <= 11:
			src, a.ExitStatus, a.Passed = "finished", "Submitted", &yes
			a.Evals = []results.Eval{{Kind: "string_match", Passed: &yes, Detail: "found $39.99"}}
		case i <= 15:
			src, a.ExitStatus, a.Passed = "live", "Submitted", &no
			a.Evals = []results.Eval{{Kind: "string_match", Passed: &yes}, {Kind: "url_match", Passed: &no, Detail: "expected /cart.html\ngot /book.html"}}
		case i <= 18:
			src, a.ExitStatus = "gate_refused", "LimitsExceeded"
		case i == 19:
			src, a.ExitStatus = "crashed", "EnvironmentError"
		default:
			src, a.Error = "crashed", "the browser would not start: no chromium\nmore"
		}
		if i == 11 {
			a.Evals = append(a.Evals, results.Eval{Kind: "judge", Detail: "no judge model configured"})
		}
		// The bench ran elsewhere: its absolute run_dir still ends in runs/<id>.
		a.RunDir = "/home/user/bench/runs/" + a.TaskID
		copyRun(t, fixture(src), filepath.Join(dir, "runs", a.TaskID))
		rows = append(rows, a)
	}
	var lines bytes.Buffer
	for _, a := range rows {
		b, _ := json.Marshal(a)
		lines.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"tasks": 20, "passed": 11, "failed": 4, "unscored": 4, "errors": 1, "success_rate": 0.7333, "ci95": [0.4805, 0.8910]}`), 0o644)
	return dir, rows
}

func TestBench(t *testing.T) {
	dir, rows := makeBench(t)
	b, err := LoadBench(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Attempts) != 20 || len(b.Missing) != 0 {
		t.Fatalf("%d attempts, missing %v", len(b.Attempts), b.Missing)
	}
	for i, a := range b.Attempts {
		if a.Found != "runs/"+rows[i].TaskID {
			t.Errorf("%s: run folder %q not found", a.TaskID, a.Found)
		}
	}
	c := b.Counts()
	if c.Passed != 11 || c.Failed != 4 || c.Unscored != 4 || c.Errors != 1 || c.Attempts != 20 {
		t.Errorf("counts %+v", c)
	}
	wantStatus := []Group{{Key: "LimitsExceeded", Count: 3}, {Key: "Submitted", Count: 4}, {Key: "EnvironmentError", Count: 1}, {Key: "error", Count: 1}}
	got := map[string]int{}
	for _, g := range b.ByStatus {
		got[g.Key] = g.Count
	}
	for _, w := range wantStatus {
		if got[w.Key] != w.Count {
			t.Errorf("failures with status %s: %d, want %d (%+v)", w.Key, got[w.Key], w.Count, b.ByStatus)
		}
	}
	if b.ByStatus[0].Key != "Submitted" {
		t.Errorf("the largest group is not first: %+v", b.ByStatus)
	}
	reasons := map[string]int{}
	for _, g := range b.ByReason {
		reasons[g.Key] = g.Count
	}
	// The evaluator's detail, result.json's message, and for the crashed
	// runs (no result.json, no runtime error) their exit status.
	if reasons["url_match: expected /cart.html"] != 4 || reasons["step limit of 4 model calls reached"] != 3 || reasons["EnvironmentError"] != 1 ||
		reasons["error: the browser would not start: no chromium"] != 1 {
		t.Errorf("failures by reason: %+v", b.ByReason)
	}
	md := b.Markdown()
	for _, want := range []string{"20 attempts: **11 passed**, **4 failed**, 4 unscored, 1 error", "- **4** url_match: expected /cart.html",
		"| task_19 | 1 | — | EnvironmentError | unscored |", "| task_20 | 1 | — | error | error |", "| ✓string_match ?judge |"} {
		if !strings.Contains(md, want) {
			t.Errorf("text lacks %q:\n%s", want, md)
		}
	}
	var page bytes.Buffer
	if err := WriteBenchHTML(&page, b, HTMLOptions{RunLink: func(rel string) string { return rel + "/review.html" }}); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if n := strings.Count(html, "<tr data-status="); n != 20 {
		t.Errorf("%d rows, want 20", n)
	}
	for _, a := range rows {
		if !strings.Contains(html, `<a href="runs/`+a.TaskID+`/review.html">`+a.TaskID+`</a>`) {
			t.Errorf("no link to %s's page", a.TaskID)
		}
	}
	var js bytes.Buffer
	if err := b.WriteJSON(&js); err != nil || !json.Valid(js.Bytes()) {
		t.Errorf("bench JSON: %v", err)
	}
}

func TestBenchWithoutResults(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{}`), 0o644)
	b, err := LoadBench(dir)
	if err != nil || len(b.Missing) != 1 {
		t.Errorf("%v %v", err, b.Missing)
	}
	if _, err := LoadBench(t.TempDir()); err == nil {
		t.Error("an empty directory is a bench")
	}
}

// A run folder no results line names yet (an attempt still going) is
// listed, and linked.
func TestBenchPending(t *testing.T) {
	dir, _ := makeBench(t)
	copyRun(t, fixture("crashed"), filepath.Join(dir, "task_21", "attempt_1"))
	b, err := LoadBench(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Pending) != 1 || b.Pending[0] != "task_21/attempt_1" {
		t.Fatalf("pending %v", b.Pending)
	}
	var page bytes.Buffer
	_ = WriteBenchHTML(&page, b, HTMLOptions{RunLink: func(rel string) string { return "/t/run/" + rel + "/" }})
	if !strings.Contains(page.String(), `<a href="/t/run/task_21/attempt_1/">task_21/attempt_1</a>`) || !strings.Contains(b.Markdown(), "- task_21/attempt_1") {
		t.Error("the pending run is not shown")
	}
}

// TestBenchWallTime: the wall time is bench.json's wall_seconds, the time
// of the sessions that ran attempts; a bench.json without it counts its
// start to its end.
func TestBenchWallTime(t *testing.T) {
	for _, c := range []struct {
		json string
		want float64
	}{
		{`{"started_at": "2026-01-01T10:00:00Z", "ended_at": "2026-01-02T10:00:10Z", "wall_seconds": 10}`, 10},
		{`{"started_at": "2026-01-01T10:00:00Z", "ended_at": "2026-01-01T10:00:12Z"}`, 12},
		{`{"started_at": "2026-01-01T10:00:00Z"}`, 0},
	} {
		dir, _ := makeBench(t)
		if err := os.WriteFile(filepath.Join(dir, "bench.json"), []byte(c.json), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := LoadBench(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Counts().Wall; got != c.want {
			t.Errorf("%s: wall %v, want %v", c.json, got, c.want)
		}
	}
}

// TestCountsLineSingular: one attempt and one error are said so.
func TestCountsLineSingular(t *testing.T) {
	var c Counts
	c.Attempts, c.Errors = 1, 1
	if got := countsLine(c, ""); !strings.HasPrefix(got, "1 attempt: 0 passed, 0 failed, 0 unscored, 1 error ·") {
		t.Errorf("countsLine = %q", got)
	}
	c.Attempts, c.Errors = 2, 2
	if got := countsLine(c, ""); !strings.HasPrefix(got, "2 attempts: 0 passed, 0 failed, 0 unscored, 2 errors ·") {
		t.Errorf("countsLine = %q", got)
	}
}

// TestCountsTokensMarkEstimates: a bench whose endpoints reported no usage
// shows wright's estimate, marked; one with both shows both.
func TestCountsTokensMarkEstimates(t *testing.T) {
	c := Counts{EstimatedPrompt: 8534}
	c.Attempts = 2
	if got := countsLine(c, ""); !strings.Contains(got, " · ~8534 prompt tokens est. (the endpoints reported none) · $0.0000") || strings.Contains(got, "0 tokens") {
		t.Errorf("countsLine = %q", got)
	}
	c.Tokens, c.PromptTokens = 1000, 900
	if got := c.TokensText(); got != "1000 tokens (900 prompt, 0 cached) + ~8534 prompt tokens est." {
		t.Errorf("TokensText = %q", got)
	}
}
