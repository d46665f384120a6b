package bench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/bench/results"
)

func bp(b bool) *bool { return &b }

func TestSummarizeMatchesHandCounts(t *testing.T) {
	recs := []Record{
		{TaskID: "a", Attempt: 1, ExitStatus: "Submitted", Passed: bp(true), Steps: 4, Tokens: 100, Cost: 0.1, Seconds: 10, Level: "easy", Site: "shop"},
		{TaskID: "b", Attempt: 1, ExitStatus: "Submitted", Passed: bp(false), Steps: 6, Tokens: 300, Cost: 0.3, Seconds: 30, Level: "hard", Site: "shop"},
		{TaskID: "c", Attempt: 1, ExitStatus: "LimitsExceeded", Passed: bp(false), Steps: 10, Tokens: 200, Cost: 0.2, Seconds: 20, Level: "hard"},
		{TaskID: "d", Attempt: 1, ExitStatus: "Submitted", Passed: nil, Unscored: "judge endpoint down", Steps: 2, Tokens: 50, Cost: 0.05, Seconds: 5},
		{TaskID: "e", Attempt: 1, ExitStatus: "ModelError", Error: "endpoint unreachable", Cost: 0},
		// e's rerun supersedes its error line.
		{TaskID: "e", Attempt: 1, ExitStatus: "Submitted", Passed: bp(true), Steps: 8, Tokens: 400, Cost: 0.4, Seconds: 40, Level: "easy"},
		{TaskID: "f", Attempt: 1, ExitStatus: "TimeLimitExceeded", Passed: bp(false), Steps: 3, Tokens: 10, Cost: 0.01, Seconds: 600},
		{TaskID: "g", Attempt: 1, ExitStatus: "EnvironmentError", Error: "chromium failed to start"},
	}
	s := Summarize(recs, nil)
	if s.Total != 7 || s.Tasks != 7 || s.Passed != 2 || s.Failed != 3 || s.Rate.Unscored != 1 || s.Errors != 1 {
		t.Fatalf("counts = %+v", s)
	}
	if s.SuccessRate == nil || *s.SuccessRate != 0.4 {
		t.Errorf("success = %v, want 2/5", s.SuccessRate)
	}
	lo, hi := Wilson(2, 5)
	if s.CI95 != [2]float64{lo, hi} || !near(lo, 0.1176) || !near(hi, 0.7693) {
		t.Errorf("ci95 = %v", s.CI95)
	}
	if s.ByStatus["Submitted"] != 4 || s.ByStatus["error"] != 1 || s.ByStatus["TimeLimitExceeded"] != 1 {
		t.Errorf("by status = %v", s.ByStatus)
	}
	if r := s.ByLevel["hard"]; r.Passed != 0 || r.Failed != 2 || *r.SuccessRate != 0 {
		t.Errorf("hard = %+v", r)
	}
	if r := s.BySite["shop"]; r.Passed != 1 || r.Failed != 1 {
		t.Errorf("shop = %+v", r)
	}
	// Steps of the six non-error attempts: 2 3 4 6 8 10 -> median 5, p90 9.
	if s.Steps.Median != 5 || !near(s.Steps.P90, 9) {
		t.Errorf("steps = %+v", s.Steps)
	}
	if !near(s.TotalCost, 1.06) {
		t.Errorf("total cost = %v", s.TotalCost)
	}
	if len(s.UnscoredList) != 1 || s.UnscoredList[0].Reason != "judge endpoint down" || len(s.ErrorList) != 1 {
		t.Errorf("lists = %v %v", s.UnscoredList, s.ErrorList)
	}
	if s.PassAtK != nil {
		t.Errorf("pass@k without repeat: %v", s.PassAtK)
	}
}

func TestSummarizeRepeatPassAtK(t *testing.T) {
	var recs []Record
	add := func(id string, results ...bool) {
		for i, p := range results {
			recs = append(recs, Record{TaskID: id, Attempt: i + 1, ExitStatus: "Submitted", Passed: bp(p)})
		}
	}
	add("a", true, false, false)  // c=1 of 3
	add("b", true, true, true)    // c=3
	add("c", false, false, false) // c=0
	s := Summarize(recs, nil)
	// pass@1 = mean(1/3, 1, 0) = 4/9; pass@2 = mean(1-C(2,2)/C(3,2), 1, 0) = (2/3+1)/3.
	if s.PassAt1 == nil || !near(*s.PassAt1, 4.0/9) {
		t.Errorf("pass@1 = %v", s.PassAt1)
	}
	if !near(s.PassAtK[2], (2.0/3+1)/3) || !near(s.PassAtK[3], 2.0/3) {
		t.Errorf("pass@k = %v", s.PassAtK)
	}
	if s.Total != 9 || s.Tasks != 3 {
		t.Errorf("total %d tasks %d", s.Total, s.Tasks)
	}
}

func TestWriteSummaryAndMerge(t *testing.T) {
	root := t.TempDir()
	var dirs []string
	for i, recs := range [][]Record{
		{{TaskID: "a", Attempt: 1, ExitStatus: "Submitted", Passed: bp(true), RunDir: "a"}},
		{{TaskID: "b", Attempt: 1, ExitStatus: "Submitted", Passed: bp(false), RunDir: "b"}, {TaskID: "c", Attempt: 1, ExitStatus: "Submitted", Passed: bp(true), RunDir: "c"}},
	} {
		d := filepath.Join(root, "shard", string(rune('1'+i)))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		l, err := results.OpenLog(filepath.Join(d, ResultsFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := l.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		l.Close()
		dirs = append(dirs, d)
	}
	// A torn last line, as a killed bench leaves, is skipped.
	f, _ := os.OpenFile(filepath.Join(dirs[1], ResultsFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"task_id": "d", "att`)
	f.Close()
	out := filepath.Join(root, "merged")
	s, err := Merge(out, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if s.Passed != 2 || s.Failed != 1 {
		t.Errorf("merged = %+v", s.Rate)
	}
	recs, skipped, err := results.Read(filepath.Join(out, ResultsFile))
	if err != nil || skipped != 0 || len(recs) != 3 {
		t.Fatalf("merged records %d skipped %d err %v", len(recs), skipped, err)
	}
	if recs[1].RunDir != filepath.Join("..", "shard", "2", "b") {
		t.Errorf("run_dir rewritten to %q", recs[1].RunDir)
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || !strings.Contains(string(md), "| success rate | 66.7%") {
		t.Errorf("summary.md:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Error(err)
	}
	if _, err := Merge(filepath.Join(root, "m2"), []string{filepath.Join(root, "nope")}); err == nil {
		t.Error("merge of a missing shard succeeded")
	}
}

func TestCompareKnownPValue(t *testing.T) {
	var a, b []Record
	// 10 tasks: 3 both pass, 1 only A, 5 only B, 1 neither.
	pattern := []struct{ a, b bool }{{true, true}, {true, true}, {true, true}, {true, false},
		{false, true}, {false, true}, {false, true}, {false, true}, {false, true}, {false, false}}
	for i, p := range pattern {
		id := string(rune('a' + i))
		a = append(a, Record{TaskID: id, Attempt: 1, ExitStatus: "Submitted", Passed: bp(p.a), Cost: 0.1, Steps: 4})
		b = append(b, Record{TaskID: id, Attempt: 1, ExitStatus: "Submitted", Passed: bp(p.b), Cost: 0.2, Steps: 6})
	}
	b = append(b, Record{TaskID: "z", Attempt: 1, ExitStatus: "Submitted", Passed: bp(true)})
	c := Compare(a, b)
	if c.Both != 3 || c.OnlyA != 1 || c.OnlyB != 5 || c.Neither != 1 || c.OnlyInB != 1 {
		t.Fatalf("compare = %+v", c)
	}
	// Exact: 2 * (C(6,0)+C(6,1)) / 64 = 14/64.
	if !near(c.PValue, 14.0/64) {
		t.Errorf("p = %v", c.PValue)
	}
	var sb strings.Builder
	c.Write(&sb, "A", "B")
	for _, want := range []string{"only A: 1", "only B: 5", "p = 0.2188", "B-A +1.0000", "B-A +2.0"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, sb.String())
		}
	}
}

func TestLockRefusesASecondHolder(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir, "pid 1 on host")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Acquire(dir, "other"); err == nil || !strings.Contains(err.Error(), "pid 1 on host") {
		t.Errorf("second acquire: %v", err)
	}
	l.Release()
	l2, err := Acquire(dir, "again")
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	l2.Release()
}

func TestSummaryCountsCachedTokens(t *testing.T) {
	recs := []Record{
		{TaskID: "a", Attempt: 1, ExitStatus: "Submitted", Passed: bp(true), Tokens: 1100, PromptTokens: 1000, CachedTokens: 600},
		{TaskID: "b", Attempt: 1, ExitStatus: "Submitted", Passed: bp(false), Tokens: 3300, PromptTokens: 3000, CachedTokens: 2400},
	}
	s := Summarize(recs, nil)
	if s.PromptTokens != 4000 || s.CachedTokens != 3000 {
		t.Errorf("prompt %d cached %d, want 4000 and 3000", s.PromptTokens, s.CachedTokens)
	}
	if md := s.Markdown(); !strings.Contains(md, "| prompt tokens (cached) | 4000 (3000, 75%) |") {
		t.Errorf("summary.md lacks the cached share:\n%s", md)
	}
}

// slow finishes each attempt after d, passed.
type slow struct{ d time.Duration }

func (s slow) Run(ctx context.Context, a Attempt) (Record, error) {
	time.Sleep(s.d)
	passed := true
	return Record{ExitStatus: "Submitted", Passed: &passed, Steps: 1, Seconds: s.d.Seconds()}, nil
}

// TestResumeKeepsFirstStart: a resume with nothing left to run keeps the
// bench's start, end and wall time; one that runs an attempt keeps the
// start and adds only its own session to the wall time.
func TestResumeKeepsFirstStart(t *testing.T) {
	dir := t.TempDir()
	tasks := []Task{{ID: "a", Text: "x", StartURL: "http://127.0.0.1:9/"}}
	run := func(repeat int) *Repro {
		t.Helper()
		r := &Repro{Started: time.Now(), Repeat: repeat}
		if _, err := Run(context.Background(), Config{Dir: dir, Repeat: repeat, Repro: r}, tasks, slow{300 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		got, err := ReadRepro(dir)
		if err != nil || got == nil {
			t.Fatalf("bench.json: %v", err)
		}
		return got
	}
	first := run(1)
	if first.WallSeconds < 0.3 || first.Ended.Sub(first.Started) < 300*time.Millisecond {
		t.Fatalf("first session: started %v, ended %v, wall %.2fs", first.Started, first.Ended, first.WallSeconds)
	}
	time.Sleep(500 * time.Millisecond) // a pause between sessions is no one's work
	idle := run(1)
	if !idle.Started.Equal(first.Started) || !idle.Ended.Equal(first.Ended) || idle.WallSeconds != first.WallSeconds {
		t.Errorf("a resume that ran nothing moved the record: %v–%v %.2fs, was %v–%v %.2fs",
			idle.Started, idle.Ended, idle.WallSeconds, first.Started, first.Ended, first.WallSeconds)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "started "+first.Started.UTC().Format(time.RFC3339)+", ended "+first.Ended.UTC().Format(time.RFC3339)) {
		t.Errorf("summary.md lost the first session's start and end:\n%s", md)
	}
	more := run(2) // a second attempt per task: this session works
	if !more.Started.Equal(first.Started) || !more.Ended.After(first.Ended) {
		t.Errorf("a working resume: %v–%v, first %v–%v", more.Started, more.Ended, first.Started, first.Ended)
	}
	if gap := more.Ended.Sub(more.Started).Seconds(); more.WallSeconds < first.WallSeconds+0.3 || more.WallSeconds > gap-0.4 {
		t.Errorf("wall %.2fs after two working sessions (first %.2fs, start to end %.2fs): the idle pause should not count", more.WallSeconds, first.WallSeconds, gap)
	}
}

// TestSummaryMarksEstimatedTokens: attempts whose endpoint reported no
// usage add their estimates to a row of their own, marked est.
func TestSummaryMarksEstimatedTokens(t *testing.T) {
	recs := []Record{{TaskID: "a", Attempt: 1, ExitStatus: "Submitted", Passed: bp(true), EstimatedPromptTokens: 4341},
		{TaskID: "b", Attempt: 1, ExitStatus: "Submitted", Passed: bp(true), EstimatedPromptTokens: 4193}}
	s := Summarize(recs, nil)
	if s.EstimatedPromptTokens != 8534 || s.PromptTokens != 0 {
		t.Fatalf("summary tokens: %d reported, %d estimated", s.PromptTokens, s.EstimatedPromptTokens)
	}
	dir := t.TempDir()
	if err := WriteSummary(dir, s); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "| prompt tokens the endpoint did not report | ~8534 est. |") {
		t.Errorf("summary.md:\n%s", md)
	}
}
