package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"wright/bench/results"
)

// ExportFormats lists the layouts Export writes.
var ExportFormats = []string{"online-mind2web"}

// mind2webTask is the result.json the Online-Mind2Web judges read, one per
// task folder beside a trajectory/ folder of screenshots.
type mind2webTask struct {
	TaskID          string   `json:"task_id"`
	Task            string   `json:"task"`
	ActionHistory   []string `json:"action_history"`
	Thoughts        []string `json:"thoughts"`
	FinalResponse   string   `json:"final_result_response"`
	InputImagePaths []string `json:"input_image_paths"`
}

// Export writes the bench in dir in another tool's layout under out, so a
// benchmark's own judge can score wright's runs. It returns how many tasks
// were written.
func Export(dir, out, format string) (int, error) {
	if format != "online-mind2web" {
		return 0, fmt.Errorf("export: unknown format %q (known: %s)", format, strings.Join(ExportFormats, ", "))
	}
	recs, _, err := results.Read(filepath.Join(dir, ResultsFile))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range results.Latest(recs) {
		if r.Error != "" || r.RunDir == "" {
			continue
		}
		runDir := r.RunDir
		if !filepath.IsAbs(runDir) {
			runDir = filepath.Join(dir, runDir)
		}
		name := r.TaskID
		if r.Attempt > 1 {
			name = fmt.Sprintf("%s_attempt_%d", r.TaskID, r.Attempt)
		}
		if err := exportMind2Web(runDir, filepath.Join(out, name), r); err != nil {
			return n, fmt.Errorf("export %s: %w", name, err)
		}
		n++
	}
	return n, nil
}

func exportMind2Web(runDir, dest string, r Record) error {
	task, thoughts, actions, err := readTrajectory(runDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dest, "trajectory"), 0o755); err != nil {
		return err
	}
	m := mind2webTask{TaskID: r.TaskID, Task: task, ActionHistory: actions, Thoughts: thoughts, FinalResponse: r.FinalResponse}
	for i, src := range runScreenshots(runDir) {
		rel := filepath.Join("trajectory", "screenshot_"+strconv.Itoa(i)+".png")
		if err := copyFile(src, filepath.Join(dest, rel)); err != nil {
			return err
		}
		m.InputImagePaths = append(m.InputImagePaths, rel)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dest, "result.json"), append(b, '\n'), 0o644)
}

// readTrajectory pulls the task text and, per model turn, the thought and
// the action out of a run's trajectory.json.
func readTrajectory(runDir string) (task string, thoughts, actions []string, err error) {
	b, err := os.ReadFile(filepath.Join(runDir, "trajectory.json"))
	if err != nil {
		return "", nil, nil, err
	}
	var t struct {
		Info     map[string]any `json:"info"`
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return "", nil, nil, fmt.Errorf("trajectory.json: %w", err)
	}
	if tj, err := os.ReadFile(filepath.Join(runDir, "workspace", "task.json")); err == nil {
		var tk struct {
			Task string `json:"task"`
		}
		if json.Unmarshal(tj, &tk) == nil {
			task = tk.Task
		}
	}
	for _, m := range t.Messages {
		s, ok := m.Content.(string)
		if m.Role != "assistant" || !ok {
			continue
		}
		var act map[string]any
		if json.Unmarshal([]byte(s), &act) != nil {
			continue
		}
		thought, _ := act["thought"].(string)
		thoughts = append(thoughts, thought)
		code := ""
		for _, k := range []string{"bash_command", "python_code"} {
			if v, ok := act[k].(string); ok && v != "" {
				code = v
			}
		}
		if done, _ := act["done"].(bool); done && code == "" {
			code = "done: " + fmt.Sprint(act["final_response"])
		}
		actions = append(actions, code)
	}
	return task, thoughts, actions, nil
}

// runScreenshots lists a run's screenshots in order: the live page's per
// step, then those of the newest final run.
func runScreenshots(runDir string) []string {
	ws := filepath.Join(runDir, "workspace")
	shots, _ := filepath.Glob(filepath.Join(ws, "screenshots", "*.png"))
	sort.Strings(shots)
	runs, _ := filepath.Glob(filepath.Join(ws, "final_runs", "run_*"))
	best, bestN := "", -1
	for _, r := range runs {
		if n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(r), "run_")); err == nil && n > bestN {
			best, bestN = r, n
		}
	}
	if best != "" {
		final, _ := filepath.Glob(filepath.Join(best, "screenshots", "*.png"))
		sort.Strings(final)
		shots = append(shots, final...)
	}
	return shots
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
