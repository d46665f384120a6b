package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The CLI and config references in docs/ are what the code generates now:
// a flag, command or config key changed without `make docs` fails here.
func TestDocsUpToDate(t *testing.T) {
	pages, err := referencePages()
	if err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join("..", "..", "docs")
	for name, want := range pages {
		got, err := os.ReadFile(filepath.Join(docs, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("docs/%s is stale or missing (%v): run `make docs`", name, err)
		}
	}
	on, _ := filepath.Glob(filepath.Join(docs, "cli", "*.md"))
	for _, p := range on {
		if _, ok := pages["cli/"+filepath.Base(p)]; !ok {
			t.Errorf("docs/cli/%s documents no command: run `make docs`", filepath.Base(p))
		}
	}
}
