package demo

import (
	"testing"

	"wright/bench"
)

func TestBenchSuiteLoadsWithRecordingsAndEvaluators(t *testing.T) {
	s, err := bench.Load("builtin:demo", bench.Options{Builtin: BenchSuite, Sites: map[string]string{SitePlaceholder: "http://127.0.0.1:9/"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Invalid) > 0 || len(s.Tasks) < 10 {
		t.Fatalf("%d tasks, invalid %v", len(s.Tasks), s.Invalid)
	}
	recorded := map[string]bool{}
	for _, id := range RecordedTasks() {
		recorded[id] = true
	}
	for _, tk := range s.Tasks {
		if tk.Eval.Check("js") == nil && tk.Eval.Check("answer") == nil && tk.Eval.Check("url") == nil {
			t.Errorf("%s has no js, answer or url evaluator", tk.ID)
		}
		if tk.StartURL != "http://127.0.0.1:9/" {
			t.Errorf("%s start URL %q", tk.ID, tk.StartURL)
		}
		if _, ok := Recorded(tk.ID); !ok || !recorded[tk.ID] {
			t.Errorf("%s has no recorded replies", tk.ID)
		}
	}
	if _, err := BenchSuite("nope"); err == nil {
		t.Error("unknown built-in suite accepted")
	}
}
