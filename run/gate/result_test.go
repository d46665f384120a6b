package gate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"wright/run/output"
)

const bookSchema = `{"type": "object", "required": ["title", "author", "price"],
  "properties": {"title": {"type": "string"}, "author": {"type": "string"}, "price": {"type": "number"}},
  "additionalProperties": false}`

func schemaFor(t *testing.T) *output.Schema {
	t.Helper()
	s, err := output.Compile([]byte(bookSchema), "")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The file gate holds the newest run's result.json to the schema, and a
// result changed after the verdict makes the verdict stale.
func TestFileGateChecksTheResult(t *testing.T) {
	ws := t.TempDir()
	dir := makeRun(t, ws, "run_1", "final_execution_1_book.png")
	writeVerdict(t, ws, "run_1", "1", "Status: success", nil)
	g := NewFileGate(ws)
	g.Schema = schemaFor(t)
	check := func() Verdict {
		t.Helper()
		v, err := g.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := check(); v.Pass || !strings.Contains(v.Message, "final_runs/run_1 has no result.json") || !strings.Contains(v.Message, "run_2") {
		t.Errorf("missing result: %+v", v)
	}
	result := filepath.Join(dir, output.ResultFile)
	writeFile(t, result, []byte(`{"title": "T", "author": "A"}`))
	setTime(t, result, base)
	if v := check(); v.Pass || !strings.Contains(v.Message, "$: missing property 'price'") {
		t.Errorf("invalid result: %+v", v)
	}
	writeFile(t, result, []byte(`{"title": "T", "author": "A", "price": 1}`))
	setTime(t, result, base)
	if v := check(); !v.Pass {
		t.Errorf("valid result refused: %s", v.Message)
	}
	setTime(t, result, base.Add(5e9))
	if v := check(); v.Pass || !strings.Contains(v.Message, "result.json was modified after") {
		t.Errorf("a result changed after the verdict: %+v", v)
	}
}
