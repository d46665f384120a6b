package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"wright/demo"
)

// demoScriptsCommand is `wright demo scripts`: the life of a script on the
// demo shop, each step a wright command run as a user would type it.
func demoScriptsCommand() *cobra.Command {
	var dir, modelName, addr string
	cmd := &cobra.Command{
		Use:   "scripts",
		Short: "The life of a script with no key: make and save it, rerun it, see it break, heal it",
		Long: `Take a script through its life on the demo shop, each step a wright command
printed before it runs and runnable by hand (wright demo serve keeps the shop up):

  1. wright run --save-as: make a script whose --book is the title, verify it, save it
  2-3. wright rerun --param book=...: rerun it with two other titles, each verified
  4. the shop is redesigned; wright scripts check: the script is broken
  5. wright heal: an agent run repairs it, saved as version 2
  6. wright rerun: the healed script on the new shop, verified

The model, the judge and the heal are recordings (a replay file written beside
the runs). The recorded judge answers only for the screenshots it was recorded
on: a rerun whose screenshots show something else is not verified. With
--model every step uses that model instead (it needs its key, as wright run does).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTour(cmd, dir, modelName, addr) },
	}
	cmd.Flags().StringVarP(&dir, "output-dir", "o", "demo-runs/scripts", "where the tour's runs, its library and the recording go (a new folder, or one an earlier tour made, which is emptied)")
	cmd.Flags().StringVar(&modelName, "model", "", "a real model for the run, the judge and the heal, instead of the recordings")
	cmd.Flags().StringVar(&addr, "addr", demoAddr, "the loopback address to serve the shop on (any free port when it is taken)")
	return cmd
}

// demoAddr is where `wright demo serve` serves the shop by default, and
// where the tour serves it when the port is free.
const demoAddr = "127.0.0.1:8377"

// tourMarker marks a folder the tour made, which the next tour may empty.
const tourMarker = ".wright-tour"

// checkLoopback refuses an --addr that is not a loopback address: the shop
// is for this machine's runs.
func checkLoopback(addr string) error {
	if host, _, err := net.SplitHostPort(addr); err != nil || !(host == "localhost" || net.ParseIP(host).IsLoopback()) {
		return usageError("--addr %q: give a loopback address, as %s", addr, demoAddr)
	}
	return nil
}

// tourRow is one step's line in the tour's closing table.
type tourRow struct {
	step     demo.TourStep
	took     time.Duration
	exit     int
	expected bool
	// interrupted says Ctrl-C (or SIGTERM) ended the step.
	interrupted bool
}

func runTour(cmd *cobra.Command, dir, modelName, addr string) error {
	stderr := cmd.ErrOrStderr()
	if err := checkLoopback(addr); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("demo scripts: finding wright's own binary: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return usageError("--output-dir: %v", err)
	}
	// A tour starts from nothing: a library left by an earlier tour would
	// hold a healed version 2 already. Only a folder an earlier tour made
	// (its marker file says so) is emptied; any other folder that holds
	// something is refused, never deleted.
	if entries, err := os.ReadDir(abs); err == nil && len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(abs, tourMarker)); err != nil {
			return usageError("--output-dir %s is not empty and no earlier tour made it: give a new folder", dir)
		}
	}
	if err := os.RemoveAll(abs); err != nil {
		return fmt.Errorf("demo scripts: emptying %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return fmt.Errorf("demo scripts: %w", err)
	}
	if err := os.WriteFile(filepath.Join(abs, tourMarker), []byte("made by wright demo scripts; emptied by the next tour\n"), 0o644); err != nil {
		return fmt.Errorf("demo scripts: %w", err)
	}
	// The port `wright demo serve` uses, so the printed commands can be
	// run again by hand against it; any free port when it is taken.
	shop, err := demo.ServeShop(addr)
	if err != nil {
		if shop, err = demo.ServeShop("127.0.0.1:0"); err != nil {
			return err
		}
	}
	defer shop.Close()
	o := demo.TourOptions{Dir: dir, ShopURL: shop.URL, Model: modelName}
	if o.Schema, err = demo.WriteSchema(abs); err != nil {
		return fmt.Errorf("demo scripts: %w", err)
	}
	o.Schema = filepath.Join(dir, filepath.Base(o.Schema))
	if modelName == "" {
		rec, err := demo.WriteTourReplies(filepath.Join(abs, "recorded"))
		if err != nil {
			return err
		}
		o.Recording = filepath.Join(dir, "recorded", filepath.Base(rec))
		fmt.Fprintf(stderr, "wright: the model, the judge and the heal are recordings (%s), not a model: the judge answers only for the screenshots it was recorded on\n", o.Recording)
	}
	fmt.Fprintf(stderr, "wright: demo shop (version 1) at %s\n", shop.URL)

	var rows []tourRow
	steps := demo.Tour(o)
	for i, s := range steps {
		if s.Version != shop.Version() {
			if err := shop.SetVersion(s.Version); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "\nwright: the demo shop now serves version %d: the search moved into the header, labelled \"Find a book\", its button \"Go\"\n", s.Version)
		}
		fmt.Fprintf(stderr, "\n== %d/%d %s\n$ %s\n", i+1, len(steps), s.Title, s.Command())
		start := time.Now()
		code, err := runStep(cmd.Context(), self, s.Args, cmd.OutOrStdout(), stderr)
		row := tourRow{step: s, took: time.Since(start), exit: code, expected: code == s.WantExit, interrupted: cmd.Context().Err() != nil}
		rows = append(rows, row)
		if err != nil {
			return fmt.Errorf("demo scripts: step %d: %w", i+1, err)
		}
		if cmd.Context().Err() != nil {
			printTour(stderr, rows)
			return &exitError{code: interruptedCode(), err: errSilent}
		}
		if !row.expected {
			printTour(stderr, rows)
			return &exitError{code: 1, err: fmt.Errorf("demo scripts: step %d ended with exit code %d, not %d as the tour expects; its output is above", i+1, code, s.WantExit)}
		}
	}
	printTour(stderr, rows)
	fmt.Fprintf(stderr, "wright: the script's versions: wright scripts history %s --library %s\n", demo.TourName, filepath.Join(dir, "library"))
	return nil
}

// runStep runs wright with args and returns its exit code. Ctrl-C reaches
// the child from the terminal as it reaches the tour; when the tour's
// context ends otherwise, the child gets SIGINT, so it saves its files as a
// run interrupted by hand does.
func runStep(ctx context.Context, self string, args []string, stdout, stderr io.Writer) (int, error) {
	c := exec.CommandContext(ctx, self, args...)
	c.Stdout, c.Stderr = stdout, stderr
	c.Cancel = func() error { return c.Process.Signal(syscall.SIGINT) }
	c.WaitDelay = 30 * time.Second
	err := c.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit) && exit.ExitCode() >= 0:
		return exit.ExitCode(), nil
	case errors.As(err, &exit):
		return 128 + int(exit.Sys().(syscall.WaitStatus).Signal()), nil
	}
	return -1, err
}

func printTour(w io.Writer, rows []tourRow) {
	fmt.Fprintln(w, "\nwright: the tour")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var total time.Duration
	for i, r := range rows {
		total += r.took
		state := "as expected"
		switch {
		case r.interrupted:
			state = "interrupted"
		case !r.expected:
			state = "NOT as expected"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%.1fs\texit %d, %s\n", i+1, r.step.Title, r.took.Seconds(), r.exit, state)
	}
	fmt.Fprintf(tw, "  \ttotal\t%.1fs\t\n", total.Seconds())
	tw.Flush()
}

// demoServeCommand is `wright demo serve`: the shop, for running the
// tour's commands by hand.
func demoServeCommand() *cobra.Command {
	var addr string
	var version int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the demo shop until Ctrl-C (version 1, or the redesigned 2), to run the tour's commands by hand",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkLoopback(addr); err != nil {
				return err
			}
			shop, err := demo.ServeShop(addr)
			if err != nil {
				return usageError("%v", err)
			}
			defer shop.Close()
			if err := shop.SetVersion(version); err != nil {
				return usageError("--shop-version: %v", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: demo shop (version %d) at %s — Ctrl-C stops it\n", version, shop.URL)
			<-cmd.Context().Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&addr, "addr", demoAddr, "the loopback address to serve on")
	cmd.Flags().IntVar(&version, "shop-version", 1, "1, or 2 for the shop after its redesign")
	return cmd
}
