package demo

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"wright/model"
)

var update = flag.Bool("update", false, "rerun the book script on the shop in real Chromium and rewrite screens_recorded.go")

// TestRecordedScreens checks the judge's recording: every recorded run has
// its screenshots' hashes, the same page hashes alike, and different pages
// (another book, the other version's home page) are farther apart than the
// replay's tolerance, so no reply answers for a page it does not describe.
// With -update it first records them again: each run of RecordedShots
// drives Chromium through the book script on the served shop.
func TestRecordedScreens(t *testing.T) {
	if *update {
		recordScreens(t)
	}
	type page struct{ shot, name, identity, hash string }
	var pages []page
	for _, s := range RecordedShots {
		hashes, ok := recordedScreens[s.Key()]
		if !ok || len(hashes) != len(ShotNames) {
			t.Fatalf("%s: %d recorded screenshots, want %d (go test ./demo -run TestRecordedScreens -update)", s.Key(), len(hashes), len(ShotNames))
		}
		for i, name := range ShotNames {
			// The results and book pages are the same in both versions;
			// the home page is what the redesign changed.
			id := name + "/" + s.Book.ID
			if name == "home" {
				id = fmt.Sprintf("home/v%d", s.Version)
			}
			pages = append(pages, page{s.Key(), name, id, hashes[i]})
		}
	}
	closest := model.HashBits
	for i, a := range pages {
		for _, b := range pages[i+1:] {
			d, err := model.HashDistance(a.hash, b.hash)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case a.identity == b.identity && d > model.ImageHashTolerance:
				t.Errorf("%s %s and %s %s show the same page but are %d bits apart", a.shot, a.name, b.shot, b.name, d)
			case a.identity != b.identity && d <= model.ImageHashTolerance:
				t.Errorf("%s %s and %s %s show different pages but are only %d bits apart (tolerance %d)", a.shot, a.name, b.shot, b.name, d, model.ImageHashTolerance)
			case a.identity != b.identity:
				closest = min(closest, d)
			}
		}
	}
	t.Logf("different pages are %d bits apart or more; the tolerance is %d of %d", closest, model.ImageHashTolerance, model.HashBits)
}

// The recorded heal turns the v1 script into the v2 one, changing nothing
// else; the run's recorded script is the v1 one.
func TestHealEditsOnlyTheLocators(t *testing.T) {
	v1, v2 := BookScript(1), BookScript(2)
	if v1 == v2 || Healed(v1) != v2 {
		t.Fatalf("the recorded heal does not make the v2 script:\n%s", Healed(v1))
	}
	if !strings.Contains(Script[3].BashCommand, v1) {
		t.Error("the recorded run does not write the v1 script")
	}
	for _, b := range append([]Book{DefaultBook, UnrecordedBook}, OtherBooks...) {
		var v map[string]any
		if err := json.Unmarshal([]byte(b.Result()), &v); err != nil || v["title"] != b.Title {
			t.Errorf("%s: result %s: %v", b.ID, b.Result(), err)
		}
	}
}

// recordScreens runs the book script for each recorded shot and rewrites
// screens_recorded.go with its screenshots' hashes.
func recordScreens(t *testing.T) {
	work := t.TempDir()
	bin := filepath.Join(work, "wright")
	if out, err := exec.Command("go", "build", "-o", bin, "wright/cmd/wright").CombinedOutput(); err != nil {
		t.Fatalf("build wright: %v\n%s", err, out)
	}
	client := filepath.Join(work, "client")
	if out, err := exec.Command(bin, "client", "python", "--out", client).CombinedOutput(); err != nil {
		t.Fatalf("write the client: %v\n%s", err, out)
	}
	shop, err := ServeShop("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer shop.Close()
	recorded := map[string][]string{}
	for _, s := range RecordedShots {
		if err := shop.SetVersion(s.Version); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(work, strings.ReplaceAll(s.Key(), "/", "_"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		task, _ := json.Marshal(map[string]string{"task": Task, "start_url": shop.URL})
		script := filepath.Join(dir, "final_script.py")
		if err := os.WriteFile(filepath.Join(dir, "task.json"), task, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(script, []byte(BookScript(s.Version)), 0o644); err != nil {
			t.Fatal(err)
		}
		runDir := filepath.Join(dir, "run")
		cmd := exec.Command("python3", script, "--book", s.Book.Title)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PYTHONPATH="+client, "WRIGHT_BIN="+bin, "WRIGHT_RUN_DIR="+runDir, "TASK_JSON="+filepath.Join(dir, "task.json"))
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", s.Key(), err, out)
		}
		t.Logf("%s ran in %.1fs", s.Key(), time.Since(start).Seconds())
		for i, name := range ShotNames {
			h, err := model.ImageHash(filepath.Join(runDir, "screenshots", fmt.Sprintf("final_execution_%d_%s.png", i+1, name)))
			if err != nil {
				t.Fatal(err)
			}
			recorded[s.Key()] = append(recorded[s.Key()], h)
		}
	}
	keys := make([]string, 0, len(recorded))
	for k := range recorded {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("// Code generated by go test ./demo -run TestRecordedScreens -update; DO NOT EDIT.\n\npackage demo\n\n")
	b.WriteString("// recordedScreens are the model.ImageHash values of each recorded run's\n// screenshots (ShotNames, in order), keyed by Shot.Key.\nvar recordedScreens = map[string][]string{\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "\t%q: {\n", k)
		for _, h := range recorded[k] {
			fmt.Fprintf(&b, "\t\t%q,\n", h)
		}
		b.WriteString("\t},\n")
	}
	b.WriteString("}\n")
	if err := os.WriteFile("screens_recorded.go", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	recordedScreens = recorded
}
