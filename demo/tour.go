package demo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The tour (`wright demo scripts`) takes a script through its life with
// no key: made and saved, rerun with other titles, broken by the shop's
// redesign, healed, rerun. Every command it runs names one recording, with
// --model replay:<file>, as the model of the run, of the reruns' judge and
// of the heal; the file holds them all, each keyed so that it answers only
// its own requests:
//
//   - the heal's steps go to requests that hold HealMatch, which only a
//     heal's brief names;
//   - the judge's answers are keyed to the screenshots they describe;
//   - the run's steps (Script) answer the rest, in order.

// HealMatch is text of a heal's task (library/rerun's brief names the
// file it seeds), so the heal's recorded steps answer the heal alone.
const HealMatch = "heal/reason.txt"

// healEdit is how the recorded heal repairs the script: the two locators
// the redesign changed, and nothing else.
var healEdit = [][2]string{
	{`get_by_label("Search books")`, `get_by_label("Find a book")`},
	{`name="Search", exact=True`, `name="Go", exact=True`},
}

// HealScript is the recorded model's repair of the script on version 2 of
// the shop, in order.
var HealScript = []Action{
	{Thought: "This is a repair: the saved script stopped working. I read why its last run failed, then look at the shop's home page as it is now.",
		BashCommand: `cat heal/reason.txt; tail -n 3 heal/failed_run/final_script_log.txt
cat > look.py <<'EOF'
import json, os
from playwright.sync_api import sync_playwright

task = json.load(open(os.environ["TASK_JSON"]))
with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(task["start_url"])
    print(page.aria_snapshot())
    browser.close()
EOF
python3 look.py`},
	{Thought: "The shop was redesigned: the search is now in the header, its field labelled 'Find a book' and its button 'Go'. I change those two locators and nothing else (the interface stays: --book, the same result), then run the script from scratch.",
		BashCommand: healCommand()},
	{Thought: "The repaired script ran cleanly into final_runs/run_1. I ask the judge for its verdict on that run.",
		BashCommand: `wright reflect --workspace-dir . --auto-latest-run final_runs; python3 -c "import json; r = json.load(open('final_runs/run_1/self_reflect_result.json')); print('predicted_label:', r['predicted_label'])"`},
	{Thought: "The judge signed off on the repaired script's run; I return its result.",
		Done: true, FinalResponse: DefaultBook.Result()},
}

func healCommand() string {
	var b strings.Builder
	b.WriteString("python3 - <<'EOF'\nsrc = open(\"final_script.py\").read()\nfixed = src")
	for _, e := range healEdit {
		fmt.Fprintf(&b, ".replace(%s, %s)", pyString(e[0]), pyString(e[1]))
	}
	b.WriteString("\nassert fixed != src, \"the locators to change are not in final_script.py\"\nopen(\"final_script.py\", \"w\").write(fixed)\nEOF\n")
	b.WriteString("python3 final_script.py && cat final_runs/run_1/result.json")
	return b.String()
}

// pyString quotes s for Python with single quotes (s holds double ones).
func pyString(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// Healed is what the recorded heal makes of script.
func Healed(script string) string {
	for _, e := range healEdit {
		script = strings.ReplaceAll(script, e[0], e[1])
	}
	return script
}

// matchedReply is a recorded reply that answers requests holding match.
type matchedReply struct {
	Content string `json:"content"`
	Match   string `json:"match"`
}

// WriteTourReplies writes the tour's recording (the run's and the heal's
// steps, the judge's answers) into dir and returns its path.
func WriteTourReplies(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("tour recording: %w", err)
	}
	var lines []any
	for _, a := range HealScript {
		text, err := json.Marshal(a)
		if err != nil {
			return "", err
		}
		lines = append(lines, matchedReply{Content: string(text), Match: HealMatch})
	}
	for _, a := range Script {
		lines = append(lines, a)
	}
	judge, err := JudgeRecording()
	if err != nil {
		return "", err
	}
	for _, j := range judge {
		lines = append(lines, j)
	}
	path := filepath.Join(dir, "tour.jsonl")
	if err := writeJSONL(path, lines); err != nil {
		return "", fmt.Errorf("tour recording: %w", err)
	}
	return path, nil
}
