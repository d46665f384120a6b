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

// TourName is the library name the tour saves the book script under.
const TourName = "demo-book"

// TourOptions say where the tour works and which model it names.
type TourOptions struct {
	// Dir holds the tour's runs, its library and the recording.
	Dir string
	// ShopURL is the served shop's address.
	ShopURL string
	// Schema is the path of the demo's output schema.
	Schema string
	// Recording is the replay file of WriteTourReplies; Model, when set,
	// is a real model that takes its place for the run, the judge and the
	// heal.
	Recording, Model string
}

// A TourStep is one command of the tour: wright's arguments, the version
// of the shop it runs on, and the exit code the step ends with when the
// script's life goes as the tour tells it.
type TourStep struct {
	Title    string
	Version  int
	Args     []string
	WantExit int
}

// Tour is the life of a script in six commands: make and save it, rerun it
// with two other titles, see the check call it broken once the shop is
// redesigned, heal it, and rerun the healed version on the new shop.
func Tour(o TourOptions) []TourStep {
	model := o.Model
	if model == "" {
		model = "replay:" + o.Recording
	}
	lib := []string{"--library", filepath.Join(o.Dir, "library")}
	judge := []string{"-c", "gate.model.name=" + model}
	with := func(args ...string) []string {
		out := append(append([]string{}, args...), lib...)
		return append(out, judge...)
	}
	return []TourStep{
		{Title: "make the script, verify it and save it", Version: 1, Args: with(
			"run", "-t", Task, "--start-url", o.ShopURL, "-c", "crafted_cli", "--output-schema", o.Schema,
			"--model", model, "-o", filepath.Join(o.Dir, "runs"), "--save-as", TourName)},
		{Title: "rerun it with another title", Version: 1, Args: with(
			"rerun", TourName, "--param", "book="+OtherBooks[0].Title)},
		{Title: "rerun it with a third title", Version: 1, Args: with(
			"rerun", TourName, "--param", "book="+OtherBooks[1].Title)},
		{Title: "the shop is redesigned (version 2): the check finds the script broken", Version: 2, WantExit: 1, Args: with(
			"scripts", "check", TourName)},
		{Title: "heal it: an agent run repairs the script, verified on a fresh run, saved as version 2", Version: 2, Args: with(
			"heal", TourName, "--model", model)},
		{Title: "rerun the healed script with another title on the new shop", Version: 2, Args: with(
			"rerun", TourName, "--param", "book="+OtherBooks[0].Title)},
	}
}

// Command is the step as a shell line a user can paste, with the binary
// named wright.
func (s TourStep) Command() string {
	var b strings.Builder
	b.WriteString("wright")
	for _, a := range s.Args {
		b.WriteByte(' ')
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

// shellQuote quotes a for a POSIX shell when it needs it.
func shellQuote(a string) string {
	if a != "" && strings.IndexFunc(a, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@+", r))
	}) < 0 {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
