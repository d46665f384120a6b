package verdict

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"wright/run/output"
)

// With an output schema the harness's judge refuses a run whose result.json
// breaks it (no judge call), and a result.json changed after a sealed
// verdict is a changed run folder.
func TestSealCoversResult(t *testing.T) {
	schema, err := output.Compile([]byte(`{"type": "object", "required": ["price"], "properties": {"price": {"type": "number"}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, success()...)
	f.judge.Schema, f.gate.Schema = schema, schema
	dir := makeRun(t, f.ws, "run_1")
	writeFile(t, filepath.Join(dir, output.ResultFile), []byte(`{"price": "cheap"}`))
	if res := f.judge.Run(context.Background(), Request{}); !strings.Contains(res.Error, "$.price") || f.srv.Calls() != 0 {
		t.Fatalf("invalid result judged: %+v, %d calls", res, f.srv.Calls())
	}
	writeFile(t, filepath.Join(dir, output.ResultFile), []byte(`{"price": 12.5}`))
	if res := f.judge.Run(context.Background(), Request{}); res.Error != "" {
		t.Fatal(res.Error)
	}
	if v := f.check(t); !v.Pass {
		t.Fatalf("refused: %s", v.Message)
	}
	// Still valid, but not what the judge saw.
	writeFile(t, filepath.Join(dir, output.ResultFile), []byte(`{"price": 99}`))
	if v := f.check(t); v.Pass || !strings.Contains(v.Message, "result.json was modified") {
		t.Fatalf("pass %v: %s", v.Pass, v.Message)
	}
}
