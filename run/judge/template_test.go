package judge

import (
	"strings"
	"testing"
)

func TestFillPrompt(t *testing.T) {
	vars := map[string]string{"task": "buy milk", "image_reasonings": "r1", "log": "a {b} c"}
	cases := []struct {
		in, want, errPart string
	}{
		{in: "Task: {task}", want: "Task: buy milk"},
		{in: `Answer as {{"ok": true}} for {task}`, want: `Answer as {"ok": true} for buy milk`},
		{in: "{{task}}", want: "{task}"},
		{in: "{{{task}}}", want: "{buy milk}"},
		{in: "values are not re-read: {log}", want: "values are not re-read: a {b} c"},
		{in: "no braces", want: "no braces"},
		{in: "{image_reasonings}{task}", want: "r1buy milk"},
		{in: "see {tsk}", errPart: "unknown placeholder {tsk}; known: {image_reasonings}, {log}, {task}"},
		{in: `JSON {"a": 1}`, errPart: `does not start a placeholder`},
		{in: "open { brace", errPart: "unmatched '{'"},
		{in: "a { b } c", errPart: "does not start a placeholder"},
		{in: "dangling {", errPart: "unmatched '{'"},
		{in: "close } brace", errPart: "unmatched '}'"},
		{in: "{}", errPart: "does not start a placeholder"},
	}
	for _, c := range cases {
		got, err := FillPrompt(c.in, vars)
		if c.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), c.errPart) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.errPart)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// The built-in prompts use only the placeholders their stage fills.
func TestDefaultPromptsValid(t *testing.T) {
	if err := DefaultPrompts().validate(); err != nil {
		t.Fatal(err)
	}
	p := DefaultPrompts()
	for _, s := range []string{p.ImageJudgeUser} {
		if !strings.Contains(s, "Score:") || !strings.Contains(s, "Reasoning:") {
			t.Errorf("stage 1 prompt must ask for Score: and Reasoning:")
		}
	}
	if !strings.Contains(p.FinalVerdictUser, "Status: success") || !strings.Contains(p.FinalVerdictUser, "Status: failure") ||
		!strings.Contains(p.FinalVerdictUser, "{action_history_log}") || !strings.Contains(p.FinalVerdictUser, "{image_reasonings}") {
		t.Errorf("stage 2 prompt must carry the log, the reasonings and the Status lines")
	}
}
