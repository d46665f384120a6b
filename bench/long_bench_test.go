package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"wright/bench/results"
)

// The benchmarks of a long suite (docs/performance.md): what the harness
// spends on 1,000 tasks before the first one starts, and on summarising
// their results. Run with
//
//	go test ./bench/ -run '^$' -bench 'Long' -benchmem

const longN = 1000

// longSuite writes a suite of n generated tasks, each with a level, a site,
// a config layer and an answer check, as published suites carry.
func longSuite(tb testing.TB, n int) string {
	tb.Helper()
	var b strings.Builder
	for i := range n {
		line, _ := json.Marshal(map[string]any{
			"task_id": fmt.Sprintf("gen-%04d", i), "task": fmt.Sprintf("Find the price of item %d in the catalogue and report it in euros.", i),
			"start_url": "http://shop.example/item/" + fmt.Sprint(i), "level": []string{"easy", "medium", "hard"}[i%3],
			"web_name": fmt.Sprintf("site%d", i%7), "mode": "browser",
			"config": map[string]any{"agent": map[string]any{"step_limit": 20}},
			"eval":   map[string]any{"answer": map[string]any{"number": float64(i) + 0.5, "tolerance": 0.01}, "js": "document.title !== ''"},
		})
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(tb.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// longResults writes results.jsonl with one final record for each of ids.
func longResults(tb testing.TB, dir string, ids []string) {
	tb.Helper()
	var b strings.Builder
	for i, id := range ids {
		passed := i%3 != 0
		label := 1
		r := results.Record{
			TaskID: id, Attempt: 1, ExitStatus: "Submitted", GateLabel: &label, Passed: &passed,
			Evals: []results.Eval{{Kind: "answer", Passed: &passed, Detail: "want 12.5, got 12.50"}},
			Steps: 7 + i%5, Tokens: 12000 + i, Cost: 0.0123, Seconds: 31.5, RunDir: SafeName(id),
			Level: []string{"easy", "medium", "hard"}[i%3], Site: fmt.Sprintf("site%d", i%7),
			FinalResponse: "The price is 12.50 EUR.",
		}
		line, _ := json.Marshal(r)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(dir, ResultsFile), []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// firstTask is an executor that ends the bench at its first attempt: the
// time until then is what a bench costs before any task starts.
type firstTask struct{ cancel context.CancelFunc }

func (f firstTask) Run(ctx context.Context, a Attempt) (Record, error) {
	f.cancel()
	return Record{ExitStatus: "Interrupted"}, nil
}

func BenchmarkLongLoad(b *testing.B) {
	path := longSuite(b, longN)
	b.ReportAllocs()
	for b.Loop() {
		s, err := Load(path, Options{})
		if err != nil || len(s.Tasks) != longN {
			b.Fatalf("%v, %d tasks", err, len(s.Tasks))
		}
	}
}

func BenchmarkLongSelect(b *testing.B) {
	s, err := Load(longSuite(b, longN), Options{})
	if err != nil {
		b.Fatal(err)
	}
	sel := Selection{Filter: regexp.MustCompile(`^gen-0[0-8]`), Shard: Shard{3, 4}}
	b.ReportAllocs()
	for b.Loop() {
		if got := sel.Select(s.Tasks); len(got) != 225 {
			b.Fatalf("%d selected", len(got))
		}
	}
}

// BenchmarkLongResume is a resumed bench of 1,000 tasks of which 999 are
// final: the suite loaded and selected, results.jsonl read, the summary
// written, up to the moment the one task left starts.
func BenchmarkLongResume(b *testing.B) {
	path := longSuite(b, longN)
	s, err := Load(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var ids []string
	for _, t := range s.Tasks[1:] {
		ids = append(ids, t.ID)
	}
	dir := b.TempDir()
	longResults(b, dir, ids)
	prior, err := os.ReadFile(filepath.Join(dir, ResultsFile))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		// The executor's Interrupted line is a record; the next round starts
		// from the same 999.
		if err := os.WriteFile(filepath.Join(dir, ResultsFile), prior, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		s, err := Load(path, Options{})
		if err != nil {
			b.Fatal(err)
		}
		tasks := Selection{}.Select(s.Tasks)
		ctx, cancel := context.WithCancel(context.Background())
		out, err := Run(ctx, Config{Dir: dir, Parallel: 16}, tasks, firstTask{cancel})
		cancel()
		if err != nil || out.Skipped != longN-1 {
			b.Fatalf("%v, %d skipped", err, out.Skipped)
		}
	}
}

// BenchmarkLongSummarize reads results.jsonl of 1,000 records and writes
// the summary, as `wright bench summarize` and the end of a bench do.
func BenchmarkLongSummarize(b *testing.B) {
	dir := b.TempDir()
	var ids []string
	for i := range longN {
		ids = append(ids, fmt.Sprintf("gen-%04d", i))
	}
	longResults(b, dir, ids)
	b.ReportAllocs()
	for b.Loop() {
		recs, _, err := results.Read(filepath.Join(dir, ResultsFile))
		if err != nil || len(recs) != longN {
			b.Fatalf("%v, %d records", err, len(recs))
		}
		if err := WriteSummary(dir, Summarize(recs, nil)); err != nil {
			b.Fatal(err)
		}
	}
}

// noop finishes every attempt at once, passed: what is left is the
// scheduler's own cost per attempt.
type noop struct{}

func (noop) Run(ctx context.Context, a Attempt) (Record, error) {
	passed := true
	return Record{ExitStatus: "Submitted", Passed: &passed, Steps: 3, Seconds: 1}, nil
}

// BenchmarkLongRun runs 1,000 attempts that take no time at --parallel 16:
// the bench's bookkeeping per attempt (the results line, the summary).
func BenchmarkLongRun(b *testing.B) {
	s, err := Load(longSuite(b, longN), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		dir := b.TempDir()
		out, err := Run(context.Background(), Config{Dir: dir, Parallel: 16}, s.Tasks, noop{})
		if err != nil || out.Ran != longN {
			b.Fatalf("%v, %d ran", err, out.Ran)
		}
	}
}
