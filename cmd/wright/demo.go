package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"wright/demo"
	"wright/library"
	"wright/run/harness"
	"wright/run/rundir"
)

func init() {
	var outputDir, saveAs, libDir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch a whole run on a bundled demo shop, with a recorded model (no API key)",
		Long: `Serve a small demo bookshop on loopback and run the agent on a task there, with
recorded replies standing in for the model and for the screenshot judge. The
browser, the shell, the scripts and the gate are all real: the run explores the
shop, writes and runs final_script.py, has the run judged, and finishes with the
book's title, author and price as JSON valid against the demo's output schema
(result.json's "output"). The script is a tool whose --book is the title:
--save-as NAME keeps it in the script library, to rerun with other titles.

wright demo scripts takes such a script through its whole life: saved, rerun,
broken by a redesign of the shop, healed, rerun.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var lib *library.Library
			if saveAs != "" {
				// Checked before the run, so a bad name loses no run.
				if err := library.CheckName(saveAs); err != nil {
					return usageError("--save-as: %v", err)
				}
				var err error
				if lib, err = library.Open(libDir); err != nil {
					return usageError("%v", err)
				}
			}
			url, stop, err := demo.Serve()
			if err != nil {
				return err
			}
			defer stop()
			// The recordings stay beside the runs: the run's config and
			// result name them as its model, and a reader may open them.
			replays := filepath.Join(outputDir, "recorded")
			cfg, err := demo.Config(replays)
			if err != nil {
				return fmt.Errorf("demo config: %w", err)
			}
			task := harness.Task{ID: demo.TaskID, Text: demo.Task, StartURL: url}
			var after func(rundir.Result) error
			if lib != nil {
				after = func(res rundir.Result) error { return saveRun(cmd, lib, saveAs, cfg, task, res) }
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: demo shop at %s; the model and the judge are recordings (%s), not a model\n", url, replays)
			return runHarnessThen(cmd, cfg, harness.Options{OutputDir: outputDir}, task, true, false, nil, after)
		},
	}
	cmd.Flags().StringVarP(&outputDir, "output-dir", "o", "demo-runs", "where the run directory is made")
	cmd.Flags().StringVar(&saveAs, "save-as", "", "save the verified script in the library under this name (a tool: --book TITLE)")
	cmd.Flags().StringVar(&libDir, "library", "", "the script library (default $"+library.EnvDir+", else the user's data directory)")
	cmd.AddCommand(demoScriptsCommand(), demoServeCommand())
	rootCmd.AddCommand(cmd)
}
