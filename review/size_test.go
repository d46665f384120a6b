package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A 100-step live run, a full-page screenshot per step, stays a few MB.
func TestHundredStepPageSize(t *testing.T) {
	if testing.Short() {
		t.Skip("encodes 100 screenshots")
	}
	dir := copyRun(t, fixture("live"), t.TempDir())
	raw, err := os.ReadFile(filepath.Join(dir, "debug", "steps", "step_0001.json"))
	if err != nil {
		t.Fatal(err)
	}
	shots := []string{"step_0001.png", "step_0002.png", "step_0003.png"}
	for n := 1; n <= 100; n++ {
		var s map[string]any
		_ = json.Unmarshal(raw, &s)
		name := fmt.Sprintf("step_%04d.png", n)
		png, err := os.ReadFile(filepath.Join(dir, "workspace", "screenshots", shots[n%3]))
		if err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(dir, "workspace", "screenshots", name), png, 0o644)
		s["step"] = n
		s["observation"].(map[string]any)["screenshot_path"] = "/elsewhere/run/workspace/screenshots/" + name
		b, _ := json.Marshal(s)
		_ = os.WriteFile(filepath.Join(dir, "debug", "steps", fmt.Sprintf("step_%04d.json", n)), b, 0o644)
	}
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := WriteRunHTML(&page, r, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(page.Bytes(), []byte(`src="data:image/jpeg`)); n != 100 {
		t.Fatalf("%d images, want 100", n)
	}
	mb := float64(page.Len()) / 1e6
	t.Logf("100 steps with a 1280x1800 screenshot each: %.1f MB", mb)
	if mb > 8 {
		t.Errorf("the page is %.1f MB", mb)
	}
}
