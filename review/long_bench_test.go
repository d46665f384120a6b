package review

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/bench/results"
)

// BenchmarkLongBenchReview reads a bench of 1,000 attempts (a third failed,
// each with its run directory and result.json) and renders it as Markdown
// and HTML, as `wright review DIR` does (docs/performance.md):
//
//	go test ./review/ -run '^$' -bench LongBenchReview -benchmem
func BenchmarkLongBenchReview(b *testing.B) {
	dir := b.TempDir()
	var lines strings.Builder
	for i := range 1000 {
		id := fmt.Sprintf("gen-%04d", i)
		passed := i%3 != 0
		r := results.Record{TaskID: id, Attempt: 1, ExitStatus: "Submitted", Passed: &passed, RunDir: id,
			Evals: []results.Eval{{Kind: "answer", Passed: &passed, Detail: "want 12.5, got 13"}},
			Steps: 7, Tokens: 12000, Cost: 0.01, Seconds: 30, Level: "easy", Site: fmt.Sprintf("site%d", i%7)}
		line, _ := json.Marshal(r)
		lines.Write(line)
		lines.WriteByte('\n')
		if err := os.MkdirAll(filepath.Join(dir, id), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id, "result.json"), []byte(`{"exit_status":"Submitted","message":"done"}`), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(lines.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		bench, err := LoadBench(dir)
		if err != nil || len(bench.Attempts) != 1000 {
			b.Fatalf("%v, %d attempts", err, len(bench.Attempts))
		}
		_ = bench.Markdown()
		if err := WriteBenchHTML(io.Discard, bench, HTMLOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
