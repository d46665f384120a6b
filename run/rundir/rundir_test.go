package rundir

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/model"
)

func TestCreateRefusesAnExistingRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r")
	r, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(r.Workspace); err != nil || !fi.IsDir() {
		t.Fatalf("no workspace: %v", err)
	}
	if err := r.SaveTrajectory(nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Create(dir); err == nil || !strings.Contains(err.Error(), "already holds a run") {
		t.Errorf("second Create: %v", err)
	}
}

func TestTrajectoryDropsInlineImages(t *testing.T) {
	r, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	img := "data:image/png;base64," + strings.Repeat("iVBORw0KGgo", 50)
	msgs := []model.Message{{Role: "user", Content: "look: " + img, Images: []string{"screenshots/a.png"}}}
	if err := r.SaveTrajectory(map[string]any{"note": img}, msgs); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(r.Dir, "trajectory.json"))
	if strings.Contains(string(b), "base64,") || !strings.Contains(string(b), ImageMarker) {
		t.Errorf("inline image kept:\n%s", b)
	}
	var tr Trajectory
	if err := json.Unmarshal(b, &tr); err != nil || tr.Messages[0].Images[0] != "screenshots/a.png" {
		t.Errorf("trajectory did not round-trip: %v %+v", err, tr)
	}
	if msgs[0].Content != "look: "+img {
		t.Error("SaveTrajectory changed the caller's messages")
	}
	left, _ := filepath.Glob(filepath.Join(r.Dir, ".trajectory.json.*"))
	if len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

func TestWriteStep(t *testing.T) {
	r, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := Step{Step: 1, Thought: "look around", Field: "bash_command", Lang: "bash", Code: "echo '```'",
		Observation: map[string]any{"returncode": 0, "aria_snapshot": "- button", "command_output": "line one\nline \"two\""},
		Usage:       model.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15}, PromptTokens: 12}
	if err := r.WriteStep(s); err != nil {
		t.Fatal(err)
	}
	if err := r.Note("History compacted at step 20 (9000 -> 800 tokens)"); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(r.Dir, "debug", "steps.md"))
	for _, want := range []string{"## Step 1", "look around", "````bash\necho '```'\n````", "History compacted at step 20", "10 prompt + 5 completion", "Prompt: 12 tokens",
		"- returncode: 0\n", "command_output:\n\n```text\nline one\nline \"two\"\n```", "- aria_snapshot: left out of the debug files"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("steps.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(string(md), "- button") {
		t.Error("steps.md holds the ARIA snapshot")
	}
	js, err := os.ReadFile(filepath.Join(r.Dir, "debug", "steps", "step_0001.json"))
	if err != nil || !strings.Contains(string(js), `"returncode": 0`) {
		t.Errorf("step json: %v %s", err, js)
	}
}

func TestDirName(t *testing.T) {
	got := DirName("shop/../search: red shoes", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if got != "shop_.._search_red_shoes_20260102_030405" {
		t.Errorf("DirName = %q", got)
	}
	if SafeID("///") != "task" {
		t.Error("empty id not replaced")
	}
}
