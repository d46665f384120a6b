package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"wright/browser"
)

// headingEvaluator is a kind of check that exists only in this test:
// "heading": "WORD" passes when the final page's first h1 holds WORD. It is
// all a new evaluator is: this type and one RegisterEvaluator call.
type headingEvaluator struct{}

func (headingEvaluator) Key() string { return "heading" }

func (headingEvaluator) Decode(raw json.RawMessage, _ Options, ev *Eval) error {
	var word string
	if err := json.Unmarshal(raw, &word); err != nil || strings.TrimSpace(word) == "" {
		return errors.New("want the word the page's heading must hold")
	}
	if ev.Custom == nil {
		ev.Custom = map[string]any{}
	}
	ev.Custom["heading"] = word
	return nil
}

func (headingEvaluator) Page(ev *Eval) ([]string, bool) {
	if _, ok := ev.Custom["heading"]; !ok {
		return nil, false
	}
	return []string{"(document.querySelector('h1') || {}).textContent || ''"}, true
}

func (headingEvaluator) Score(ev *Eval, f Final, values []ProbeValue) []EvalResult {
	word, ok := ev.Custom["heading"].(string)
	if !ok {
		return nil
	}
	r := EvalResult{Kind: "heading"}
	if len(values) != 1 || values[0].Err != "" {
		r.Detail = "no heading read: " + f.PageErr
		return []EvalResult{r}
	}
	var text string
	_ = json.Unmarshal(values[0].Value, &text)
	pass := strings.Contains(text, word)
	r.Passed, r.Detail = &pass, fmt.Sprintf("heading %q", text)
	return []EvalResult{r}
}

// TestAnEvaluatorIsOneRegistration registers the heading check, loads a
// suite file that asks for it beside a built-in one, reads the final page
// of a real Chromium as the bench's probe does (the expressions of
// ProbeExprs, in order) and scores the attempt: the new kind is decoded,
// probed and scored, and its result lands after the built-in ones.
func TestAnEvaluatorIsOneRegistration(t *testing.T) {
	RegisterEvaluator(headingEvaluator{})
	t.Cleanup(func() { evaluators = evaluators[:len(evaluators)-1] })

	p := write(t, t.TempDir(), "s.jsonl",
		`{"task_id": "a", "task": "t", "start_url": "http://a/", "eval": {"heading": "Checkout", "js": "document.title"}}`+"\n"+
			`{"task_id": "b", "task": "t", "start_url": "http://a/", "eval": {"heading": 7}}`+"\n")
	s, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 1 || len(s.Invalid) != 1 || !strings.Contains(s.Invalid[0].String(), "heading: want the word") {
		t.Fatalf("tasks %d, invalid %v: the new kind's decoding should take a and refuse b", len(s.Tasks), s.Invalid)
	}
	ev := s.Tasks[0].Eval
	exprs := ev.ProbeExprs()
	if !ev.NeedsPage() || len(exprs) != 2 || exprs[0] != "document.title" || !strings.Contains(exprs[1], "h1") {
		t.Fatalf("ProbeExprs = %q: the built-in js check first, then the heading's", exprs)
	}

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<title>Shop</title><h1>Checkout complete</h1>`)
	}))
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := browser.Launch(ctx, browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	page, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := page.Goto(ctx, site.URL, browser.Load, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	final := Final{ExitStatus: "Submitted", Page: &PageProbe{URL: site.URL}}
	for _, e := range exprs {
		v, err := page.Evaluate(ctx, e, nil, 10*time.Second)
		pv := ProbeValue{Value: v}
		if err != nil {
			pv.Err = err.Error()
		}
		final.Page.Values = append(final.Page.Values, pv)
	}
	passed, evals, reason := Score(s.Tasks[0], final)
	if passed == nil || !*passed || reason != "" || len(evals) != 2 || evals[0].Kind != "js" || evals[1].Kind != "heading" ||
		evals[1].Detail != `heading "Checkout complete"` {
		t.Fatalf("Score = %v, %+v, %q", passed, evals, reason)
	}
	s.Tasks[0].Eval.Custom["heading"] = "Refund"
	if passed, evals, _ := Score(s.Tasks[0], final); passed == nil || *passed || evals[1].Passed == nil || *evals[1].Passed {
		t.Fatalf("a heading that does not hold the word should fail the attempt: %v %+v", passed, evals)
	}
}

// TestEvalKeysMatchAsBefore: the eval object's keys are read as the struct
// decoder before the registry read them: regardless of case, a null
// leaving an earlier value, and the first unknown key in the file named.
func TestEvalKeysMatchAsBefore(t *testing.T) {
	ev, err := decodeEval(json.RawMessage(`{"Answer": {"exact": "42"}, "URL": "/done"}`), Options{})
	if err != nil || ev == nil || ev.Answer == nil || *ev.Answer.Exact != "42" || ev.URL != "/done" {
		t.Fatalf("capitalised keys: %+v, %v", ev, err)
	}
	ev, err = decodeEval(json.RawMessage(`{"url": "/a", "url": null}`), Options{})
	if err != nil || ev == nil || ev.URL != "/a" {
		t.Fatalf("a later null: %+v, %v", ev, err)
	}
	for i := 0; i < 20; i++ {
		_, err = decodeEval(json.RawMessage(`{"zeta": 1, "alpha": 2}`), Options{})
		if err == nil || !strings.Contains(err.Error(), `unknown field "zeta"`) {
			t.Fatalf("two unknown keys: %v, want the first one named", err)
		}
	}
}
