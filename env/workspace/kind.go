package workspace

import (
	"context"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"wright/env"
)

// Kind is workspace mode's action: a bash command, checked with bash's
// grammar (checkBash).
var Kind = env.Kind{Field: "bash_command", Lang: "bash", Check: checkBash}

// Kind is the kind of action the shell runs.
func (s *Shell) Kind() env.Kind { return Kind }

// checkBash parses the command in process (mvdan.cc/sh's bash grammar), so
// a step that parses starts no process: a `bash -n` of its own was the
// tail of the per-step time on a loaded machine. The two grammars are not
// the same, so bash stays the judge of a refusal: only when the parser
// rejects the command does `bash -n` look at it, and its answer (accept,
// or its own message) is the one the model gets. A command the parser
// accepts and bash would not is left to the shell, which reports it when
// it runs the command, as it would any error.
func checkBash(ctx context.Context, code string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("check syntax of bash_command: %w", err)
	}
	if parses(code) {
		return nil
	}
	return bashN(ctx, code)
}

// parses reports whether code parses as bash for mvdan.cc/sh and holds
// none of the forms it takes that bash -n refuses (lenient). A Parser keeps
// state between calls, so each check has its own.
func parses(code string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(code), "")
	return err == nil && !lenient(f)
}

// reserved are bash's reserved words; as the name of a simple command bash
// refuses some of them ("in") where mvdan.cc/sh takes a plain word.
var reserved = map[string]bool{
	"!": true, "[[": true, "]]": true, "{": true, "}": true, "case": true, "coproc": true, "do": true,
	"done": true, "elif": true, "else": true, "esac": true, "fi": true, "for": true, "function": true,
	"if": true, "in": true, "select": true, "then": true, "time": true, "until": true, "while": true,
}

// lenient reports whether f holds a form mvdan.cc/sh accepts and bash -n
// may not, so that bash decides: an extended glob (bash parses one only
// with extglob set, and -n runs no shopt), a function whose body is not a
// compound command (`f() ls`), or a reserved word as a command's name.
func lenient(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ExtGlob:
			found = true
		case *syntax.FuncDecl:
			if n.Body != nil {
				switch n.Body.Cmd.(type) {
				case *syntax.Block, *syntax.Subshell, *syntax.IfClause, *syntax.WhileClause, *syntax.ForClause,
					*syntax.CaseClause, *syntax.ArithmCmd, *syntax.TestClause:
				default:
					found = true
				}
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 && reserved[n.Args[0].Lit()] {
				found = true
			}
		}
		return !found
	})
	return found
}

// bashN is bash's own check, `bash -n`, with bash's message for a refusal.
func bashN(ctx context.Context, code string) error {
	return env.CheckWith(ctx, "bash_command", code, []string{"bash", "--norc", "--noprofile", "-n"}, func(msg string) string {
		// "bash: line 3: ..." -> "line 3: ...": the program name is noise.
		return strings.ReplaceAll(msg, "bash: line ", "line ")
	})
}
