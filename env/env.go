// Package env defines what the agent acts on. The agent never knows which
// implementation it drives: env/workspace (a persistent pty shell) or
// env/browser (a persistent Python process bound to a live page).
package env

import "context"

// Observation is what one action produced. Keys are snake_case and land as
// they are in trajectory.json (extra.observation) and in the observation
// template. Every environment sets at least "success" (bool) and
// "elapsed_ms" (int64).
type Observation map[string]any

// Environment runs the model's actions.
type Environment interface {
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
