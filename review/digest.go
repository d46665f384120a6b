package review

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Uncached is the part of the step's prompt the provider's cache did not
// serve.
func (s Step) Uncached() int { return max(s.Prompt-s.Usage.CachedTokens, 0) }

// Status is a step's outcome in a few words: "rc 0", "rc 2 (timed out)",
// "ok", "exception", "refused", "format error", "no result yet".
func (s Step) Status() string {
	for _, n := range s.Notes {
		switch n.Kind {
		case NoteFormatError:
			return "format error"
		case NoteGateRefusal:
			return "done refused"
		case NoteEnvError:
			return "environment error"
		}
	}
	switch {
	case s.Incomplete:
		return "no result yet"
	case s.Done:
		return "done"
	case s.Observation == nil:
		return ""
	}
	var st string
	if rc, ok := s.Observation["returncode"]; ok && rc != nil {
		st = fmt.Sprintf("rc %v", rc)
	} else if s.Observation["success"] == true {
		st = "ok"
	} else {
		st = "failed"
	}
	if s.Observation["timed_out"] == true {
		st += " (timed out)"
	}
	return st
}

// Failed reports a step whose action did not succeed.
func (s Step) Failed() bool {
	if s.Observation == nil {
		return s.Status() != "done" && s.Status() != "" && s.Status() != "no result yet"
	}
	return s.Observation["success"] == false || s.Observation["timed_out"] == true
}

// Output is what the step printed: the command's output in workspace mode;
// the Python output, the exception and the console in browser mode.
func (s Step) Output() string {
	o := s.Observation
	if o == nil {
		if s.Partial != "" {
			return "[output so far]\n" + s.Partial
		}
		return ""
	}
	var parts []string
	for _, k := range []string{"command_output", "python_output", "exception", "console_output", "restart_note", "screenshot_error"} {
		if v := strings.TrimRight(text(o[k]), "\n"); v != "" {
			if k == "exception" || k == "console_output" || k == "restart_note" || k == "screenshot_error" {
				v = "[" + strings.ReplaceAll(k, "_", " ") + "]\n" + v
			}
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, "\n")
}

// Page is the URL and title a browser-mode step ended on.
func (s Step) Page() string {
	u, t := text(s.Observation["url"]), text(s.Observation["title"])
	switch {
	case u == "":
		return t
	case t == "":
		return u
	}
	return t + " — " + u
}

// text renders an observation value as text: strings as they are, lists one
// item a line, anything else as JSON.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []any:
		var lines []string
		for _, e := range x {
			lines = append(lines, text(e))
		}
		return strings.Join(lines, "\n")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// head keeps the first n lines and at most m runes of s, and says what it
// left out.
func head(s string, n, m int) string {
	lines := strings.Split(s, "\n")
	cut := 0
	if len(lines) > n {
		cut = len(lines) - n
		lines = lines[:n]
	}
	out := strings.Join(lines, "\n")
	if r := []rune(out); len(r) > m {
		out = string(r[:m])
		if cut == 0 {
			cut = -1
		}
	}
	switch {
	case cut > 0:
		out += fmt.Sprintf("\n… (%d more lines)", cut)
	case cut < 0:
		out += " …"
	}
	return out
}

// Digest is `wright review --json`: the header and one entry per model call,
// small enough for a model to read.
type Digest struct {
	Header
	Dir         string        `json:"run_dir"`
	StepList    []DigestStep  `json:"steps"`
	Compactions []Compaction  `json:"compactions,omitempty"`
	FinalRuns   []DigestFinal `json:"final_runs,omitempty"`
	Errors      []string      `json:"runtime_errors,omitempty"`
	Missing     []string      `json:"missing,omitempty"`
}

// DigestStep is one model call in the digest.
type DigestStep struct {
	Step          int     `json:"step"`
	Thought       string  `json:"thought,omitempty"`
	Code          string  `json:"code,omitempty"`
	Done          bool    `json:"done,omitempty"`
	FinalResponse string  `json:"final_response,omitempty"`
	Status        string  `json:"status,omitempty"`
	Page          string  `json:"page,omitempty"`
	Output        string  `json:"output,omitempty"`
	Notes         []Note  `json:"notes,omitempty"`
	ElapsedMS     float64 `json:"elapsed_ms,omitempty"`
	PromptTokens  int     `json:"prompt_tokens"`
	// PromptEstimated: prompt_tokens is wright's estimate, the endpoint
	// having reported no usage for the call.
	PromptEstimated bool     `json:"prompt_estimated,omitempty"`
	CachedTokens    int      `json:"cached_tokens"`
	Uncached        int      `json:"uncached_tokens"`
	Screenshots     []string `json:"screenshots,omitempty"`
	Compacted       bool     `json:"compacted_after,omitempty"`
}

// DigestFinal is one final run in the digest.
type DigestFinal struct {
	Run         string   `json:"run"`
	Verdict     string   `json:"verdict,omitempty"`
	Screenshots []string `json:"screenshots"`
	Scores      []int    `json:"scores,omitempty"`
	LogTail     string   `json:"log_tail,omitempty"`
	Trace       string   `json:"trace,omitempty"` // its Playwright trace, relative to the run
}

// Digest builds the digest of a run; o.Step and o.Grep keep some steps.
func (r *Run) Digest(o TextOptions) Digest {
	d := Digest{Header: r.Header, Dir: r.Dir, Compactions: r.Compactions, Missing: r.Missing, StepList: []DigestStep{}}
	for _, s := range r.Steps {
		if o.Step > 0 && s.N != o.Step || o.Grep != "" && !s.matches(o.Grep) {
			continue
		}
		ds := DigestStep{Step: s.N, Thought: s.Thought, Code: s.Code, Done: s.Done, FinalResponse: s.FinalResponse,
			Status: s.Status(), Page: s.Page(), Output: head(s.Output(), 15, 1200), Notes: s.Notes, ElapsedMS: s.Elapsed,
			PromptTokens: s.Prompt, PromptEstimated: s.PromptEstimated, CachedTokens: s.Usage.CachedTokens, Uncached: s.Uncached(), Screenshots: s.Screenshots, Compacted: s.Compacted}
		if s.ShowRaw() {
			ds.Output = head(s.Raw, 15, 1200)
		}
		d.StepList = append(d.StepList, ds)
	}
	for _, fr := range r.FinalRuns {
		df := DigestFinal{Run: fmt.Sprintf("run_%d", fr.N), Verdict: fr.Verdict.Label(), Screenshots: fr.Screenshots, LogTail: tail(fr.Log, 10), Trace: fr.Trace}
		for _, s := range fr.Screenshots {
			if rec := fr.Verdict.Record(s); rec != nil {
				df.Scores = append(df.Scores, rec.Score)
			}
		}
		d.FinalRuns = append(d.FinalRuns, df)
	}
	for _, e := range r.Errors {
		d.Errors = append(d.Errors, fmt.Sprintf("step %d %s: %s", e.Step, e.Kind, firstLine(e.Error, 300)))
	}
	return d
}

// WriteJSON writes the digest as indented JSON.
func (r *Run) WriteJSON(w io.Writer) error { return r.WriteDigest(w, TextOptions{}) }

// WriteDigest writes the digest of the steps o keeps as indented JSON.
func (r *Run) WriteDigest(w io.Writer, o TextOptions) error {
	if o.Step > 0 {
		found := false
		for _, s := range r.Steps {
			found = found || s.N == o.Step
		}
		if !found {
			return fmt.Errorf("review: the run has no step %d (it has %d)", o.Step, len(r.Steps))
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r.Digest(o))
}

// tail keeps the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// sortedKeys is for stable output of maps.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
