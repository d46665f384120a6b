// Package probe is the hook by which the bench reads the page a rerun
// final script ended on: the bench writes a Request and names it in $Env;
// `wright driver` (package browser/driver) evaluates the expressions on the
// page the script used last and writes a Result. The hook belongs to the
// harness side; the driver only fills it in.
package probe

import (
	"encoding/json"
	"fmt"
	"os"
)

// Env names the environment variable that asks `wright driver` for a
// probe: the path of a JSON Request. The bench sets it when it reruns a
// final script, to read the page the script ended on.
const Env = "WRIGHT_PROBE"

// Request asks the driver to evaluate expressions on the page a script was
// last active on, when the script ends, and to write a Result.
type Request struct {
	Exprs []string `json:"exprs"`
	Out   string   `json:"out"`
}

// Result is what the driver writes to Request.Out.
type Result struct {
	URL    string  `json:"url"`
	Values []Value `json:"values"`
	// When says which moment was read: "end" (the script ended with the
	// page open) or "last page closed" (the script closed every page, and
	// the last one was read just before it closed).
	When string `json:"when"`
}

// Value is one expression's value or error.
type Value struct {
	Value json.RawMessage `json:"value,omitempty"`
	Err   string          `json:"error,omitempty"`
}

// Load reads the request named by $WRIGHT_PROBE; nil when unset.
func Load() (*Request, error) {
	path := os.Getenv(Env)
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Env, err)
	}
	var r Request
	if err := json.Unmarshal(b, &r); err != nil || r.Out == "" {
		return nil, fmt.Errorf("%s: %s is not a probe request with an out path", Env, path)
	}
	return &r, nil
}
