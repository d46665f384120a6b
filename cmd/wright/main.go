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
	"github.com/spf13/pflag"

	"wright/internal/spelling"
	"wright/trust/keyring"
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
	rootCmd.SetFlagErrorFunc(flagError)
	cmd, err := rootCmd.ExecuteContextC(ctx)
	stopTracing()
	if err == nil {
		return
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	} else if isUsage(err) {
		// cobra's own argument errors say what was wrong, not what to do.
		code = 2
		if cmd == rootCmd {
			err = fmt.Errorf("%s\n`wright --help` lists the commands", strings.TrimSpace(err.Error()))
		} else {
			err = fmt.Errorf("%w\nusage: %s (see %s --help)", err, cmd.UseLine(), cmd.CommandPath())
		}
	}
	if ee == nil || ee.err != errSilent {
		fmt.Fprintln(os.Stderr, "wright:", err)
	}
	os.Exit(code)
}

// flagError turns pflag's complaint into a usage error that says what to
// do: the nearest flag for a misspelt one (cobra suggests commands only),
// and where the flags are listed.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := unknownFlag(msg); ok {
		if near := nearestFlag(cmd, name); near != "" {
			msg += "; did you mean --" + near + "?"
		}
	}
	return &exitError{code: 2, err: fmt.Errorf("%s (see %s --help)", msg, cmd.CommandPath())}
}

// unknownFlag reads the flag's name out of pflag's "unknown flag: --taks".
func unknownFlag(msg string) (string, bool) {
	_, name, ok := strings.Cut(msg, "unknown flag: --")
	if !ok {
		return "", false
	}
	name, _, _ = strings.Cut(name, "=")
	return strings.TrimSpace(name), name != ""
}

// nearestFlag is the command's flag closest to name, when it is close
// enough to be what was meant: two edits (a swapped pair of letters), or a
// third of the name's length for long names.
func nearestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", max(2, len(name)/3)+1
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := spelling.Distance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
}

// argsNamed is cobra.ExactArgs with an error that names what is missing and
// how the command is called.
func argsNamed(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < len(names) {
			return usageError("missing %s: %s (see %s --help)", strings.Join(names[len(args):], " and "), cmd.UseLine(), cmd.CommandPath())
		}
		if len(args) > len(names) {
			return usageError("too many arguments (%s): %s takes %s", strings.Join(args[len(names):], " "), cmd.CommandPath(), strings.Join(names, " and "))
		}
		return nil
	}
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
