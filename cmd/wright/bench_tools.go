package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"wright/bench"
	"wright/bench/results"
	"wright/run/harness"
)

// The bench's offline tools: they read results.jsonl files and write
// summaries, merges, comparisons and exports; none starts a run.

var benchSummarizeCmd = &cobra.Command{
	Use:   "summarize DIR",
	Short: "Rebuild DIR/summary.md and summary.json from DIR/results.jsonl",
	Args:  cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		dir := args[0]
		recs, skipped, err := results.Read(filepath.Join(dir, bench.ResultsFile))
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return usageError("%s has no %s with results", dir, bench.ResultsFile)
		}
		repro, err := bench.ReadRepro(dir)
		if err != nil {
			return err
		}
		s := bench.Summarize(recs, repro)
		if err := bench.WriteSummary(dir, s); err != nil {
			return err
		}
		if skipped > 0 {
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: skipped %d unreadable line(s) of %s (a bench killed mid-write leaves one)\n", skipped, bench.ResultsFile)
		}
		fmt.Fprint(cmd.OutOrStdout(), s.Markdown())
		return nil
	},
}

var benchMergeCmd = &cobra.Command{
	Use:   "merge OUT DIR...",
	Short: "Join the results of shard directories into OUT",
	Long: `Join the results of shard directories (each a bench run with --shard i/n) into OUT.
With --complete, first check that the directories hold every shard of one split
exactly once, each with a final record for every attempt it selected, and refuse
(exit 1, naming what is missing) otherwise: a merge job scheduled after its array
whatever became of it runs with --complete.`,
	Args: cobra.MinimumNArgs(2),
	RunE: func(cmd *cobra.Command, args []string) error {
		if complete, _ := cmd.Flags().GetBool("complete"); complete {
			if err := bench.CheckComplete(args[1:]); err != nil {
				return err
			}
		}
		s, err := bench.Merge(args[0], args[1:])
		if err != nil {
			return err
		}
		fmt.Fprint(cmd.OutOrStdout(), s.Markdown())
		return nil
	},
}

var benchCompareCmd = &cobra.Command{
	Use:   "compare A B",
	Short: "Pair two benches task by task: who passed, McNemar's exact p-value, cost and steps",
	Args:  cobra.ExactArgs(2),
	RunE: func(cmd *cobra.Command, args []string) error {
		var sets [2][]bench.Record
		for i, dir := range args {
			recs, _, err := results.Read(filepath.Join(dir, bench.ResultsFile))
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				return usageError("%s has no %s with results", dir, bench.ResultsFile)
			}
			sets[i] = recs
		}
		bench.Compare(sets[0], sets[1]).Write(cmd.OutOrStdout(), args[0], args[1])
		return nil
	},
}

var benchExportFormat, benchExportOut string

var benchExportCmd = &cobra.Command{
	Use:   "export DIR --format online-mind2web -o OUT",
	Short: "Write a bench's runs in the layout a benchmark's own judge reads",
	Args:  cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		if !slices.Contains(bench.ExportFormats, benchExportFormat) {
			return usageError("--format %q: use %s", benchExportFormat, strings.Join(bench.ExportFormats, " or "))
		}
		out := benchExportOut
		if out == "" {
			out = filepath.Join(args[0], "export-"+benchExportFormat)
		}
		n, err := bench.Export(args[0], out, benchExportFormat)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "wrote %s to %s\n", harness.Plural(n, "task folder"), out)
		return nil
	},
}

func init() {
	benchExportCmd.Flags().StringVar(&benchExportFormat, "format", "online-mind2web", "the layout to write")
	benchExportCmd.Flags().StringVarP(&benchExportOut, "output", "o", "", "where to write (default DIR/export-FORMAT)")
	benchMergeCmd.Flags().Bool("complete", false, "refuse unless every shard of the split is there, each with every attempt finished")
	benchCmd.AddCommand(benchSummarizeCmd, benchMergeCmd, benchCompareCmd, benchExportCmd)
}
