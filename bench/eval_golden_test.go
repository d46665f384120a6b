package bench

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/eval_golden.txt from what the code does now")

// goldenEvals are eval objects of every form a suite may give, good and
// bad, wright's own and WebArena's.
var goldenEvals = []string{
	`{"answer": {"must_include": ["42"]}, "url": "/done"}`,
	`{"answer": {"exact": "42"}}`,
	`{"answer": {"regex": "^The"}}`,
	`{"answer": {"regex": "("}}`,
	`{"answer": {"number": 42, "tolerance": 0.5}}`,
	`{"answer": {"fields": [{"path": "$.price", "number": 39.99, "tolerance": 0.01}, {"path": "$.title", "must_include": ["Go"]}]}}`,
	`{"answer": {"exact": "x", "fields": [{"path": "$.a", "exact": 1}]}}`,
	`{"url": "__SHOPPING__/orders?status=open"}`,
	`{"url": "/a |OR| /done"}`,
	`{"js": "document.title == 'A'"}`,
	`{"js": ["1", {"expr": "2"}, {"expr": "3", "url": "__SHOPPING__/x"}]}`,
	`{"js": [], "url": null, "answer": null}`,
	`{"judge": true}`,
	`{"judge": "be strict"}`,
	`{"judge": {"rubric": "r"}}`,
	`{"judge": false}`,
	`{"judge": null}`,
	`{"Answer": {"exact": "42"}, "URL": "/done"}`,
	`{"url": "/a", "url": "/done"}`,
	`{"judge": "r", "js": "1", "url": "/done", "answer": {"must_include": ["42"]}}`,
	`{}`,
	`null`,
	`{"bogus": 1}`,
	`{"bogus": 1, "other": 2}`,
	`{"bogus": 1, "url": 5}`,
	`{"url": 5, "bogus": 1}`,
	`{"url": 5}`,
	`{"answer": "42"}`,
	`{"answer": {"number": "x"}}`,
	`{"answer": {"bogus": 1}}`,
	`{"answer": {}}`,
	`{"answer": {"fields": [{"path": "price"}]}}`,
	`{"answer": {"fields": [{"path": 3}]}}`,
	`{"js": ""}`,
	`{"js": 5}`,
	`{"js": [{"url": "x"}]}`,
	`{"judge": 5}`,
	`{"judge": [1]}`,
	`5`,
	`[1]`,
	`{"eval_types": ["string_match"], "reference_answers": {"must_include": ["Sprite |OR| Coke"], "fuzzy_match": "N/A"}}`,
	`{"eval_types": ["string_match"], "reference_answers": {"exact_match": "42"}}`,
	`{"eval_types": ["string_match"], "reference_answers": {"fuzzy_match": ["about ten"]}}`,
	`{"eval_types": ["string_match"]}`,
	`{"eval_types": ["url_match"], "reference_url": ""}`,
	`{"eval_types": ["url_match", "program_html"], "reference_url": "__SHOPPING__/orders |OR| __SHOPPING__/done",
	  "program_html": [{"url": "last", "locator": "document.querySelector('h1').outerText", "required_contents": {"must_include": ["Orders"]}},
	                   {"url": "__SHOPPING__/p", "locator": "", "required_contents": {"exact_match": "Done"}},
	                   {"url": "", "locator": "", "required_contents": {"must_include": ["a |OR| b", "c"]}}]}`,
	`{"eval_types": []}`,
	`{"eval_types": ["llm_judge", "string_match"], "reference_answers": {"must_include": ["42"]}}`,
	`{"eval_types": "x"}`,
}

// goldenFinals are endings of an attempt the evaluators above are applied to.
func goldenFinals(exprs int) []struct {
	name string
	f    Final
} {
	yes, no := 1, 0
	var truthy, mixed []ProbeValue
	for i := range exprs {
		truthy = append(truthy, ProbeValue{Value: json.RawMessage(`true`)})
		switch i % 3 {
		case 0:
			mixed = append(mixed, ProbeValue{Value: json.RawMessage(`{"pass": false, "score": 0.5, "detail": "no"}`)})
		case 1:
			mixed = append(mixed, ProbeValue{Value: json.RawMessage(`0`)})
		default:
			mixed = append(mixed, ProbeValue{Err: "boom"})
		}
	}
	return []struct {
		name string
		f    Final
	}{
		{"good", Final{ExitStatus: "Submitted", Response: "The answer is 42", Page: &PageProbe{URL: "http://127.0.0.1:7770/orders?status=open&page=2", Values: truthy}}},
		{"json", Final{ExitStatus: "Submitted", Response: `{"title": "The Go book", "price": 39.99, "a": 1}`, GateLabel: &yes, Page: &PageProbe{URL: "http://a/done", Values: mixed}}},
		{"bad", Final{ExitStatus: "Submitted", Response: `{"title": "C", "price": 42.5}`, GateLabel: &no, Page: &PageProbe{URL: "http://x/cart"}}},
		{"nopage", Final{ExitStatus: "Submitted", Response: "x", PageErr: "the rerun opened no page"}},
		{"limits", Final{ExitStatus: "LimitsExceeded", Response: "42"}},
	}
}

// TestEvalDecodeAndScoreGolden pins what the loader makes of each eval form
// (its error, or the page expressions it probes) and what the evaluators
// record for each ending: the bytes results.jsonl gets.
func TestEvalDecodeAndScoreGolden(t *testing.T) {
	var lines []string
	for i, ev := range goldenEvals {
		lines = append(lines, fmt.Sprintf(`{"task_id": "e%d", "task": "t", "start_url": "http://a/", "eval": %s}`, i, strings.Join(strings.Fields(ev), " ")))
	}
	s, err := parse("s.jsonl", []byte(strings.Join(lines, "\n")), Options{Sites: map[string]string{"shopping": "http://127.0.0.1:7770/"}})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range s.Invalid {
		fmt.Fprintf(&b, "invalid %s\n", p)
	}
	for _, tk := range s.Tasks {
		fmt.Fprintf(&b, "\ntask %s: eval %v, needs page %v\n", tk.ID, tk.Eval != nil, tk.Eval.NeedsPage())
		exprs := tk.Eval.ProbeExprs()
		for _, e := range exprs {
			fmt.Fprintf(&b, "  probe %q\n", e)
		}
		for _, c := range goldenFinals(len(exprs)) {
			v := Score(context.Background(), tk, c.f)
			pb, _ := json.Marshal(v.Passed)
			eb, _ := json.Marshal(v.Evals)
			fmt.Fprintf(&b, "  %s: passed %s evals %s unscored %q\n", c.name, pb, eb, v.Unscored)
		}
	}
	path := filepath.Join("testdata", "eval_golden.txt")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run Golden -update writes it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("evaluators changed behaviour; got:\n%s", got)
	}
}
