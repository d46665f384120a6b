package harness

import (
	"context"
	"slices"

	"wright/env"
	"wright/run/config"
	"wright/run/rundir"
	"wright/trust/sandbox"
	"wright/trust/secrets"
)

// setup is what an environment is started from.
type setup struct {
	cfg  *config.Config
	run  *rundir.Run
	task Task
	// vars are the variables the model's code gets on top of this
	// process's environment (keys removed).
	vars map[string]string
	// secrets are typed by the live driver and redacted from its logs.
	secrets *secrets.Set
	// sandbox, when set, is the bubblewrap sandbox of the model's
	// processes (env.sandbox).
	sandbox *sandbox.Spec
	// sharedBrowser is Options.SharedBrowser.
	sharedBrowser string
}

// environment is one agent.mode: the kind of action it runs and how to
// start it for a run.
type environment struct {
	kind  env.Kind
	start func(ctx context.Context, s setup) (env.Environment, error)
}

// environments is the registry of agent.mode values: each mode's file
// (env_workspace.go, env_live.go) adds its entry with registerEnvironment
// when the package starts, and nothing writes to it after.
var environments = map[string]environment{}

// registerEnvironment adds agent.mode name. A name registered twice is a
// programming error, caught when the binary starts.
func registerEnvironment(name string, e environment) {
	if _, dup := environments[name]; dup {
		panic("harness: environment " + name + " registered twice")
	}
	if e.kind.Field == "" || e.start == nil {
		panic("harness: environment " + name + " has no action field or no start")
	}
	environments[name] = e
}

// Modes lists the agent.mode values the harness can run.
func Modes() []string {
	var out []string
	for m := range environments {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// logRedactor is what rewrites the workspace's step logs: nothing without
// secrets (a log is read back only when there is something to find).
func logRedactor(set *secrets.Set) func(string) string {
	if set == nil || len(set.Names()) == 0 {
		return nil
	}
	return set.Redact
}
