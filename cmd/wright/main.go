// Command wright turns a coding LLM into a dependable web agent.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"wright/keyring"
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
	// Credentials leave the environment block before anything else runs:
	// /proc/<pid>/environ shows what a process was exec'd with for as long
	// as it lives, to every process of the same user.
	if err := keyring.Init(); err != nil {
		fmt.Fprintln(os.Stderr, "wright: warning:", err)
	}
	if err := keyring.Drop(keyring.Credentials(os.Environ())); err != nil {
		fmt.Fprintln(os.Stderr, "wright: warning:", err)
	}
	_ = keyring.NoDump()
	ctx, stop := notifyContext(context.Background())
	defer stop()
	rootCmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &exitError{code: 2, err: err} })
	err := rootCmd.ExecuteContext(ctx)
	stopTracing()
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

// caughtSignal is the signal that interrupted the process, if any.
var caughtSignal atomic.Value // os.Signal

// notifyContext is cancelled by the first SIGINT or SIGTERM and remembers
// which, so that the exit code can tell them apart (130 and 143, as a shell
// reports them).
func notifyContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			caughtSignal.Store(sig)
			cancel()
		case <-done:
		}
	}()
	return ctx, func() { signal.Stop(ch); close(done); cancel() }
}

// interruptedCode is the exit code of a run ended by a signal: 128+signo.
func interruptedCode() int {
	if sig, ok := caughtSignal.Load().(os.Signal); ok && sig == syscall.SIGTERM {
		return 143
	}
	return 130
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
