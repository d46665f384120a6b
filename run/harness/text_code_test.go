package harness

import (
	"strings"
	"testing"

	"wright/run/agent"
)

// Python shows as code under its name, bash after a `$ `, and a step's
// first output lines under its status.
func TestTextObserverShowsCodeAsCode(t *testing.T) {
	var b strings.Builder
	o := TextObserver(&b)
	o.Observe(agent.Event{Kind: agent.StepStarted, Step: 1, Thought: "open the page", Lang: "python", Command: "page.goto(url)\nprint(page.title())"})
	o.Observe(agent.Event{Kind: agent.StepEnded, Step: 1, Status: "success true", Output: "Quire Books"})
	o.Observe(agent.Event{Kind: agent.StepStarted, Step: 2, Thought: "list", Lang: "bash", Command: "ls"})
	o.Observe(agent.Event{Kind: agent.FormatError, Step: 3, Message: "no JSON object in the reply", Reply: "Sure! Let me think."})
	o.Observe(agent.Event{Kind: agent.RunEnded, Step: 1, Status: "Submitted", RunDir: "runs/x"})
	want := "step 1 · open the page\n  python:\n    page.goto(url)\n    print(page.title())\n  → success true · prompt 0 (0 cached, 0 uncached) + 0 out · run 0 tokens · $0.0000\n    Quire Books\n" +
		"step 2 · list\n  $ ls\n" +
		"step 3 · format error: no JSON object in the reply\n  model said: Sure! Let me think.\n" +
		"wright: Submitted after 1 step, 0 tokens (0 prompt, 0 cached), $0.0000 — runs/x\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
