package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every view of a run shows each step's prompt split into cached and
// uncached tokens, and the run's cached total.
func TestCachedTokensShown(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("workspace/task.json", `{"task_id":"t","task":"a task"}`)
	write("result.json", `{"task_id":"t","exit_status":"Submitted","steps":1,"usage":{"prompt_tokens":1400,"completion_tokens":40,"total_tokens":1440,"cached_tokens":900,"cost":0.01}}`)
	write("debug/steps/step_0001.json", `{"step":1,"thought":"look","field":"bash_command","code":"ls","observation":{"returncode":0},
		"usage":{"prompt_tokens":1400,"completion_tokens":40,"total_tokens":1440,"cached_tokens":900,"cost":0.01},"prompt_tokens":1400}`)
	r, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	text, d, page := renderAll(t, r)
	if !strings.Contains(text, "1400 prompt tokens (900 cached, 500 uncached)") || !strings.Contains(text, "(1400 prompt, 900 cached)") {
		t.Errorf("text:\n%s", text)
	}
	if !strings.Contains(page, "1400 prompt tokens (900 cached, 500 uncached)") || !strings.Contains(page, "1400 prompt, 900 cached") {
		t.Errorf("the page lacks the cached split")
	}
	if len(d.StepList) != 1 || d.StepList[0].CachedTokens != 900 || d.StepList[0].Uncached != 500 || d.Header.CachedTokens != 900 {
		t.Errorf("digest %+v", d)
	}
}
