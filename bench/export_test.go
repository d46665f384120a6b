package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"wright/bench/results"
)

func TestExportOnlineMind2Web(t *testing.T) {
	bench := t.TempDir()
	run := filepath.Join(bench, "t1")
	for _, d := range []string{"workspace/screenshots", "workspace/final_runs/run_1/screenshots", "workspace/final_runs/run_2/screenshots"} {
		if err := os.MkdirAll(filepath.Join(run, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(run, "workspace"), "task.json", `{"task": "Find the price", "start_url": "http://x/"}`)
	write(t, filepath.Join(run, "workspace", "screenshots"), "step_0001.png", "png1")
	write(t, filepath.Join(run, "workspace", "final_runs", "run_1", "screenshots"), "a.png", "old")
	write(t, filepath.Join(run, "workspace", "final_runs", "run_2", "screenshots"), "b.png", "new")
	traj := map[string]any{"info": map[string]any{}, "messages": []map[string]any{
		{"role": "system", "content": "sys"},
		{"role": "user", "content": "task"},
		{"role": "assistant", "content": `{"thought": "look", "bash_command": "python3 explore.py", "done": false, "final_response": ""}`},
		{"role": "user", "content": "obs"},
		{"role": "assistant", "content": `{"thought": "finish", "bash_command": "", "done": true, "final_response": "$39.99"}`},
		{"role": "exit", "content": "$39.99"},
	}}
	b, _ := json.Marshal(traj)
	write(t, run, "trajectory.json", string(b))
	l, _ := results.OpenLog(filepath.Join(bench, ResultsFile))
	l.Append(Record{TaskID: "t1", Attempt: 1, ExitStatus: "Submitted", RunDir: "t1", FinalResponse: "$39.99", Passed: bp(true)})
	l.Append(Record{TaskID: "t2", Attempt: 1, Error: "endpoint down", ExitStatus: "ModelError"})
	l.Close()

	out := filepath.Join(t.TempDir(), "export")
	n, err := Export(bench, out, "online-mind2web")
	if err != nil || n != 1 {
		t.Fatalf("export: %d %v", n, err)
	}
	var got mind2webTask
	data, err := os.ReadFile(filepath.Join(out, "t1", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(data, &got)
	if got.Task != "Find the price" || got.FinalResponse != "$39.99" || len(got.Thoughts) != 2 || got.ActionHistory[0] != "python3 explore.py" || got.ActionHistory[1] != "done: $39.99" {
		t.Errorf("result.json = %+v", got)
	}
	if len(got.InputImagePaths) != 2 {
		t.Fatalf("images = %v", got.InputImagePaths)
	}
	last, _ := os.ReadFile(filepath.Join(out, "t1", got.InputImagePaths[1]))
	if string(last) != "new" {
		t.Errorf("second image is %q, want the newest final run's", last)
	}
	if _, err := Export(bench, out, "webarena"); err == nil {
		t.Error("unknown format accepted")
	}
}
