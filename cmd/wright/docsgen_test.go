package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
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

// docs/README.md indexes every page of docs/, and every page it links is
// there: a page added without a line in the index fails here.
func TestDocsIndexComplete(t *testing.T) {
	docs := filepath.Join("..", "..", "docs")
	index, err := os.ReadFile(filepath.Join(docs, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(docs, "*.md"))
	for _, p := range pages {
		if name := filepath.Base(p); name != "README.md" && !strings.Contains(string(index), "("+name+")") {
			t.Errorf("docs/README.md does not list %s", name)
		}
	}
	for _, m := range regexp.MustCompile(`\]\(([^)#]+\.md)\)`).FindAllStringSubmatch(string(index), -1) {
		if _, err := os.Stat(filepath.Join(docs, filepath.FromSlash(m[1]))); err != nil {
			t.Errorf("docs/README.md links %s, which is not there", m[1])
		}
	}
}
