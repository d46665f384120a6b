package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/bench"
)

// TestBenchHAR: --record-har and --replay-har become the browser's HAR
// config; a task's HARs are found in a bench folder that recorded them,
// a task's own replay_har wins, and a task without a recording is an error.
func TestBenchHAR(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "shop-1", "har"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cart.zip"), []byte("zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := benchFlags{recordHAR: true, replayHAR: dir}
	over := map[string]any{}
	if err := benchHAR(f, bench.Task{ID: "shop-1"}, over); err != nil {
		t.Fatal(err)
	}
	if over["browser.record_har"] != true || over["browser.replay_har"] != filepath.Join(dir, "shop-1", "har") {
		t.Errorf("overrides: %v", over)
	}
	over = map[string]any{}
	if err := benchHAR(f, bench.Task{ID: "cart"}, over); err != nil || over["browser.replay_har"] != filepath.Join(dir, "cart.zip") {
		t.Errorf("cart: %v %v", over, err)
	}
	own := map[string]any{"browser.replay_har": "mine.har"}
	if err := benchHAR(f, bench.Task{ID: "nowhere"}, own); err != nil || own["browser.replay_har"] != "mine.har" {
		t.Errorf("a task's own HAR: %v %v", own, err)
	}
	err := benchHAR(f, bench.Task{ID: "nowhere"}, map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "holds no HAR") {
		t.Errorf("a task without a recording: %v", err)
	}
}
