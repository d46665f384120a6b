package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"wright/library"
	"wright/library/rerun"
)

// checkRow is one script in `wright scripts check`.
type checkRow struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	// State is works, broken or healed.
	State   string  `json:"state"`
	Reason  string  `json:"reason,omitempty"`
	Healed  int     `json:"healed_version,omitempty"`
	RunDir  string  `json:"run_dir,omitempty"`
	Seconds float64 `json:"seconds"`
	Cost    float64 `json:"cost"`
}

// checkCommand is `wright scripts check`: a drift check for cron or CI.
func checkCommand(sf *scriptsFlags) *cobra.Command {
	var f rerunFlags
	cmd := &cobra.Command{
		Use:   "check [NAME ...]",
		Short: "Rerun each script (default inputs, default verification) and report which still work",
		Long: `Rerun every script of the library (or those named) with its default inputs and
its default verification, and print one row per script: works, broken and why,
or healed (with --heal). Meant for cron or CI: --json for machines, and no
progress output when stdout is not a terminal.

Exit codes: 0 every script works (or was healed), 1 any is broken, 2 usage.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.library, f.json = sf.library, sf.json
			return runCheck(cmd, args, f)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&f.heal, "heal", false, "repair a broken script with an agent run (saved as its next version)")
	fl.IntVar(&f.healSteps, "heal-step-limit", rerun.DefaultHealSteps, "maximum model calls of each heal")
	fl.Float64Var(&f.healCost, "heal-cost-limit", 0, "USD each heal may spend (0: agent.cost_limit)")
	fl.StringArrayVarP(&f.configs, "config", "c", nil, "config layer, as for wright run")
	fl.StringVar(&f.model, "model", "", "the model of a heal (model.name)")
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint (model.base_url)")
	return cmd
}

func runCheck(cmd *cobra.Command, names []string, f rerunFlags) error {
	cfg, lib, warn, err := rerunSetup(cmd, f)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		if names, err = lib.Names(); err != nil {
			return err
		}
	}
	for _, n := range names {
		if _, err := lib.Versions(n); err != nil {
			return libError(err)
		}
	}
	interactive := isTerminal(os.Stdout) && !f.json
	rows := []checkRow{}
	broken := false
	for _, n := range names {
		if interactive {
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: checking %s ...\n", n)
		}
		row := checkRow{Name: n}
		p, err := rerun.Prepare(rerun.Options{Library: lib, Name: n, Config: cfg, Heal: f.heal,
			HealStepLimit: f.healSteps, HealCostLimit: f.healCost, Warn: warn})
		if err != nil {
			row.State, row.Reason = "broken", err.Error()
			rows, broken = append(rows, row), true
			continue
		}
		row.Version = p.Saved().Version.Version
		rep, err := p.Run(cmd.Context())
		if cmd.Context().Err() != nil {
			return cmd.Context().Err()
		}
		row.RunDir, row.Seconds, row.Cost = rep.RunDir, rep.Seconds, rep.Cost
		if rep.Heal != nil {
			row.Cost += rep.Heal.Cost
		}
		switch {
		case err != nil:
			var ue *library.UsageError
			if errors.As(err, &ue) {
				return usageError("%s: %v", n, err)
			}
			row.State, row.Reason = "broken", err.Error()
		case rep.Verified && rep.Heal != nil && rep.Heal.Saved > 0:
			row.State, row.Healed = "healed", rep.Heal.Saved
		case rep.Verified:
			row.State = "works"
		default:
			row.State, row.Reason = "broken", rep.Reason
		}
		if row.State == "broken" {
			broken = true
		}
		rows = append(rows, row)
	}
	if err := printCheckRows(cmd.OutOrStdout(), rows, f.json); err != nil {
		return err
	}
	if broken {
		return &exitError{code: 1, err: errSilent}
	}
	return nil
}

// printCheckRows prints the rows of `wright scripts check` as JSON or as a
// table.
func printCheckRows(w io.Writer, rows []checkRow, asJSON bool) error {
	if asJSON {
		return printJSON(w, rows)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tSTATE\tSECONDS\tCOST\tWHY")
	for _, r := range rows {
		why := r.Reason
		if r.State == "healed" {
			why = fmt.Sprintf("healed into v%d", r.Healed)
		}
		fmt.Fprintf(tw, "%s\tv%d\t%s\t%.1f\t$%.4f\t%s\n", r.Name, r.Version, r.State, r.Seconds, r.Cost, clipWhy(why))
	}
	return tw.Flush()
}

// clipWhy is a reason's first line, short enough for a table cell.
func clipWhy(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}
