package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestDefaultFoldersStayOutOfTheSources: every folder a command writes by
// default (an --output-dir's default, relative to where it is run) is
// ignored by git in the repository's root, and no Go package of the
// repository has its name, so a run started from the root, as the README's
// commands are, never shows among the sources.
func TestDefaultFoldersStayOutOfTheSources(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	defaults := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "output-dir" && f.DefValue != "" {
				defaults[f.DefValue] = c.CommandPath()
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(rootCmd)
	if len(defaults) < 2 {
		t.Fatalf("found the default folders %v: expected at least run's and demo's", defaults)
	}
	for dir, cmd := range defaults {
		if filepath.IsAbs(dir) {
			continue
		}
		probe := filepath.Join(dir, "task_20260101_000000", "result.json")
		out, err := exec.Command("git", "-C", root, "check-ignore", "-q", probe).CombinedOutput()
		if err != nil {
			t.Errorf("%s writes into %s/ by default, which .gitignore does not cover (%v %s)", cmd, dir, err, out)
		}
		if gos, _ := filepath.Glob(filepath.Join(root, dir, "*.go")); len(gos) > 0 {
			t.Errorf("%s writes into %s/ by default, which is a Go package of the repository", cmd, dir)
		}
		if st, err := os.Stat(filepath.Join(root, dir)); err == nil && st.IsDir() && !strings.HasPrefix(dir, ".") {
			if out, _ := exec.Command("git", "-C", root, "ls-files", dir).Output(); len(out) > 0 {
				t.Errorf("%s/ holds tracked files, and %s writes there by default", dir, cmd)
			}
		}
	}
}
