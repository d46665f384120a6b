package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/library"
)

// TestWordingAndExitCodes: what a new user met, said plainly and with the
// exit code of a usage error where it is one.
func TestWordingAndExitCodes(t *testing.T) {
	bench := t.TempDir()
	if err := os.WriteFile(filepath.Join(bench, "results.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"an unknown export format is a usage error", []string{"bench", "export", bench, "--format", "webarena"}, 2, `--format "webarena": use online-mind2web`},
		{"--parallel 0 names its flag", []string{"bench", "builtin:demo", "-o", filepath.Join(t.TempDir(), "b"), "--model", "builtin:recorded", "--parallel", "0"}, 2, "--parallel 0: it must be at least 1"},
		{"review with no folder says what to give", []string{"review"}, 2, "give a run folder or a bench folder\nusage: wright review RUN_DIR"},
		{"review with three words says one folder", []string{"review", "a", "b", "c"}, 2, "review one folder at a time\nusage: wright review RUN_DIR"},
		{"--retries -1 names its flag", []string{"bench", "builtin:demo", "-o", filepath.Join(t.TempDir(), "b"), "--model", "builtin:recorded", "--retries", "-1"}, 2, "--retries -1: it must be at least 0"},
	}
	for _, c := range cases {
		r := wright(t, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr.String(), c.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", c.name, r.code, r.stderr.String(), c.code, c.want)
		}
	}
}

// TestNoStartURLNoteAfterFatalErrors: the note that a run has no start URL
// is for a run that starts; a config error comes alone.
func TestNoStartURLNoteAfterFatalErrors(t *testing.T) {
	r := wright(t, "run", "-t", "x", "--run-dir", filepath.Join(t.TempDir(), "r"), "-c", "agent.mode=sideways")
	if r.code != 2 || strings.Contains(r.stderr.String(), "no --start-url") {
		t.Fatalf("exit %d, stderr %q: want 2 and no start-url note before the config error", r.code, r.stderr.String())
	}
}

// TestDiffOfOneVersionSaysSo: a script with one version has nothing to
// compare; that is an answer (exit 0), not a misuse.
func TestDiffOfOneVersionSaysSo(t *testing.T) {
	dir := t.TempDir()
	lib, err := library.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lib.Save(library.SaveSpec{Version: library.Version{Name: "book"}, Script: []byte("print(1)\n")}); err != nil {
		t.Fatal(err)
	}
	r := wright(t, "scripts", "diff", "book", "--library", dir)
	if r.code != 0 || !strings.Contains(r.stdout.String(), "book has one version (v1): nothing to compare yet") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout.String(), r.stderr.String())
	}
	r = wright(t, "scripts", "diff", "book", "--library", dir, "--json")
	if r.code != 0 || !strings.Contains(r.stdout.String(), `"diff": ""`) {
		t.Fatalf("--json: exit %d, stdout %q", r.code, r.stdout.String())
	}
}
