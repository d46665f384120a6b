package model

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// syntaxTimeout bounds one check; parsing never takes this long unless
// something is wrong with the checker itself.
const syntaxTimeout = 30 * time.Second

// pythonCheck parses stdin as Python and prints one short message with the
// line number when it does not parse.
const pythonCheck = `import ast, sys
src = sys.stdin.buffer.read()
try:
    ast.parse(src, "<python_code>")
except SyntaxError as e:
    msg = ("line %s: %s" % (e.lineno, e.msg)) if e.lineno else str(e.msg)
    if e.text and e.text.strip():
        text = e.text.rstrip("\r\n")
        msg += "\n    " + text
        if e.offset and 0 < e.offset <= len(text) + 1:
            pad = "".join(c if c == "\t" else " " for c in text[:e.offset - 1])
            msg += "\n    " + pad + "^"
    print(msg)
    sys.exit(1)
except (ValueError, UnicodeDecodeError) as e:
    print(e)
    sys.exit(1)
`

// CheckSyntax parses the code of an action without running it: bash -n for
// bash_command, Python's ast.parse for python_code. Code that does not parse
// gives a *FormatError quoting the checker (with line numbers), for the
// model; any other error means the checker itself could not run.
func CheckSyntax(ctx context.Context, field, code string) error {
	if strings.TrimSpace(code) == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, syntaxTimeout)
	defer cancel()
	var cmd *exec.Cmd
	switch field {
	case FieldBash:
		cmd = exec.CommandContext(ctx, "bash", "--norc", "--noprofile", "-n")
	case FieldPython:
		cmd = exec.CommandContext(ctx, "python3", "-I", "-S", "-c", pythonCheck)
	default:
		return fmt.Errorf("check syntax: unknown action field %q (want %s or %s)", field, FieldBash, FieldPython)
	}
	cmd.Stdin = strings.NewReader(code)
	// A bare environment: no BASH_ENV or PYTHON* settings, and messages in
	// English whatever the user's locale.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C.UTF-8"}
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) || ctx.Err() != nil || exitErr.ExitCode() < 0 {
		return fmt.Errorf("check syntax of %s: %w", field, err)
	}
	msg := strings.TrimSpace(string(out))
	if field == FieldBash {
		// "bash: line 3: ..." -> "line 3: ...": the program name is noise.
		msg = strings.ReplaceAll(msg, "bash: line ", "line ")
	}
	const limit = 1500
	if len(msg) > limit {
		msg = msg[:limit] + "\n..."
	}
	if msg == "" {
		msg = fmt.Sprintf("the checker failed with exit code %d", exitErr.ExitCode())
	}
	return &FormatError{Reason: fmt.Sprintf("Your %s does not parse, so nothing was run:\n%s\nFix the syntax and send the action again.", field, strings.ToValidUTF8(msg, "?"))}
}
