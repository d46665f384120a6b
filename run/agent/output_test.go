package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"wright/model"
	"wright/model/modeltest"
	"wright/run/agent"
	"wright/run/gate"
	"wright/run/output"
)

const bookSchema = `{"type": "object", "required": ["title", "author", "price"],
  "properties": {"title": {"type": "string"}, "author": {"type": "string"}, "price": {"type": "number"}},
  "additionalProperties": false}`

func withSchema(t *testing.T, h *harness) {
	t.Helper()
	s, err := output.Compile([]byte(bookSchema), "")
	if err != nil {
		t.Fatal(err)
	}
	h.agent.OutputSchema = s
}

func TestOutputSchemaValidResultIsReturned(t *testing.T) {
	h := newHarness(t, nil, modeltest.Done(model.FieldBash, "found it", `{"title": "The Go Programming Language", "author": "Donovan", "price": 39.99}`))
	withSchema(t, h)
	res := h.execute(context.Background())
	wantStatus(t, res, agent.Submitted)
	if got := h.srv.Requests()[0].Chat().Messages[1].Text(); !strings.Contains(got, `"additionalProperties": false`) {
		t.Errorf("the task message does not show the schema:\n%s", got)
	}
	saved := h.savedResult()
	b, _ := json.Marshal(saved.Output)
	if string(b) != `{"author":"Donovan","price":39.99,"title":"The Go Programming Language"}` {
		t.Errorf("result.json output: %s", b)
	}
}

func TestOutputSchemaInvalidRefusedThenFixed(t *testing.T) {
	h := newHarness(t, nil,
		modeltest.Done(model.FieldBash, "found it", `{"title": "The Go Programming Language", "author": "Donovan", "price": "$39.99"}`),
		modeltest.Done(model.FieldBash, "price as a number", `{"title": "The Go Programming Language", "author": "Donovan", "price": 39.99}`),
	)
	withSchema(t, h)
	h.agent.Gate = countingGate{}
	res := h.execute(context.Background())
	wantStatus(t, res, agent.Submitted)
	got := h.lastUserText(1)
	if !strings.Contains(got, "$.price: got string, want number") || !strings.Contains(got, "output schema") {
		t.Errorf("the refusal does not name the path and reason:\n%s", got)
	}
	if n := gateChecks; n != 1 {
		t.Errorf("the gate was asked %d times; an invalid result must be refused before it", n)
	}
	if m, ok := res.Output.(map[string]any); !ok || m["price"] == nil {
		t.Errorf("output %#v", res.Output)
	}
	tr := h.trajectory()
	kinds := ""
	for _, m := range tr.Messages {
		if m.Meta != nil && m.Meta.InterruptType != "" {
			kinds += m.Meta.InterruptType + " "
		}
	}
	if kinds != "FormatError " {
		t.Errorf("interrupts %q, want one FormatError", kinds)
	}
}

func TestOutputSchemaThreeInvalidEndFormatErrorLimit(t *testing.T) {
	h := newHarness(t, nil,
		modeltest.Done(model.FieldBash, "a", `The price is $39.99.`),
		modeltest.Done(model.FieldBash, "b", `{"title": "x"}`),
		modeltest.Done(model.FieldBash, "c", `{"title": "x", "author": "y", "price": 1, "isbn": "z"}`),
		modeltest.Done(model.FieldBash, "never asked", `{"title": "x", "author": "y", "price": 1}`),
	)
	withSchema(t, h)
	res := h.execute(context.Background())
	wantStatus(t, res, agent.FormatErrorLimit)
	if h.srv.Calls() != 3 || res.Output != nil {
		t.Errorf("%d calls, output %#v", h.srv.Calls(), res.Output)
	}
	if !strings.Contains(res.Message, "isbn") {
		t.Errorf("the exit message should carry the last problem: %s", res.Message)
	}
}

func TestNoSchemaKeepsFreeText(t *testing.T) {
	h := newHarness(t, nil, modeltest.Done(model.FieldBash, "ok", "The price is $39.99."))
	res := h.execute(context.Background())
	wantStatus(t, res, agent.Submitted)
	if res.Output != nil {
		t.Errorf("output without a schema: %#v", res.Output)
	}
}

var gateChecks int

// countingGate passes every done and counts them.
type countingGate struct{}

func (countingGate) Check(context.Context) (gate.Verdict, error) {
	gateChecks++
	return gate.Verdict{Pass: true}, nil
}

func TestTaskSchemaWinsOverSettings(t *testing.T) {
	h := newHarness(t, nil, modeltest.Done(model.FieldBash, "ok", `{"title": "T", "author": "A", "price": 1}`))
	loose, err := output.Compile([]byte(`{"type": "string"}`), "")
	if err != nil {
		t.Fatal(err)
	}
	h.agent.OutputSchema = loose
	strict, _ := output.Compile([]byte(bookSchema), "")
	res, err := h.agent.Execute(context.Background(), agent.Task{ID: "t", Text: "x", OutputSchema: strict})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, res, agent.Submitted)
	if m, ok := res.Output.(map[string]any); !ok || m["title"] != "T" {
		t.Errorf("output %#v", res.Output)
	}
}
