package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"wright/model"
)

// An Evaluator is one check of a task's eval object, decoded from its key's
// value ({"answer": ...}, {"url": ...}): it scores an attempt that ended
// Submitted. Each kind is one file that registers itself (eval_answer.go,
// eval_url.go, eval_jsexpr.go, eval_judge.go); the task loader, the page
// probe and the scoring know kinds only through the registry.
type Evaluator interface {
	// Evaluate returns one result per check the value asked for (a js
	// list asks for several), and what it spent on models (the judge's
	// calls), which the attempt's cost counts. f.Page holds only the
	// values of this evaluator's own ProbeExprs.
	Evaluate(ctx context.Context, f Final) ([]EvalResult, model.Usage)
}

// A PageReader is an Evaluator that reads the final page: the bench keeps
// that page (probes it live, or reruns final_script.py) only for tasks with
// one. ProbeExprs are the expressions it needs evaluated there, possibly
// none (a URL check reads only the page's address).
type PageReader interface {
	Evaluator
	ProbeExprs() []string
}

// Kind is an evaluator's entry in the registry.
type Kind struct {
	// Name is its key in a task's eval object and the kind of its results.
	Name string
	// Order places its results among a task's: lower first (answer 10, url
	// 20, js 30, judge 40), so results.jsonl does not depend on the key
	// order of a task's file.
	Order int
	// Decode reads the key's value (never null: a null key asks for
	// nothing). A nil Evaluator and no error: the value asks for nothing
	// (false, an empty list). An error from decodeStrict is reported as
	// JSON's own, with the key's path; another is prefixed with Name.
	Decode func(raw json.RawMessage, opts Options) (Evaluator, error)
}

var kinds []Kind

// RegisterEvaluator adds a kind of check; each kind's file calls it from
// init. A name registered twice is a programming error, caught when the
// binary starts.
func RegisterEvaluator(k Kind) {
	if k.Name == "" || k.Decode == nil {
		panic("bench: an evaluator needs a name and a decoder")
	}
	for _, have := range kinds {
		if have.Name == k.Name {
			panic("bench: evaluator " + k.Name + " registered twice")
		}
	}
	kinds = append(kinds, k)
	sort.SliceStable(kinds, func(i, j int) bool { return kinds[i].Order < kinds[j].Order })
}

// kindFor finds the kind of an eval key as encoding/json matches struct
// fields, which the loader did before the registry: the exact name first,
// else one that differs only in case ("URL" is url).
func kindFor(key string) (Kind, bool) {
	for _, k := range kinds {
		if k.Name == key {
			return k, true
		}
	}
	for _, k := range kinds {
		if strings.EqualFold(k.Name, key) {
			return k, true
		}
	}
	return Kind{}, false
}

func kindNames() string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// Eval lists the checks a task's attempt must pass; every check given must pass.
type Eval struct {
	// Checks are the task's evaluators in the order of their kinds.
	Checks []Check
	// Unsupported names checks of the task's file that wright cannot run;
	// such a task is unscored, with this as the reason, never failed.
	Unsupported []string
}

// Check is one evaluator of a task, with the name of its kind.
type Check struct {
	Kind string
	Evaluator
}

// Check returns the task's evaluator of a kind, or nil.
func (e *Eval) Check(kind string) Evaluator {
	if e == nil {
		return nil
	}
	for _, c := range e.Checks {
		if c.Kind == kind {
			return c.Evaluator
		}
	}
	return nil
}

// ProbeExprs lists the expressions an eval needs evaluated on the final
// page, in the order Final.Page.Values holds their values: each page
// reader's, in the order of the checks.
func (e *Eval) ProbeExprs() []string {
	if e == nil {
		return nil
	}
	var out []string
	for _, c := range e.Checks {
		if p, ok := c.Evaluator.(PageReader); ok {
			out = append(out, p.ProbeExprs()...)
		}
	}
	return out
}

// NeedsPage says whether an eval reads the final page.
func (e *Eval) NeedsPage() bool {
	if e == nil {
		return false
	}
	for _, c := range e.Checks {
		if _, ok := c.Evaluator.(PageReader); ok {
			return true
		}
	}
	return false
}

// evaluate runs each check on the attempt, each page reader on its own
// share of the probe's values, then lists the checks wright cannot run.
func (e *Eval) evaluate(ctx context.Context, f Final) ([]EvalResult, model.Usage) {
	var out []EvalResult
	var spent model.Usage
	next := 0
	for _, c := range e.Checks {
		own := f
		if p, ok := c.Evaluator.(PageReader); ok && f.Page != nil {
			n, all := len(p.ProbeExprs()), f.Page.Values
			own.Page = &PageProbe{URL: f.Page.URL, Values: all[min(next, len(all)):min(next+n, len(all))]}
			next += n
		}
		r, u := c.Evaluate(ctx, own)
		out = append(out, r...)
		spent = spent.Add(u)
	}
	for _, u := range e.Unsupported {
		out = append(out, EvalResult{Kind: "unsupported", Detail: u})
	}
	return out, spent
}

// shapeError is a value of the wrong JSON shape (a number for a string, an
// unknown field): the loader reports it as encoding/json does, as it did
// when the whole eval object was one struct.
type shapeError struct{ err error }

func (e *shapeError) Error() string { return e.err.Error() }

// decodeStrict decodes a key's value into v, refusing unknown fields, so
// that a misspelt option is an error rather than a check that asks nothing.
func decodeStrict(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &shapeError{err}
	}
	return nil
}

// underKey puts a shape error's field path under the eval key it came
// from ("number" of "answer" is "answer.number").
func underKey(err *shapeError, key string) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err.err, &te) {
		return err.err
	}
	c := *te
	if c.Field == "" {
		c.Field = key
	} else {
		c.Field = key + "." + c.Field
	}
	return &c
}

// decodeOwn reads wright's own eval object. Keys are read in the file's
// order: the first unknown key or value of the wrong shape is the error, as
// encoding/json reports it; then the first value that means nothing
// (an empty expression, an answer with no check) in the order of kinds.
func decodeOwn(raw json.RawMessage, opts Options) (*Eval, error) {
	byKind := map[string]Check{}
	meaning := map[string]error{}
	err := eachKey(raw, func(key string, v json.RawMessage) error {
		k, ok := kindFor(key)
		if !ok {
			return fmt.Errorf("json: unknown field %q", key)
		}
		delete(byKind, k.Name) // a key given twice: the last one counts
		delete(meaning, k.Name)
		if string(v) == "null" {
			return nil
		}
		ev, err := k.Decode(v, opts)
		var se *shapeError
		switch {
		case errors.As(err, &se):
			return underKey(se, k.Name)
		case err != nil:
			meaning[k.Name] = err
		case ev != nil:
			byKind[k.Name] = Check{Kind: k.Name, Evaluator: ev}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%v (known checks: %s)", err, kindNames())
	}
	ev := &Eval{}
	for _, k := range kinds {
		if err := meaning[k.Name]; err != nil {
			return nil, fmt.Errorf("%s: %v", k.Name, err)
		}
		if c, ok := byKind[k.Name]; ok {
			ev.Checks = append(ev.Checks, c)
		}
	}
	if len(ev.Checks) == 0 {
		return nil, nil
	}
	return ev, nil
}

// eachKey calls f with each key of a JSON object and its value, in the
// object's order, and stops at f's first error.
func eachKey(raw json.RawMessage, f func(key string, v json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return errors.New("want an object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if err := f(t.(string), v); err != nil {
			return err
		}
	}
	return nil
}
