package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"wright/internal/tracing"
	"wright/trust/keyring"
)

// tracedCommands are the commands whose runs become traces; the others
// (the driver, the sandbox's init, a `wright reflect` inside a run) export
// nothing, whatever the environment says.
var tracedCommands = []string{"run", "demo", "bench", "rerun", "heal", "check"}

var otelEndpoint string

// stopTracing flushes the traces of this process; main calls it before
// exiting, whichever way the command ended.
var stopTracing = func() {}

func init() {
	f := rootCmd.PersistentFlags()
	f.StringVar(&otelEndpoint, "otel", "", "export OpenTelemetry traces of runs (run, demo, bench) over OTLP; --otel alone uses the OTEL_EXPORTER_OTLP_* variables (default http://localhost:4318), --otel=URL sends to that collector")
	f.Lookup("otel").NoOptDefVal = "env"
	rootCmd.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if !slices.Contains(tracedCommands, cmd.Name()) {
			return nil
		}
		opts := tracing.Options{Requested: cmd.Flags().Changed("otel"), Version: version, Getenv: keyring.Getenv}
		if otelEndpoint != "env" {
			opts.Endpoint = otelEndpoint
		}
		shutdown, err := tracing.Start(cmd.Context(), opts)
		if err != nil {
			return usageError("%v", err)
		}
		stopTracing = func() {
			// A collector that is down must not hold the exit for long.
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := shutdown(ctx); err != nil {
				fmt.Fprintln(os.Stderr, "wright: warning:", err)
			}
		}
		return nil
	}
}
