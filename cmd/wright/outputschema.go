package main

import (
	"fmt"
	"os"
	"path/filepath"

	"wright/run/output"
	"wright/run/rundir"
)

// writeOutputSchema saves the schema beside config.yaml (not in the
// workspace: the gate holds the run to the schema wright compiled, not to
// a file the model could edit) and returns its path, or "" without one.
func writeOutputSchema(run *rundir.Run, schema *output.Schema) (string, error) {
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
	p := os.Getenv(output.SchemaEnv)
	if p == "" {
		return nil, nil
	}
	s, err := output.Load(p)
	if err != nil {
		return nil, fmt.Errorf("$%s: %w", output.SchemaEnv, err)
	}
	return s, nil
}
