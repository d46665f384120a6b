package workspace

import (
	"context"
	"strings"

	"wright/env"
)

// Kind is workspace mode's action: a bash command, checked with bash -n.
var Kind = env.Kind{Field: "bash_command", Lang: "bash", Check: checkBash}

// Kind is the kind of action the shell runs.
func (s *Shell) Kind() env.Kind { return Kind }

func checkBash(ctx context.Context, code string) error {
	return env.CheckWith(ctx, "bash_command", code, []string{"bash", "--norc", "--noprofile", "-n"}, func(msg string) string {
		// "bash: line 3: ..." -> "line 3: ...": the program name is noise.
		return strings.ReplaceAll(msg, "bash: line ", "line ")
	})
}
