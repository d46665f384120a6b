package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"wright/demo"
	"wright/run/harness"
)

func init() {
	var outputDir string
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Watch a whole run on a bundled demo shop, with a recorded model (no API key)",
		Long: `Serve a small demo bookshop on loopback and run the agent on a task there, with
recorded replies standing in for the model and for the screenshot judge. The
browser, the shell, the scripts and the gate are all real: the run explores the
shop, writes and runs final_script.py, has the run judged, and finishes with the
book's title, author and price as JSON valid against the demo's output schema
(result.json's "output").`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: demo shop at %s\n", url)
			return runHarness(cmd, cfg, harness.Options{OutputDir: outputDir}, harness.Task{ID: demo.TaskID, Text: demo.Task, StartURL: url}, true, false)
		},
	}
	cmd.Flags().StringVarP(&outputDir, "output-dir", "o", "demo-runs", "where the run directory is made")
	rootCmd.AddCommand(cmd)
}
