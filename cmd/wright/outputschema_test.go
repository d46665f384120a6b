package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/demo"
	"wright/model"
	"wright/model/modeltest"
)

// A schema that is not JSON, not a schema, or has a $ref that leads nowhere
// is a usage error before anything starts: no model call, no run folder.
func TestBadOutputSchemaIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		`{"type": "object",`:                 `not JSON`,
		`{"type": "objekt"}`:                 `not a valid JSON Schema`,
		`{"$ref": "definitions.json#/book"}`: `$ref cannot be resolved`,
	}
	i := 0
	for text, want := range cases {
		i++
		schema := filepath.Join(dir, "schema"+string(rune('0'+i))+".json")
		os.WriteFile(schema, []byte(text), 0o644)
		srv := modeltest.New(t)
		runDir := filepath.Join(dir, "run"+string(rune('0'+i)))
		r := wright(t, append(runArgs(t, srv, runDir), "--output-schema", schema)...)
		if r.code != 2 || !strings.Contains(r.stderr.String(), want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", text, r.code, r.stderr.String(), want)
		}
		if _, err := os.Stat(runDir); err == nil || srv.Calls() != 0 {
			t.Errorf("%s: a run started (calls %d)", text, srv.Calls())
		}
	}
	r := wright(t, "run", "-t", "x", "-c", "agent.output_schema={type: 7}")
	if r.code != 2 || !strings.Contains(r.stderr.String(), "not a valid JSON Schema") {
		t.Errorf("inline config schema: exit %d, %s", r.code, r.stderr.String())
	}
}

func TestOutputSchemaRunPrintsOutput(t *testing.T) {
	schema := filepath.Join(t.TempDir(), "book.json")
	os.WriteFile(schema, []byte(demo.Schema), 0o644)
	srv := modeltest.New(t,
		modeltest.Bash("where is the schema", `cat "$WRIGHT_OUTPUT_SCHEMA" | head -3`),
		modeltest.Done(model.FieldBash, "found", `{"title": "Go", "author": "Kernighan", "price": "39.99"}`),
		modeltest.Done(model.FieldBash, "a number", `{"title": "Go", "author": "Kernighan", "price": 39.99}`),
	)
	dir := filepath.Join(t.TempDir(), "run")
	r := wright(t, append(runArgs(t, srv, dir), "--output-schema", schema, "--json")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr.String())
	}
	var res struct {
		ExitStatus string         `json:"exit_status"`
		Output     map[string]any `json:"output"`
	}
	if err := json.Unmarshal(r.stdout.Bytes(), &res); err != nil || res.Output["price"] != 39.99 || res.Output["author"] != "Kernighan" {
		t.Fatalf("--json printed %s (%v)", r.stdout.String(), err)
	}
	if task := srv.Requests()[0].Chat().Messages[1].Text(); !strings.Contains(task, `"additionalProperties": false`) {
		t.Errorf("the task message does not show the schema:\n%s", task)
	}
	if seen := srv.Requests()[1].Chat().Messages; !strings.Contains(seen[len(seen)-1].Text(), `"$schema"`) {
		t.Errorf("the shell cannot read $WRIGHT_OUTPUT_SCHEMA:\n%s", seen[len(seen)-1].Text())
	}
	if refusal := srv.Requests()[2].Chat().Messages; !strings.Contains(refusal[len(refusal)-1].Text(), "$.price: got string, want number") {
		t.Errorf("refusal:\n%s", refusal[len(refusal)-1].Text())
	}
}
