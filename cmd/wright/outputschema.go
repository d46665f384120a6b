package main

import (
	"fmt"
	"os"
	"path/filepath"

	"wright/output"
	"wright/runs"
)

// outputSchemaEnv names the run's output schema file for the code the
// model runs, and for `wright reflect`, which checks a run's result.json
// against it before spending a judge call.
const outputSchemaEnv = "WRIGHT_OUTPUT_SCHEMA"

// writeOutputSchema saves the schema beside config.yaml (not in the
// workspace: the gate holds the run to the schema wright compiled, not to
// a file the model could edit) and returns its path, or "" without one.
func writeOutputSchema(run *runs.Run, schema *output.Schema) (string, error) {
	if schema == nil {
		return "", nil
	}
	if err := run.WriteFile("output_schema.json", []byte(schema.Text()+"\n")); err != nil {
		return "", fmt.Errorf("save the output schema: %w", err)
	}
	return filepath.Join(run.Dir, "output_schema.json"), nil
}

// schemaFromEnv is the output schema `wright reflect` runs under inside a
// run, or nil outside one.
func schemaFromEnv() (*output.Schema, error) {
	p := os.Getenv(outputSchemaEnv)
	if p == "" {
		return nil, nil
	}
	return output.Load(p)
}
