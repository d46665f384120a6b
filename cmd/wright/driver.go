package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"wright/browser"
	"wright/browser/driver"
	"wright/browser/probe"
	"wright/run/gate"
)

// driverCmd is `wright driver`: the browser driver that language clients
// (wright_browser.py) talk to, over stdio or a Unix socket.
var driverCmd = &cobra.Command{
	Use:   "driver",
	Short: "Serve the browser driver protocol (JSON-RPC over stdio, or a Unix socket)",
	Long: `Serve the browser driver protocol of browser/driver/PROTOCOL.md.

By default the driver speaks newline-delimited JSON-RPC 2.0 on stdin/stdout
and exits (closing its browser) when stdin closes. With --socket PATH it
listens on a Unix socket until SIGINT/SIGTERM; every client that connects
shares the same browser. Diagnostics go to stderr.`,
	Args: cobra.NoArgs,
	RunE: runDriver,
}

var driverFlags struct {
	socket     string
	executable string
	cdpURL     string
	headed     bool
}

func init() {
	f := driverCmd.Flags()
	f.StringVar(&driverFlags.socket, "socket", "", "listen on this Unix socket instead of stdio")
	f.StringVar(&driverFlags.executable, "browser", "", "Chrome/Chromium executable (default: $WRIGHT_BROWSER, then chromium etc. on PATH)")
	f.StringVar(&driverFlags.cdpURL, "cdp-url", "", "attach to a running browser (ws://... or http://host:port) instead of launching one")
	f.BoolVar(&driverFlags.headed, "headed", false, "show the browser window by default")
	rootCmd.AddCommand(driverCmd)
}

func runDriver(cmd *cobra.Command, _ []string) error {
	// With a client gone, a write to stdout must fail with EPIPE rather than
	// kill the driver by SIGPIPE and leave its browser behind.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// The driver owns nothing but its browser: it reaps the helpers a dying
	// Chromium orphans, so none is left as a zombie.
	if err := browser.BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "wright driver: cannot become a subreaper:", err)
	}
	req, err := probe.Load()
	if err != nil {
		return err
	}
	opts := driver.ServerOptions{
		Probe: req,
		Browser: browser.Options{
			Executable: driverFlags.executable,
			CDPURL:     driverFlags.cdpURL,
			Headed:     driverFlags.headed,
			VideoDir:   videoDir(),
			Log:        os.Stderr,
		},
		Log: os.Stderr,
		HAR: driver.HAROptionsFromEnv(),
	}
	ctx := cmd.Context()
	if driverFlags.socket != "" {
		return driver.ServeSocket(ctx, driverFlags.socket, opts)
	}
	return driver.ServeStdio(ctx, os.Stdin, os.Stdout, opts)
}

// videoDir is WRIGHT_VIDEO (gate.VideoEnv) made absolute, "" when unset.
func videoDir() string {
	dir := os.Getenv(gate.VideoEnv)
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}
