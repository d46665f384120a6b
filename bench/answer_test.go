package bench

import (
	"context"
	"strings"
	"testing"
)

func TestCheckText(t *testing.T) {
	s := func(v string) *string { return &v }
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		name  string
		check AnswerCheck
		final string
		pass  bool
	}{
		{"exact ignores case and space", AnswerCheck{Exact: s("Sprite")}, "  sprite ", true},
		{"exact differs", AnswerCheck{Exact: s("Sprite")}, "Sprite Zero", false},
		{"must include all", AnswerCheck{MustInclude: []string{"go", "Kernighan"}}, "The Go book by Kernighan", true},
		{"must include one missing", AnswerCheck{MustInclude: []string{"go", "Pike"}}, "The Go book by Kernighan", false},
		{"or alternatives", AnswerCheck{MustInclude: []string{"Coke |OR| Sprite"}}, "It is sprite", true},
		{"regex", AnswerCheck{Regex: `^ORD-\d{4}$`}, "ORD-1234", true},
		{"regex fails", AnswerCheck{Regex: `^ORD-\d{4}$`}, "order 1234", false},
		{"number within tolerance", AnswerCheck{Number: f(1299.5), Tolerance: 0.01}, "The price is $1,299.50.", true},
		{"number outside", AnswerCheck{Number: f(39.99), Tolerance: 0.001}, "It costs 40 dollars", false},
		{"all checks together", AnswerCheck{Exact: s("42"), Number: f(42)}, "42", true},
	}
	for _, c := range cases {
		got, detail := c.check.CheckText(c.final)
		if got != c.pass {
			t.Errorf("%s: pass = %v (%s)", c.name, got, detail)
		}
		if !got && detail == "" {
			t.Errorf("%s: a failure without a detail", c.name)
		}
	}
}

func TestMatchURL(t *testing.T) {
	cases := []struct {
		gold, final string
		pass        bool
	}{
		{"http://shop/orders", "http://shop/orders/?page=2", true},
		{"http://shop/orders?status=open", "http://shop/orders?status=open&page=2", true},
		{"http://shop/orders?status=open", "http://shop/orders?status=closed", false},
		{"http://shop/orders", "http://shop/cart", false},
		{"/book.html?id=3", "http://127.0.0.1:5555/book.html?id=3", true},
		{"/book.html?id=3", "http://127.0.0.1:5555/book.html?id=4", false},
		{"http://a/x |OR| http://a/y", "http://a/y", true},
	}
	for _, c := range cases {
		if got, _ := MatchURL(c.gold, c.final); got != c.pass {
			t.Errorf("MatchURL(%q, %q) = %v", c.gold, c.final, got)
		}
	}
}

func TestScoreFieldsAndSchema(t *testing.T) {
	price := 39.99
	task := Task{ID: "x", Eval: &Eval{Checks: []Check{{Kind: "answer", Evaluator: &AnswerCheck{Fields: []FieldCheck{
		{Path: "$.price", Number: &price, Tolerance: 0.01},
		{Path: "$.title", MustInclude: []string{"Go"}},
	}}}}}}
	ctx := context.Background()
	v := Score(ctx, task, Final{ExitStatus: "Submitted", Response: `{"title": "The Go Programming Language", "price": 39.99}`})
	if v.Passed == nil || !*v.Passed {
		t.Errorf("valid fields failed: %+v", v.Evals)
	}
	v = Score(ctx, task, Final{ExitStatus: "Submitted", Response: `{"title": "The Go Programming Language", "price": 42.5}`})
	if v.Passed == nil || *v.Passed || !strings.Contains(v.Evals[0].Detail, "$.price") {
		t.Errorf("wrong price passed: %+v", v.Evals)
	}
	if v = Score(ctx, task, Final{ExitStatus: "Submitted", Response: "It costs $39.99"}); v.Passed == nil || *v.Passed {
		t.Error("prose passed field checks")
	}
	if v = Score(ctx, task, Final{ExitStatus: "LimitsExceeded"}); v.Passed == nil || *v.Passed {
		t.Error("an attempt that did not submit passed")
	}
}

func TestTaskOutputSchema(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "s.jsonl", `{"task_id": "ok", "task": "t", "start_url": "http://a/", "output_schema": {"type": "object", "required": ["price"]}}
{"task_id": "bad", "task": "t", "start_url": "http://a/", "output_schema": {"type": "no-such-type"}}
{"task_id": "badfield", "task": "t", "start_url": "http://a/", "eval": {"answer": {"fields": [{"path": "price"}]}}}`)
	s, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 1 || s.Tasks[0].Schema == nil {
		t.Fatalf("tasks %+v", s.Tasks)
	}
	if len(s.Invalid) != 2 || !strings.Contains(s.Invalid[0].Reason, "output_schema") {
		t.Errorf("invalid %v", s.Invalid)
	}
}
