package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "Print wright's version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			v := version
			if info, ok := debug.ReadBuildInfo(); ok && v == "dev" {
				for _, s := range info.Settings {
					if s.Key == "vcs.revision" && len(s.Value) >= 12 {
						v += "+" + s.Value[:12]
					}
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wright %s (%s, %s/%s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		},
	})
}
