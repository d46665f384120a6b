package runs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"wright/model"
)

// Step is one step as debug/steps.md and debug/steps/step_NNNN.json show it.
type Step struct {
	Step    int    `json:"step"`
	Thought string `json:"thought,omitempty"`
	Field   string `json:"field,omitempty"`
	// Lang is the code's fence language in steps.md ("bash", "python");
	// it is not part of the step's JSON.
	Lang          string         `json:"-"`
	Code          string         `json:"code,omitempty"`
	Done          bool           `json:"done,omitempty"`
	FinalResponse string         `json:"final_response,omitempty"`
	Observation   map[string]any `json:"observation,omitempty"`
	// Notes are what the harness said instead of (or besides) an
	// observation: a format error, a gate refusal, a notice.
	Notes        []string    `json:"notes,omitempty"`
	Usage        model.Usage `json:"usage"`
	PromptTokens int         `json:"prompt_tokens"`
	Total        model.Usage `json:"total_usage"`
}

// snapshotKeys are left out of debug files: a person reviewing a run wants
// what happened, not 20k characters of page outline per step.
var snapshotKeys = []string{"aria_snapshot"}

// WriteStep appends a step to debug/steps.md and writes its JSON file.
func (r *Run) WriteStep(s Step) error {
	obs := make(map[string]any, len(s.Observation))
	for k, v := range s.Observation {
		obs[k] = v
	}
	for _, k := range snapshotKeys {
		if _, ok := obs[k]; ok {
			obs[k] = "[omitted in debug files]"
		}
	}
	s.Observation = obs
	if err := r.WriteJSON(filepath.Join("debug", "steps", fmt.Sprintf("step_%04d.json", s.Step)), s); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Step %d\n\n", s.Step)
	if s.Thought != "" {
		fmt.Fprintf(&b, "**Thought.** %s\n\n", s.Thought)
	}
	if s.Code != "" {
		fmt.Fprintf(&b, "%s\n%s\n%s\n\n", fence(s.Code, s.Lang), s.Code, fence(s.Code, ""))
	}
	if s.Done {
		fmt.Fprintf(&b, "**Done.** %s\n\n", s.FinalResponse)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "> %s\n\n", strings.ReplaceAll(strings.TrimSpace(n), "\n", "\n> "))
	}
	if len(s.Observation) > 0 {
		ob, _ := json.MarshalIndent(s.Observation, "", "  ")
		fmt.Fprintf(&b, "**Observation.**\n\n%s\n%s\n%s\n\n", fence(string(ob), "json"), ob, fence(string(ob), ""))
	}
	fmt.Fprintf(&b, "*Prompt: %d tokens (%d cached, %d uncached). Usage: %d prompt + %d completion tokens, $%.4f; run total %d tokens (%d cached), $%.4f.*\n\n",
		s.PromptTokens, s.Usage.CachedTokens, s.Usage.Uncached(), s.Usage.PromptTokens, s.Usage.CompletionTokens, s.Usage.Cost,
		s.Total.TotalTokens, s.Total.CachedTokens, s.Total.Cost)
	return r.appendMD(b.String())
}

// Note appends a line of its own to debug/steps.md (compactions, the exit).
func (r *Run) Note(text string) error { return r.appendMD("**" + text + "**\n\n") }

func (r *Run) appendMD(text string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(r.Dir, "debug", "steps.md"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open steps.md: %w", err)
	}
	defer f.Close()
	_, err = f.Write(r.redact([]byte(text)))
	return err
}

// fence returns a code fence longer than any run of backticks in text, so
// code that itself holds ``` cannot break the Markdown.
func fence(text, lang string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1)) + lang
}
