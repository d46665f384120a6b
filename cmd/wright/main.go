// Command wright turns a coding LLM into a dependable web agent.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// rootCmd is the wright command; each subcommand's file adds itself in init,
// so the pieces of the CLI stay beside the code they expose.
var rootCmd = &cobra.Command{
	Use:           "wright",
	Short:         "A dependable web agent for coding LLMs",
	SilenceUsage:  true,
	SilenceErrors: true,
}

// exitError carries a process exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks a usage or config problem: exit code 2, nothing started.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rootCmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{code: 2, err: err} })
	err := rootCmd.ExecuteContext(ctx)
	if err == nil {
		return
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	} else if isUsage(err) {
		code = 2
	}
	if ee == nil || ee.err != errSilent {
		fmt.Fprintln(os.Stderr, "wright:", err)
	}
	os.Exit(code)
}

// errSilent ends the process with an exit code and no message: the command
// has already said what happened.
var errSilent = errors.New("silent")

// isUsage reports cobra's own argument errors, which it does not type.
func isUsage(err error) bool {
	msg := strings.ToLower(err.Error())
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
