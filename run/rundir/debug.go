package rundir

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
		b.WriteString("**Observation.**\n\n")
		b.WriteString(observationText(s.Observation))
	}
	fmt.Fprintf(&b, "*Prompt: %d tokens (%d cached, %d uncached). Usage: %d prompt + %d completion tokens, $%.4f; run total %d tokens (%d cached), $%.4f.*\n\n",
		s.PromptTokens, s.Usage.CachedTokens, s.Usage.Uncached(), s.Usage.PromptTokens, s.Usage.CompletionTokens, s.Usage.Cost,
		s.Total.TotalTokens, s.Total.CachedTokens, s.Total.Cost)
	return r.appendMD(b.String())
}

// observationText shows an observation as a person reads it (as `wright
// review --plain` does): the short values as a list, each text that spans
// lines (the output, an exception) in a block of its own, unescaped.
func observationText(obs map[string]any) string {
	keys := make([]string, 0, len(obs))
	for k := range obs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var short, long strings.Builder
	for _, k := range keys {
		v := obs[k]
		if isSnapshotKey(k) {
			fmt.Fprintf(&short, "- %s: left out of the debug files (the trajectory holds the recent ones)\n", k)
			continue
		}
		text, ok := v.(string)
		if !ok {
			js, _ := json.Marshal(v)
			text = string(js)
		}
		if strings.Contains(text, "\n") {
			fmt.Fprintf(&long, "%s:\n\n%s\n%s\n%s\n\n", k, fence(text, "text"), strings.TrimRight(text, "\n"), fence(text, ""))
			continue
		}
		if text == "" {
			text = `""`
		}
		fmt.Fprintf(&short, "- %s: %s\n", k, text)
	}
	out := short.String()
	if out != "" {
		out += "\n"
	}
	return out + long.String()
}

func isSnapshotKey(k string) bool {
	for _, s := range snapshotKeys {
		if k == s {
			return true
		}
	}
	return false
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
