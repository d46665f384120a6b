package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// An Evaluator is one kind of check a task's eval object can ask for, under
// its key ({"answer": ..., "url": ..., "js": ..., "judge": ...}). Each kind
// is one file that registers itself (eval_answer.go, eval_url.go,
// eval_js.go, eval_judge.go); the task loader, the probe of the final page
// and the scoring read the registry, so a new kind is one file too.
type Evaluator interface {
	// Key is the eval object's field the evaluator reads.
	Key() string
	// Decode reads the key's value into ev: the built-in kinds into their
	// own fields of Eval (which WebArena's translation fills too), another
	// kind into ev.Custom[Key()]. A value that asks for nothing leaves ev
	// as it was.
	Decode(raw json.RawMessage, opts Options, ev *Eval) error
	// Page says what the evaluator reads of the final page: expressions to
	// evaluate on it (their values come back to Score in this order), and
	// whether it needs the page at all (a URL check reads no expression).
	Page(ev *Eval) (exprs []string, needed bool)
	// Score checks an attempt that ended Submitted. values are the
	// values of its own expressions, or nil when the page could not be
	// read (f.PageErr says why). It returns nothing when ev asked it for
	// nothing.
	Score(ev *Eval, f Final, values []ProbeValue) []EvalResult
}

// evaluators are the registered kinds, in the order their results are
// listed in results.jsonl: the built-in ones first, in this order, then
// any other in the order it registered.
var evaluators []Evaluator

func init() {
	for _, e := range []Evaluator{answerEvaluator{}, urlEvaluator{}, jsEvaluator{}, judgeEvaluator{}} {
		RegisterEvaluator(e)
	}
}

// RegisterEvaluator adds a kind of check. A key registered twice is a
// programming error, caught when the binary starts.
func RegisterEvaluator(e Evaluator) {
	for _, have := range evaluators {
		if have.Key() == e.Key() {
			panic("bench: evaluator " + e.Key() + " registered twice")
		}
	}
	evaluators = append(evaluators, e)
}

// evaluatorKeys are the registered keys, in registration order.
func evaluatorKeys() []string {
	keys := make([]string, len(evaluators))
	for i, e := range evaluators {
		keys[i] = e.Key()
	}
	return keys
}

// decodeOwn reads wright's own eval object: every key must be a registered
// evaluator's. Keys match as encoding/json matches struct fields (exactly,
// else regardless of case), unknown ones are named in the object's order,
// and a null leaves what an earlier key of the same check gave.
func decodeOwn(raw json.RawMessage, opts Options) (*Eval, error) {
	fields, err := objectFields(raw)
	if err != nil {
		return nil, errors.New("want an object")
	}
	values := map[Evaluator]json.RawMessage{}
	for _, f := range fields {
		e := evaluatorFor(f.key)
		if e == nil {
			return nil, fmt.Errorf("json: unknown field %q (known checks: %s)", f.key, strings.Join(evaluatorKeys(), ", "))
		}
		if string(f.value) != "null" {
			values[e] = f.value
		}
	}
	ev := &Eval{}
	for _, e := range evaluators {
		v, ok := values[e]
		if !ok {
			continue
		}
		if err := e.Decode(v, opts, ev); err != nil {
			return nil, fmt.Errorf("%s: %v", e.Key(), err)
		}
	}
	if ev.asksNothing() {
		return nil, nil
	}
	return ev, nil
}

// evaluatorFor is the evaluator a key of the eval object names, or nil.
func evaluatorFor(key string) Evaluator {
	for _, e := range evaluators {
		if e.Key() == key {
			return e
		}
	}
	for _, e := range evaluators {
		if strings.EqualFold(e.Key(), key) {
			return e
		}
	}
	return nil
}

// field is one member of a JSON object.
type field struct {
	key   string
	value json.RawMessage
}

// objectFields are a JSON object's members in the order they are written.
func objectFields(raw json.RawMessage) ([]field, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, field{key: t.(string), value: v})
	}
	return out, nil
}

func (e *Eval) asksNothing() bool {
	return len(e.JS) == 0 && e.Answer == nil && e.URL == "" && e.Judge == nil && len(e.Custom) == 0
}

// ProbeExprs lists the expressions an eval needs evaluated on the final
// page, in the order Final.Page.Values holds their values: each
// evaluator's, in registration order.
func (e *Eval) ProbeExprs() []string {
	if e == nil {
		return nil
	}
	var out []string
	for _, ev := range evaluators {
		exprs, _ := ev.Page(e)
		out = append(out, exprs...)
	}
	return out
}

// NeedsPage says whether an eval reads the final page.
func (e *Eval) NeedsPage() bool {
	if e == nil {
		return false
	}
	for _, ev := range evaluators {
		if _, needed := ev.Page(e); needed {
			return true
		}
	}
	return false
}

// evalResults runs every evaluator on an attempt, each on its own share of
// the probe's values.
func (e *Eval) evalResults(f Final) []EvalResult {
	var out []EvalResult
	next := 0
	for _, ev := range evaluators {
		exprs, _ := ev.Page(e)
		var values []ProbeValue
		if f.Page != nil {
			values = f.Page.Values[min(next, len(f.Page.Values)):min(next+len(exprs), len(f.Page.Values))]
		}
		next += len(exprs)
		out = append(out, ev.Score(e, f, values)...)
	}
	for _, u := range e.Unsupported {
		out = append(out, EvalResult{Kind: "unsupported", Detail: u})
	}
	return out
}
