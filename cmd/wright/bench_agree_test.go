package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/bench"
	"wright/bench/results"
	"wright/review"
)

// summary.md, summary.json and `wright review` count a resumed bench alike:
// a rerun supersedes its interrupted or errored line, and an attempt is
// counted once, by its latest record.
func TestBenchSummaryAndReviewAgree(t *testing.T) {
	yes, no := true, false
	recs := []results.Record{
		{TaskID: "a", Attempt: 1, ExitStatus: "Interrupted", Mode: "browser"},
		{TaskID: "b", Attempt: 1, ExitStatus: "Submitted", Passed: &no, Mode: "workspace", FinalResponse: "41"},
		{TaskID: "c", Attempt: 1, ExitStatus: "EnvironmentError", Error: "the browser would not start"},
		{TaskID: "a", Attempt: 1, ExitStatus: "Submitted", Passed: &yes, Mode: "browser", FinalResponse: "42", Level: "easy"},
		{TaskID: "c", Attempt: 1, ExitStatus: "LimitsExceeded", Unscored: "no evaluator", Level: "hard"},
		{TaskID: "d", Attempt: 1, ExitStatus: "Interrupted"},
	}
	dir := t.TempDir()
	var lines bytes.Buffer
	for _, r := range recs {
		b, _ := json.Marshal(r)
		lines.Write(append(b, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, bench.ResultsFile), lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	repro := &bench.Repro{Version: "dev", Mode: "workspace", Started: start, Ended: start.Add(95 * time.Second)}
	if err := bench.WriteRepro(dir, repro); err != nil {
		t.Fatal(err)
	}
	sum := bench.Summarize(recs, repro)
	if err := bench.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	b, err := review.LoadBench(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := b.Counts()
	if c.Attempts != sum.Total || c.Passed != sum.Passed || c.Failed != sum.Failed || c.Unscored != sum.Rate.Unscored ||
		c.Errors != sum.Errors || c.Interrupted != sum.Interrupted {
		t.Fatalf("review counts %+v, summary %+v", c, sum.Rate)
	}
	if c.Attempts != 4 || c.Passed != 1 || c.Failed != 1 || c.Unscored != 1 || c.Interrupted != 1 || c.Errors != 0 {
		t.Errorf("counts %+v", c)
	}
	if c.Wall != 95 {
		t.Errorf("wall time %v, want bench.json's 95 s", c.Wall)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, want := range []string{"| a | 1 | browser | Submitted | pass |", "| 42 |", "| b | 1 | workspace | Submitted | fail |", "- wright dev\n", "interrupted (run again on resume) | 1"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	text := b.Markdown()
	for _, want := range []string{"4 attempts: **1 passed**, **1 failed**, 1 unscored, 1 interrupted", "1m35s wall time", "Success rate **50.0%** (95% CI",
		"| level | success |", "| easy | 100.0% |"} {
		if !strings.Contains(text, want) {
			t.Errorf("review lacks %q:\n%s", want, text)
		}
	}
	var page bytes.Buffer
	if err := review.WriteBenchHTML(&page, b, review.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if !strings.Contains(html, `<span class="badge fail">1 failed</span>`) || !strings.Contains(html, `id="rate">50.0%`) || !strings.Contains(html, "1m35s wall time") {
		t.Errorf("bench page counts:\n%.1500s", html)
	}
	// No red badge for nothing.
	recs = recs[:1]
	recs[0].ExitStatus, recs[0].Passed = "Submitted", &yes
	lines.Reset()
	bl, _ := json.Marshal(recs[0])
	os.WriteFile(filepath.Join(dir, bench.ResultsFile), append(bl, '\n'), 0o644)
	b, _ = review.LoadBench(dir)
	page.Reset()
	review.WriteBenchHTML(&page, b, review.HTMLOptions{})
	if strings.Contains(page.String(), `class="badge fail"`) {
		t.Error("a red badge for 0 failed")
	}
}
