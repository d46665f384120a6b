// Package env defines what the agent acts on. The agent never knows which
// implementation it drives: env/workspace (a persistent pty shell) or
// env/live (a persistent Python process bound to a live page).
package env

import "context"

// Environment runs the model's actions.
type Environment interface {
	// Kind is the kind of action the environment runs.
	Kind() Kind
	// Execute runs one action. step numbers the files it writes
	// (steps/step_NNNN.*, logs/step_NNNN.log). A failed command is an
	// observation, not an error; an error means the environment itself is
	// broken and ends the run with EnvironmentError. Cancelling ctx stops
	// the running action and returns promptly.
	Execute(ctx context.Context, step int, code string) (Observation, error)
	// Close ends every process the environment started. It is safe to call
	// more than once.
	Close() error
}

// Kind is a kind of action: where it sits in the model's JSON, how its
// code is fenced in the debug files, and the syntax check it passes before
// it runs.
type Kind struct {
	// Field is the action field of the model's JSON ("bash_command").
	Field string
	// Lang is the code-fence language of the debug files ("bash").
	Lang string
	// Check parses code without running it: code that does not parse is a
	// *SyntaxError for the model (CheckWith makes one); any other error
	// means the checker could not run. Nil checks nothing.
	Check func(ctx context.Context, code string) error
}
