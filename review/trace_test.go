package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFinalRunTrace: a final run's trace.zip (gate.trace) is linked in
// every view; one that is a link the model planted is not.
func TestFinalRunTrace(t *testing.T) {
	run := copyRun(t, fixture("finished"), filepath.Join(t.TempDir(), "run"))
	trace := filepath.Join(run, "workspace", "final_runs", "run_1", "trace.zip")
	if err := os.WriteFile(trace, []byte("PK\x05\x06"+strings.Repeat("\x00", 18)), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := LoadRun(run)
	if err != nil {
		t.Fatal(err)
	}
	text, d, page := renderAll(t, r)
	const rel = "workspace/final_runs/run_1/trace.zip"
	if !strings.Contains(text, rel) || !strings.Contains(page, `href="`+rel+`"`) || d.FinalRuns[0].Trace != rel {
		t.Errorf("the trace is not linked:\ntext: %v\ndigest: %+v", strings.Contains(text, rel), d.FinalRuns[0])
	}

	os.Remove(trace)
	if err := os.Symlink("/etc/passwd", trace); err != nil {
		t.Fatal(err)
	}
	r, err = LoadRun(run)
	if err != nil {
		t.Fatal(err)
	}
	text, d, page = renderAll(t, r)
	if strings.Contains(text, "trace.zip") || strings.Contains(page, "trace.zip") || d.FinalRuns[0].Trace != "" {
		t.Error("a planted link is shown as the run's trace")
	}
}
