package output

import (
	"strings"
	"testing"
)

func num(f float64) *float64 { return &f }

func TestEvaluateFields(t *testing.T) {
	s := mustCompile(t, bookSchema)
	result, problems := s.Validate(`{"title": "The Go Programming Language", "author": "Alan A. A. Donovan,  Brian W. Kernighan", "price": 39.99, "tags": ["Go", "Programming"]}`)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	passing := []Field{
		{Path: "$.price", Number: num(39.99), Tolerance: 0.01},
		{Path: "$.price", Number: num(40), Tolerance: 0.02},
		{Path: "$.title", Exact: "The Go Programming Language"},
		{Path: "$.price", Exact: 39.99},
		{Path: "$.author", MustInclude: []string{"donovan", "brian w. kernighan"}},
		{Path: "$.tags", MustInclude: []string{"programming"}},
		{Path: "$.tags[0]", Regex: "^Go$"},
		{Path: "$.title", Regex: `(?i)go programming`, MustInclude: []string{"Language"}},
	}
	results, pass, err := Evaluate(result, passing)
	if err != nil || !pass {
		t.Fatalf("pass %v err %v results %+v", pass, err, results)
	}

	failing := []struct {
		field  Field
		reason string
	}{
		{Field{Path: "$.price", Number: num(39.99)}, ""}, // placeholder replaced below
		{Field{Path: "$.price", Number: num(35), Tolerance: 1}, "expected 35 ± 1, got 39.99"},
		{Field{Path: "$.title", Exact: "the go programming language"}, "expected exactly"},
		{Field{Path: "$.author", MustInclude: []string{"Pike"}}, `does not include "Pike"`},
		{Field{Path: "$.title", Regex: "^Go"}, "does not match"},
		{Field{Path: "$.isbn", Exact: "x"}, "no value at $.isbn"},
		{Field{Path: "$.title", Number: num(1)}, "is not a number"},
	}
	failing = failing[1:]
	for _, c := range failing {
		results, pass, err := Evaluate(result, []Field{c.field})
		if err != nil || pass || results[0].Pass || !strings.Contains(results[0].Reason, c.reason) {
			t.Errorf("%+v: pass %v err %v results %+v", c.field, pass, err, results)
		}
	}
	// One failing field fails the whole answer, and the others still report.
	results, pass, _ = Evaluate(result, []Field{passing[0], failing[0].field})
	if pass || !results[0].Pass || results[1].Pass {
		t.Fatalf("mixed: %+v", results)
	}
}

func TestEvaluateReadsNumbersInText(t *testing.T) {
	var v any = map[string]any{"price": "$1,299.50", "discount": "-5%"}
	results, pass, err := Evaluate(v, []Field{
		{Path: "$.price", Number: num(1299.5)},
		{Path: "$.discount", Number: num(-5)},
	})
	if err != nil || !pass {
		t.Fatalf("%v %+v", err, results)
	}
}

func TestMalformedFieldsAreErrors(t *testing.T) {
	for _, f := range []Field{
		{Path: "price", Exact: 1},
		{Path: "$.price"},
		{Path: "$.price", Regex: "("},
		{Path: "$.price", Number: num(1), Tolerance: -1},
	} {
		if _, _, err := Evaluate(map[string]any{"price": 1}, []Field{f}); err == nil {
			t.Errorf("%+v accepted", f)
		}
	}
}
