package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/bench/results"
	"wright/model"
	"wright/run/config"
)

// fileKind is a kind of check that exists only in this test, and all a new
// evaluator is: "file": {"path": "report.txt", "contains": "42"} passes when
// the run left that file in its workspace holding that text.
var fileKind = Kind{Name: "file", Order: 50, Decode: func(raw json.RawMessage, _ Options) (Evaluator, error) {
	c := &fileCheck{}
	if err := decodeStrict(raw, c); err != nil {
		return nil, err
	}
	if c.Path == "" || !filepath.IsLocal(c.Path) {
		return nil, fmt.Errorf("want a path inside the workspace, not %q", c.Path)
	}
	return c, nil
}}

type fileCheck struct {
	Path     string `json:"path"`
	Contains string `json:"contains"`
}

func (c *fileCheck) Evaluate(_ context.Context, f Final) ([]EvalResult, model.Usage) {
	r := EvalResult{Kind: "file"}
	b, err := os.ReadFile(filepath.Join(f.RunDir, "workspace", c.Path))
	pass := err == nil && strings.Contains(string(b), c.Contains)
	switch {
	case errors.Is(err, os.ErrNotExist):
		r.Detail = "no " + c.Path + " in the workspace"
	case err != nil:
		// Unreadable is not the agent's failure: the check could not run.
		r.Detail = err.Error()
		return []EvalResult{r}, model.Usage{}
	case pass:
		r.Detail = fmt.Sprintf("%s holds %q", c.Path, c.Contains)
	default:
		r.Detail = fmt.Sprintf("%s lacks %q", c.Path, c.Contains)
	}
	r.Passed = &pass
	return []EvalResult{r}, model.Usage{}
}

// TestAnEvaluatorIsOneRegistration registers the file check, loads a suite
// file that asks for it beside a built-in one, runs two real workspace
// attempts through the bench (the replay model, a real shell), one that
// writes the file and one that does not, and reads results.jsonl and the
// summary: the new kind is decoded, run on each attempt's run folder, and
// recorded after the built-in answer check.
func TestAnEvaluatorIsOneRegistration(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two attempts")
	}
	// Registered here rather than from init, as a real kind is, so that
	// the package's other tests see only the built-in kinds.
	RegisterEvaluator(fileKind)
	t.Cleanup(func() { unregister("file") })

	dir := t.TempDir()
	step := func(cmd string) string {
		b, _ := json.Marshal(map[string]any{"thought": "write it", "bash_command": cmd, "done": false, "final_response": ""})
		return string(b)
	}
	done := `{"thought": "done", "bash_command": "", "done": true, "final_response": "The total is 42"}`
	write(t, dir, "wrote.replay.jsonl", step(`printf 'total: 42\n' > report.txt`)+"\n"+done+"\n")
	write(t, dir, "forgot.replay.jsonl", step(`echo no report`)+"\n"+done+"\n")
	eval := `"eval": {"file": {"path": "report.txt", "contains": "42"}, "answer": {"must_include": ["42"]}}`
	suite := write(t, dir, "s.jsonl", strings.Join([]string{
		`{"task_id": "wrote", "task": "Write the total to report.txt", "start_url": "http://127.0.0.1:9/", ` + eval + `}`,
		`{"task_id": "forgot", "task": "Write the total to report.txt", "start_url": "http://127.0.0.1:9/", ` + eval + `}`,
		`{"task_id": "outside", "task": "t", "start_url": "http://127.0.0.1:9/", "eval": {"file": {"path": "../x"}}}`,
		`{"task_id": "typo", "task": "t", "start_url": "http://127.0.0.1:9/", "eval": {"file": {"path": "a", "size": 3}}}`,
	}, "\n"))
	s, err := Load(suite, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 2 || len(s.Invalid) != 2 {
		t.Fatalf("tasks %d, invalid %v: the new kind's decoding should take two and refuse two", len(s.Tasks), s.Invalid)
	}
	for i, want := range []string{suite + `:3: eval: file: want a path inside the workspace, not "../x"`,
		suite + `:4: eval: json: unknown field "size" (known checks: answer, url, js, judge, file)`} {
		if got := s.Invalid[i].String(); got != want {
			t.Errorf("invalid[%d] = %q, want %q", i, got, want)
		}
	}
	if _, ok := s.Tasks[0].Eval.Check("file").(*fileCheck); !ok || s.Tasks[0].Eval.NeedsPage() {
		t.Fatalf("eval %+v: a file check, and no page to keep", s.Tasks[0].Eval)
	}

	out := filepath.Join(dir, "bench")
	x := &HarnessExecutor{Config: func(tk Task, _ int) (*config.Config, error) {
		// No gate (its judge has no recorded replies) and no sandbox (it
		// would start this test binary as wright's).
		return config.Load(nil, map[string]any{
			"model.name":                            model.ReplayPrefix + filepath.Join(dir, tk.ID+".replay.jsonl"),
			"agent.require_self_reflection_success": false,
			"env.sandbox":                           "none",
		})
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o, err := Run(ctx, Config{Dir: out, Parallel: 2}, s.Tasks, x)
	if err != nil || o.Ran != 2 {
		t.Fatalf("bench: %v, ran %d", err, o.Ran)
	}

	recs, _, err := results.Read(filepath.Join(out, ResultsFile))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Record{}
	for _, r := range recs {
		got[r.TaskID] = r
	}
	yes, no := true, false
	want := map[string]struct {
		passed bool
		evals  []EvalResult
	}{
		"wrote":  {true, []EvalResult{{Kind: "answer", Passed: &yes}, {Kind: "file", Passed: &yes, Detail: `report.txt holds "42"`}}},
		"forgot": {false, []EvalResult{{Kind: "answer", Passed: &yes}, {Kind: "file", Passed: &no, Detail: "no report.txt in the workspace"}}},
	}
	for id, w := range want {
		r := got[id]
		gb, _ := json.Marshal(r.Evals)
		wb, _ := json.Marshal(w.evals)
		if r.ExitStatus != "Submitted" || r.Steps != 2 || r.Passed == nil || *r.Passed != w.passed || string(gb) != string(wb) {
			t.Errorf("%s: status %s after %d steps, passed %v evals %s; want passed %v evals %s", id, r.ExitStatus, r.Steps, r.Passed, gb, w.passed, wb)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil || !strings.Contains(string(md), "✓answer ✓file") || !strings.Contains(string(md), "✓answer ✗file") {
		t.Errorf("summary.md shows no file check (%v):\n%s", err, md)
	}
}

// unregister takes a test's kind out of the registry again.
func unregister(name string) {
	for i, k := range kinds {
		if k.Name == name {
			kinds = append(kinds[:i], kinds[i+1:]...)
			return
		}
	}
}
