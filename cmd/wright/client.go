package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"wright/browser/python"
)

// clients are the language clients of `wright driver` the binary carries.
var clients = map[string]func() string{
	"python": python.Client,
}

var clientCmd = &cobra.Command{
	Use:   "client LANGUAGE",
	Short: "Print the source of a browser client library (python: wright_browser.py)",
	Long: "Print the source of a language client of `wright driver` to stdout, e.g.\n" +
		"  wright client python > wright_browser.py\n" +
		"  wright client python --out DIR   # wright_browser.py and the playwright package\n" +
		"The client starts `wright driver` itself (WRIGHT_BIN, else wright on PATH).",
	Args: cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		src, ok := clients[args[0]]
		if !ok {
			return usageError("unknown client language %q; available: %s", args[0], strings.Join(clientNames(), ", "))
		}
		if out, _ := cmd.Flags().GetString("out"); out != "" {
			// python: wright_browser.py and the playwright package.
			path, err := python.Install(out)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s and %s\n", path, filepath.Join(out, python.PackageName))
			return nil
		}
		_, err := fmt.Fprint(cmd.OutOrStdout(), src())
		return err
	},
}

func clientNames() []string {
	names := make([]string, 0, len(clients))
	for name := range clients {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func init() {
	clientCmd.Flags().String("out", "", "write the client into this directory instead (python: wright_browser.py and the playwright package, Playwright's sync API)")
	rootCmd.AddCommand(clientCmd)
}
