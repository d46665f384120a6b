// Package gate decides whether the agent may finish, and owns the layout
// of final runs (final_runs/run_<N>/ with the script, its log, its
// screenshots and the judge's verdict). The judge itself is package judge,
// which the rerun gate reaches through the Judge interface.
package gate

import "context"

// Verdict is the gate's answer to a done.
type Verdict struct {
	Pass bool
	// Message tells the model exactly what is missing and which command
	// fixes it; empty on a pass.
	Message string
	// Label is the judge's predicted_label on the run the gate looked at
	// (1 success, 0 failure), nil when no judge's verdict was read.
	Label *int
	// Run is the number N of the final_runs/run_<N> folder Label is about.
	Run int
	// Reason is, on a refusal of the rerun gate, a short account for a
	// person (what failed, without the advice to the model): `wright
	// rerun` prints it.
	Reason string
}

// Gate is asked each time the model says done.
type Gate interface {
	Check(ctx context.Context) (Verdict, error)
}

// Open lets every done pass: agent.require_self_reflection_success: false.
type Open struct{}

// Check always passes.
func (Open) Check(context.Context) (Verdict, error) { return Verdict{Pass: true}, nil }
