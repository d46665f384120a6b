package env

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

// SyntaxError is code that does not parse, quoted for the model.
type SyntaxError struct{ Message string }

func (e *SyntaxError) Error() string { return e.Message }

// CheckWith runs a checker (argv, reading the code on stdin) that exits
// non-zero with a message when the code does not parse. That message,
// passed through tidy and quoted with the field's name, becomes a
// *SyntaxError; any other failure means the checker itself could not run.
// The checker gets a bare environment (no BASH_ENV or PYTHON* settings,
// messages in English whatever the user's locale).
func CheckWith(ctx context.Context, field, code string, argv []string, tidy func(string) string) error {
	if strings.TrimSpace(code) == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, syntaxTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(code)
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
	if tidy != nil {
		msg = tidy(msg)
	}
	if msg == "" {
		msg = fmt.Sprintf("the checker failed with exit code %d", exitErr.ExitCode())
	}
	return Unparsed(field, msg)
}

// Unparsed is the *SyntaxError for code in field that a checker refused
// with msg: what CheckWith returns, for a checker that is not a process of
// its own (live mode asks its running Python).
func Unparsed(field, msg string) error {
	const limit = 1500
	if len(msg) > limit {
		msg = msg[:limit] + "\n..."
	}
	return &SyntaxError{Message: fmt.Sprintf("Your %s does not parse, so nothing was run:\n%s\nFix the syntax and send the action again.", field, strings.ToValidUTF8(msg, "?"))}
}
