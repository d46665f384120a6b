// Package demo is wright's self-contained demonstration: a small bookshop
// site served on loopback, and recorded model replies (for the agent and for
// the judge) that solve a task on it the way a good model would. It lets
// anyone watch a whole run, gate included, with no API key.
package demo

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
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

// Serve serves the shop on a free loopback port until stop is called.
func Serve() (url string, stop func(), err error) {
	root, err := fs.Sub(site, "site")
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("demo site: %w", err)
	}
	srv := &http.Server{Handler: http.FileServerFS(root)}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/", func() { srv.Close() }, nil
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
	if err := writeJSONL(judgePath, JudgeReplies); err != nil {
		return "", "", err
	}
	return agentPath, judgePath, nil
}

// Config writes the recorded replies into dir and returns the config of a
// demo run: workspace mode, the agent and the judge answered from the
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
	layers = append([]string{"agent.output_schema=" + strconv.Quote(schema)}, layers...)
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
2. Search for "Go Programming" (critical point: the results list shows the book).
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
	{Thought: "Now the reusable script: it redoes the task from scratch, logs each step and saves a screenshot at each critical point into a new run folder.",
		BashCommand: `cat > final_script.py <<'EOF'
"""Find a book on the Quire Books shop and return its title, author and price, recording the run (plain Playwright)."""
import json
import os
import re
import sys

from playwright.sync_api import expect, sync_playwright

BOOK = "The Go Programming Language"


def start_url():
    with open(os.environ.get("TASK_JSON", "task.json")) as f:
        return json.load(f)["start_url"]


def next_run_dir(base="final_runs"):
    if os.environ.get("WRIGHT_RUN_DIR"):
        run_dir = os.environ["WRIGHT_RUN_DIR"]
    else:
        os.makedirs(base, exist_ok=True)
        taken = [int(m.group(1)) for d in os.listdir(base) if (m := re.fullmatch(r"run_(\d+)", d))]
        run_dir = os.path.join(base, "run_%d" % (max(taken, default=0) + 1))
    os.makedirs(os.path.join(run_dir, "screenshots"), exist_ok=True)
    return run_dir


class Record:
    """step <n> action: ... lines in final_script_log.txt, one screenshot per critical point."""

    def __init__(self, run_dir):
        self.run_dir, self.shots = run_dir, 0

    def step(self, n, text):
        line = "step %d action: %s" % (n, text)
        print(line, flush=True)
        with open(os.path.join(self.run_dir, "final_script_log.txt"), "a") as f:
            f.write(line + "\n")

    def screenshot(self, page, name):
        self.shots += 1
        page.screenshot(path=os.path.join(self.run_dir, "screenshots", "final_execution_%d_%s.png" % (self.shots, name)))


def main():
    run_dir = next_run_dir()
    log = Record(run_dir)
    with sync_playwright() as p:
        browser = p.chromium.launch()
        page = browser.new_page()
        page.goto(start_url())
        log.step(1, "open the shop's home page")
        log.screenshot(page, "home")

        page.get_by_label("Search books").fill("Go Programming")
        page.get_by_role("button", name="Search").click()
        results = page.locator("#results li")
        expect(results.first).to_be_visible()
        log.step(2, "search for 'Go Programming': %d result(s)" % results.count())
        log.screenshot(page, "results")

        page.get_by_role("link", name=BOOK).click()
        price = page.get_by_test_id("price")
        expect(price).to_be_visible()
        log.step(3, "open the page of %s" % BOOK)
        log.screenshot(page, "book")
        byline = page.locator("#book p").first.inner_text()  # "by <author> · <year>"
        result = {
            "title": page.locator("#book h2").inner_text().strip(),
            "author": byline.removeprefix("by ").split(" · ")[0].strip(),
            "price": float(price.inner_text().strip().lstrip("$")),
        }
        browser.close()
    with open(os.path.join(run_dir, "result.json"), "w") as f:
        json.dump(result, f, indent=2)
    log.step(4, "final result: " + json.dumps(result))
    print("run folder:", run_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
EOF
python3 final_script.py && ls final_runs/run_1/screenshots && cat final_runs/run_1/result.json`},
	{Thought: "The run is clean: three screenshots and the price in the log. I ask the judge for its verdict on run_1.",
		BashCommand: `wright reflect --config self_reflect_config.json --workspace-dir . --auto-latest-run final_runs --output final_runs/run_1/self_reflect_result.json; python3 -c "import json; r = json.load(open('final_runs/run_1/self_reflect_result.json')); print('predicted_label:', r['predicted_label'])"`},
	{Thought: "The judge signed off on run_1 (predicted_label 1). The result is in final_runs/run_1/result.json and matches the book page; I return it.",
		Done: true, FinalResponse: `{"title": "The Go Programming Language", "author": "Alan Donovan, Brian Kernighan", "price": 39.99}`},
}

// JudgeReply is one recorded answer of the judge. Match names the
// screenshot it was given for: the judge scores screenshots in parallel,
// so the replay hands each answer to the request that sends that file.
type JudgeReply struct {
	Content string `json:"content"`
	Match   string `json:"match,omitempty"`
}

// JudgeReplies are the judge's recorded answers: one per screenshot, then
// the verdict.
var JudgeReplies = []JudgeReply{
	{"Score: 5\nReasoning: The shop's home page is open with the search form visible.", "final_execution_1_home.png"},
	{"Score: 5\nReasoning: The results list shows \"The Go Programming Language\" with a price.", "final_execution_2_results.png"},
	{"Score: 5\nReasoning: The book page shows the title, the authors Alan Donovan and Brian Kernighan, and the price $39.99.", "final_execution_3_book.png"},
	{"The log shows the search and the book page; the result (title, authors Alan Donovan and Brian Kernighan, price 39.99) matches the book page in the last screenshot.\nStatus: success", ""},
}
