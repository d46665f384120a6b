package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"wright/demo"
)

// workspaceTwins are the built-in demo tasks that also run in workspace
// mode: the model writes final_script.py (which launches its own browser
// through wright's Python client) from the live recording's code, runs it,
// and answers as the live run did. Those with page checks are scored by
// the bench's rerun of the script, as real workspace tasks are.
var workspaceTwins = []string{"demo-price", "demo-search-count", "demo-filter", "demo-about", "demo-page3"}

// writeSuite writes the scale suite into dir: every built-in demo task in
// live mode with its recorded replies, and the workspace twins. Each task
// names its replay file in its config, so the bench needs no --model.
func writeSuite(dir string) (string, int, error) {
	raw, err := demo.BenchSuite("demo")
	if err != nil {
		return "", 0, err
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var t map[string]any
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return "", 0, fmt.Errorf("demo suite: %w", err)
		}
		id, _ := t["task_id"].(string)
		rec, ok := demo.Recorded(id)
		if !ok {
			continue
		}
		line, err := liveTask(dir, t, rec)
		if err != nil {
			return "", 0, err
		}
		lines = append(lines, line)
		if contains(workspaceTwins, id) {
			if line, err = workspaceTask(dir, t, rec); err != nil {
				return "", 0, err
			}
			lines = append(lines, line)
		}
	}
	path := filepath.Join(dir, "suite.jsonl")
	return path, len(lines), os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func liveTask(dir string, t map[string]any, rec []byte) (string, error) {
	id := t["task_id"].(string)
	rp := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(rp, rec, 0o644); err != nil {
		return "", err
	}
	t["config"] = map[string]any{"model.name": "replay:" + rp}
	b, err := json.Marshal(t)
	return string(b), err
}

// workspaceTask is the workspace twin of the live task t: one bash step
// that writes and runs final_script.py (the live steps' code after a
// launch), then the live run's answer. The self-reflection gate is off:
// its judge has no recorded replies here.
func workspaceTask(dir string, t map[string]any, rec []byte) (string, error) {
	var code []string
	var answer string
	for _, line := range bytes.Split(rec, []byte("\n")) {
		var r struct {
			Code   string `json:"python_code"`
			Done   bool   `json:"done"`
			Answer string `json:"final_response"`
		}
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &r) != nil {
			continue
		}
		if r.Done {
			answer = r.Answer
			break
		}
		code = append(code, r.Code)
	}
	body := strings.ReplaceAll(strings.Join(code, "\n"), "\n", "\n    ")
	script := "import json, os\nfrom wright_browser import launch\ntask = json.load(open(os.environ['TASK_JSON']))\n" +
		"with launch() as browser:\n    page = browser.new_page()\n    " + body + "\n"
	step, _ := json.Marshal(map[string]any{"thought": "I write the script and run it.",
		"bash_command": "cat > final_script.py <<'PY'\n" + script + "PY\npython3 final_script.py", "done": false, "final_response": ""})
	done, _ := json.Marshal(map[string]any{"thought": "The script printed the answer.", "bash_command": "", "done": true, "final_response": answer})
	id := "ws-" + strings.TrimPrefix(t["task_id"].(string), "demo-")
	rp := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(rp, append(append(step, '\n'), append(done, '\n')...), 0o644); err != nil {
		return "", err
	}
	w := map[string]any{}
	for k, v := range t {
		w[k] = v
	}
	w["task_id"], w["mode"] = id, "workspace"
	w["config"] = map[string]any{"model.name": "replay:" + rp, "agent.require_self_reflection_success": false}
	b, err := json.Marshal(w)
	return string(b), err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
