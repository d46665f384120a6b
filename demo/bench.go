package demo

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// The bench suite on the shop: tasks that each exercise one thing web agents
// meet (search, filters, pagination, a table, a login, a multi-step form, a
// confirm dialog, a new tab), with an evaluator each, and the replies a good
// model gave, so a whole bench runs with no key and no network.
//
//go:embed bench/suite.jsonl bench/recorded
var benchFiles embed.FS

// SitePlaceholder is the site name the suite's start URLs use ("__DEMO__/"):
// the bench fills it with the address it serves the shop on.
const SitePlaceholder = "demo"

// BenchSuite returns the built-in suite NAME ("demo" is the only one).
func BenchSuite(name string) ([]byte, error) {
	if name != "demo" {
		return nil, fmt.Errorf("no built-in suite %q (known: demo)", name)
	}
	return benchFiles.ReadFile("bench/suite.jsonl")
}

// Recorded returns the recorded replies (replay JSONL) for a task of the
// built-in suite, or false if there are none.
func Recorded(taskID string) ([]byte, bool) {
	b, err := benchFiles.ReadFile("bench/recorded/" + taskID + ".jsonl")
	return b, err == nil
}

// RecordedTasks lists the task ids that have recorded replies.
func RecordedTasks() []string {
	entries, _ := fs.ReadDir(benchFiles, "bench/recorded")
	var ids []string
	for _, e := range entries {
		ids = append(ids, strings.TrimSuffix(e.Name(), ".jsonl"))
	}
	sort.Strings(ids)
	return ids
}
