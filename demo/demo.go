// Package demo is wright's self-contained demonstration: a small bookshop
// site served on loopback, and recorded model replies (for the agent and for
// the judge) that solve a task on it the way a good model would. It lets
// anyone watch a whole run, gate included, with no API key.
package demo

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"wright/model"
	"wright/run/config"
)

//go:embed site
var site embed.FS

// TaskID is the demo task's id.
const TaskID = "demo_bookshop"

// Task is the demo's task.
const Task = `On the Quire Books shop, find the book "The Go Programming Language" and report its title, author and price.`

// Schema is the demo's output schema: the run must return the book as
// structured data, not as a sentence.
const Schema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "Book",
  "type": "object",
  "properties": {
    "title": {"type": "string", "minLength": 1},
    "author": {"type": "string", "minLength": 1},
    "price": {"type": "number", "minimum": 0, "description": "in US dollars"}
  },
  "required": ["title", "author", "price"],
  "additionalProperties": false
}`

// WriteSchema writes Schema into dir and returns its path.
func WriteSchema(dir string) (string, error) {
	p := filepath.Join(dir, "output_schema.json")
	return p, os.WriteFile(p, []byte(Schema+"\n"), 0o644)
}

// Serve serves the shop (version 1) on a free loopback port until stop is
// called.
func Serve() (url string, stop func(), err error) {
	s, err := ServeShop("127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	return s.URL, func() { s.Close() }, nil
}

// Action is one recorded agent reply.
type Action struct {
	Thought       string `json:"thought"`
	BashCommand   string `json:"bash_command"`
	Done          bool   `json:"done"`
	FinalResponse string `json:"final_response"`
}

// WriteReplays writes the agent's and the judge's recorded replies into dir
// and returns their paths.
func WriteReplays(dir string) (agentPath, judgePath string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	agentPath = filepath.Join(dir, "agent.jsonl")
	judgePath = filepath.Join(dir, "judge.jsonl")
	if err := writeJSONL(agentPath, Script); err != nil {
		return "", "", err
	}
	judge, err := JudgeRecording()
	if err != nil {
		return "", "", err
	}
	if err := writeJSONL(judgePath, judge); err != nil {
		return "", "", err
	}
	return agentPath, judgePath, nil
}

// Config writes the recorded replies into dir and returns the config of a
// demo run: workspace mode, a crafted script (crafted_cli: a tool whose
// --book is the title), the agent and the judge answered from the
// recordings, then the given layers (as -c takes them) on top.
func Config(dir string, layers ...string) (*config.Config, error) {
	agentReplay, judgeReplay, err := WriteReplays(dir)
	if err != nil {
		return nil, fmt.Errorf("demo replies: %w", err)
	}
	// The demo returns structured data; a later layer may replace the schema.
	schema, err := WriteSchema(dir)
	if err != nil {
		return nil, fmt.Errorf("demo schema: %w", err)
	}
	layers = append([]string{"crafted_cli", "agent.output_schema=" + strconv.Quote(schema)}, layers...)
	return config.Load(layers, map[string]any{
		"model.name": model.ReplayPrefix + agentReplay,
		"gate.model": map[string]any{"name": model.ReplayPrefix + judgeReplay},
	})
}

func writeJSONL[T any](path string, items []T) error {
	var b strings.Builder
	for _, it := range items {
		line, err := json.Marshal(it)
		if err != nil {
			return err
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// Script is the agent's recorded replies, in order; the last one is done.
var Script = []Action{
	{Thought: "First I look at the start page: its title and an outline of what can be clicked or typed into.",
		BashCommand: `cat > explore_1.py <<'EOF'
import json, os
from playwright.sync_api import sync_playwright

task = json.load(open(os.environ["TASK_JSON"]))
with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(task["start_url"])
    print("title:", page.title())
    print(page.aria_snapshot())  # wright's extra: the page as an outline, for exploring
    page.screenshot(path="screenshots/explore_home.png")
    browser.close()
EOF
python3 explore_1.py`},
	{Thought: "There is a search box labelled 'Search books' and a Search button. I try a search and look at the results; they may load late, so I wait for the list.",
		BashCommand: `cat > explore_2.py <<'EOF'
import json, os
from playwright.sync_api import sync_playwright, expect

task = json.load(open(os.environ["TASK_JSON"]))
with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(task["start_url"])
    page.get_by_label("Search books").fill("Go Programming")
    page.get_by_role("button", name="Search").click()
    expect(page.locator("#results li").first).to_be_visible()
    print("url:", page.url)
    print(page.locator("#results li").all_inner_texts())
    browser.close()
EOF
python3 explore_2.py`},
	{Thought: "The search finds the book and links to its page. I write the plan with its critical points, and the judge's prompts.",
		BashCommand: `cat > plan.md <<'EOF'
# Plan
1. Open the shop's home page.
2. Search for the title (critical point: the results list shows the book).
3. Open "The Go Programming Language" (critical point: the book page shows its price).
4. Read the title, author and price; write them to result.json and report them.
EOF
cat > self_reflect_config.json <<'EOF'
{
  "image_judge_system_prompt": "You check screenshots of a browser automation run for a bookshop task.",
  "image_judge_user_prompt": "Task: find the book \"The Go Programming Language\" on Quire Books and report its title, author and price. Does this screenshot show a correct step towards that? Answer with 'Score: N' (1-5) and 'Reasoning: ...'.",
  "final_verdict_system_prompt": "You decide whether a browser automation run achieved its task.",
  "final_verdict_user_prompt": "Task: report the title, author and price of \"The Go Programming Language\".\n\nAction log:\n{action_history_log}\n\nScreenshot assessments:\n{image_reasonings}\n\nDid the run find the book and report its right title, author and price? End with 'Status: success' or 'Status: failure'."
}
EOF
ls`},
	{Thought: "Now the reusable script, as a command-line tool: --book is the title to look up (its default redoes this task), run() returns the result, and each run logs its steps and saves a screenshot at each critical point into a new run folder.",
		BashCommand: "cat > final_script.py <<'EOF'\n" + BookScript(1) + "EOF\n" +
			"python3 final_script.py --help && python3 final_script.py && ls final_runs/run_1/screenshots && cat final_runs/run_1/result.json"},
	{Thought: "The run is clean: three screenshots and the price in the log. I ask the judge for its verdict on run_1.",
		BashCommand: `wright reflect --config self_reflect_config.json --workspace-dir . --auto-latest-run final_runs --output final_runs/run_1/self_reflect_result.json; python3 -c "import json; r = json.load(open('final_runs/run_1/self_reflect_result.json')); print('predicted_label:', r['predicted_label'])"`},
	{Thought: "The judge signed off on run_1 (predicted_label 1). The result is in final_runs/run_1/result.json and matches the book page; I return it.",
		Done: true, FinalResponse: `{"title": "The Go Programming Language", "author": "Alan Donovan, Brian Kernighan", "price": 39.99}`},
}
