package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"wright/internal/atomicfile"
	"wright/run/config"
)

//go:generate go run . gen-docs ../../docs

// The reference pages are generated from the commands and the config, so
// they cannot drift: `make docs` (or go generate ./cmd/wright) rewrites
// them, and TestDocsUpToDate fails when a change to a flag, a command or a
// config key was made without it.
func init() {
	rootCmd.AddCommand(&cobra.Command{
		Use:    "gen-docs DOCS_DIR",
		Short:  "Write the CLI reference (DOCS_DIR/cli/) and the config reference (DOCS_DIR/config.md)",
		Hidden: true,
		Args:   argsNamed("DOCS_DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			pages, err := referencePages()
			if err != nil {
				return err
			}
			dir := args[0]
			if err := os.MkdirAll(filepath.Join(dir, "cli"), 0o755); err != nil {
				return err
			}
			// Pages of commands that are gone go too.
			old, _ := filepath.Glob(filepath.Join(dir, "cli", "*.md"))
			for _, p := range old {
				if _, ok := pages[filepath.ToSlash(must(filepath.Rel(dir, p)))]; !ok {
					os.Remove(p)
				}
			}
			for _, name := range sortedNames(pages) {
				if err := atomicfile.Write(filepath.Join(dir, filepath.FromSlash(name)), []byte(pages[name]), 0o644); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: wrote %d reference pages under %s\n", len(pages), dir)
			return nil
		},
	})
}

func must(s string, _ error) string { return s }

// referencePages is every generated page by its path under docs/.
func referencePages() (map[string]string, error) {
	pages := map[string]string{}
	ref, err := config.Reference()
	if err != nil {
		return nil, err
	}
	pages["config.md"] = ref
	// cobra adds these when it executes; a test never does, so add them
	// here for the pages to be the same either way.
	rootCmd.InitDefaultHelpCmd()
	rootCmd.InitDefaultCompletionCmd()
	var index strings.Builder
	index.WriteString("# CLI reference\n\n<!-- Generated from the commands by `make docs`; edit their help, not this page. -->\n\n")
	index.WriteString("Every command and flag, from `wright --help`. Exit codes: 0 success, 1 the run (or bench) did not succeed, 2 a usage or config error (nothing started), 130 and 143 interrupted.\n\n")
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != rootCmd {
			return nil
		}
		c.DisableAutoGenTag = true
		var buf bytes.Buffer
		if err := doc.GenMarkdownCustom(c, &buf, func(s string) string { return s }); err != nil {
			return fmt.Errorf("docs for %s: %w", c.CommandPath(), err)
		}
		name := "cli/" + strings.ReplaceAll(c.CommandPath(), " ", "_") + ".md"
		pages[name] = buf.String()
		depth := strings.Count(c.CommandPath(), " ")
		if depth > 0 {
			fmt.Fprintf(&index, "%s- [`%s`](%s) — %s\n", strings.Repeat("  ", depth-1), c.CommandPath(), strings.TrimPrefix(name, "cli/"), c.Short)
		}
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(rootCmd); err != nil {
		return nil, err
	}
	pages["cli/README.md"] = index.String()
	return pages, nil
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
