package gate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestListRunsOrder(t *testing.T) {
	ws := t.TempDir()
	runs := filepath.Join(ws, FinalRunsDir)
	for _, d := range []string{"run_10", "run_3", "run_003", "run_2", "run_x", "run_", "xrun_99", "run_-1"} {
		os.MkdirAll(filepath.Join(runs, d), 0o755)
	}
	writeFile(t, filepath.Join(runs, "run_50"), []byte("a file, not a run"))
	os.Symlink(filepath.Join(runs, "run_2"), filepath.Join(runs, "run_7")) // a linked run counts

	got, err := ListRuns(runs)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range got {
		names = append(names, r.Name)
	}
	want := []string{"run_2", "run_003", "run_3", "run_7", "run_10"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("order %v, want %v", names, want)
	}
	if got[1].N != 3 || got[2].N != 3 || got[4].N != 10 {
		t.Errorf("numbers: %+v", got)
	}
	newest, ok, err := NewestRun(runs)
	if err != nil || !ok || newest.Name != "run_10" {
		t.Errorf("newest: %+v %v %v", newest, ok, err)
	}
	if n, err := NextRunNumber(runs); err != nil || n != 11 {
		t.Errorf("next: %d %v", n, err)
	}
}

func TestListRunsMissing(t *testing.T) {
	missing := filepath.Join(t.TempDir(), FinalRunsDir)
	if _, err := ListRuns(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want not-exist", err)
	}
	if n, err := NextRunNumber(missing); err != nil || n != 1 {
		t.Errorf("next in a missing folder: %d %v", n, err)
	}
	if _, ok, err := NewestRun(t.TempDir()); ok || err != nil {
		t.Errorf("empty folder: ok=%v err=%v", ok, err)
	}
}

func TestRunScreenshotsOrder(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{
		"screenshots/final_execution_10_done.png",
		"screenshots/final_execution_2_search.jpg",
		"screenshots/final_execution_1_home.png",
		"screenshots/sub/final_execution_3_detail.jpeg",
		"screenshots/zz_extra.png",
		"screenshots/notes.txt",
		"final_execution_9.png", // in the run folder itself
		"aa_top.PNG",
	} {
		writeFile(t, filepath.Join(dir, p), []byte("x"))
	}
	got, err := RunScreenshots(dir)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, p := range got {
		r, _ := filepath.Rel(dir, p)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{
		"screenshots/final_execution_1_home.png",
		"screenshots/final_execution_2_search.jpg",
		"screenshots/sub/final_execution_3_detail.jpeg",
		"final_execution_9.png",
		"screenshots/final_execution_10_done.png",
		"aa_top.PNG",
		"screenshots/zz_extra.png",
	}
	if !reflect.DeepEqual(rel, want) {
		t.Errorf("order\n got %v\nwant %v", rel, want)
	}
}

func TestNewestRunWithScreenshots(t *testing.T) {
	ws := t.TempDir()
	makeRun(t, ws, "run_1", "final_execution_1_a.png")
	makeRun(t, ws, "run_2", "final_execution_1_b.png")
	makeRun(t, ws, "run_3") // none
	run, shots, ok, err := NewestRunWithScreenshots(filepath.Join(ws, FinalRunsDir))
	if err != nil || !ok || run.Name != "run_2" || len(shots) != 1 {
		t.Errorf("got %+v %v %v %v", run, shots, ok, err)
	}
}
