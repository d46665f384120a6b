package harness

import (
	"fmt"
	"path/filepath"

	"wright/run/output"
)

// outputSchema is the run's result contract: the task's own (a bench
// task's output_schema), else the configured one, else none.
func (r *runner) outputSchema() *output.Schema {
	if r.task.OutputSchema != nil {
		return r.task.OutputSchema
	}
	return r.h.schema
}

// saveOutputSchema writes the schema beside config.yaml (not in the
// workspace: the gate holds the run to the schema compiled here, not to a
// file the model could edit) and names it in the shell's environment.
func (r *runner) saveOutputSchema(schema *output.Schema, shellVars map[string]string) error {
	if schema == nil {
		return nil
	}
	const name = "output_schema.json"
	if err := r.run.WriteFile(name, []byte(schema.Text()+"\n")); err != nil {
		return fmt.Errorf("save the output schema: %w", err)
	}
	shellVars[output.SchemaEnv] = filepath.Join(r.run.Dir, name)
	return nil
}
