// Package review reads what a run or a bench left on disk and renders it for
// a person (terminal text, one self-contained HTML page, a small web server)
// or for a program (a compact JSON digest). It only reads: a run still in
// progress, or one that crashed, is shown as far as its files go, and what is
// missing is said.
package review

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Run is one run directory, read.
type Run struct {
	Dir    string
	Header Header
	Steps  []Step
	// Compactions are the history rewrites, from compactions.jsonl.
	Compactions []Compaction
	// Errors are runtime_errors.jsonl's lines.
	Errors    []RuntimeError
	FinalRuns []FinalRun
	// Plan and FinalScript are workspace/plan.md and final_script.py.
	Plan, FinalScript string
	// Missing says which files a finished run would have and this one has not.
	Missing []string
}

// Header is what a person wants to know first about a run.
type Header struct {
	TaskID        string `json:"task_id"`
	Task          string `json:"task"`
	StartURL      string `json:"start_url,omitempty"`
	Mode          string `json:"mode,omitempty"`
	Model         string `json:"model,omitempty"`
	ExitStatus    string `json:"exit_status"`
	FinalResponse string `json:"final_response,omitempty"`
	Message       string `json:"message,omitempty"`
	Steps         int    `json:"step_count"`
	Tokens        int    `json:"tokens"`
	PromptTokens  int    `json:"prompt_tokens"`
	CachedTokens  int    `json:"cached_tokens"` // of the prompt tokens, those the provider's cache served
	// EstimatedPrompt is wright's estimate of the prompts of the calls
	// whose endpoint reported no usage (recorded replies, some local
	// servers), added up: result.json's estimated_prompt_tokens, or the
	// estimated steps' prompts. Tokens and PromptTokens keep what the
	// endpoint reported; a person is shown this figure marked "est.".
	EstimatedPrompt int     `json:"estimated_prompt_tokens,omitempty"`
	Cost            float64 `json:"cost"`
	Seconds         float64 `json:"seconds"`
	StartedAt       string  `json:"started_at,omitempty"`
	// GateVerdict is the judge's verdict on the newest judged final run:
	// "success", "failure", "unreadable" or "" (nothing judged).
	GateVerdict string `json:"gate_verdict,omitempty"`
	// GateLabel is result.json's gate_label when the run recorded one: a
	// number, as there (1 success, 0 failure); GateLabelText says it in
	// words for a person.
	GateLabel *int `json:"gate_label,omitempty"`
	// JudgedRun is the final run the verdict is about (run_N).
	JudgedRun string `json:"judged_run,omitempty"`
	// Finished is false while a run goes on, or after it crashed: there is
	// no result.json.
	Finished bool `json:"finished"`
}

// Step is one model call and what came of it.
type Step struct {
	N             int            `json:"step"`
	Thought       string         `json:"thought,omitempty"`
	Field         string         `json:"field,omitempty"`
	Code          string         `json:"code,omitempty"`
	Done          bool           `json:"done,omitempty"`
	FinalResponse string         `json:"final_response,omitempty"`
	Observation   map[string]any `json:"-"`
	// Notes are the harness's words besides the observation (format
	// errors, gate refusals, environment errors) and the notices shown to
	// the model after it.
	Notes  []Note `json:"notes,omitempty"`
	Usage  Usage  `json:"usage"`
	Prompt int    `json:"prompt_tokens"`
	// PromptEstimated says Prompt is wright's estimate: the endpoint
	// reported no usage for the call.
	PromptEstimated bool    `json:"prompt_estimated,omitempty"`
	Elapsed         float64 `json:"elapsed_ms,omitempty"`
	// Screenshots are the step's screenshot in live mode, and the ones the
	// step's code saved in workspace mode; relative to the run directory.
	Screenshots []string `json:"screenshots,omitempty"`
	// Compacted is set when the history was compacted right after the step.
	Compacted bool `json:"compacted,omitempty"`
	// Incomplete marks a step whose model call is recorded but whose
	// result is not (the run is still in it, or crashed in it).
	Incomplete bool `json:"incomplete,omitempty"`
	// Raw is the model's reply, for steps that never became an action.
	Raw string `json:"-"`
	// Partial is what an incomplete step's command had printed so far
	// (workspace/logs/step_NNNN.log).
	Partial string `json:"-"`
}

// Note kinds.
const (
	NoteFormatError = "format_error"
	NoteGateRefusal = "gate_refusal"
	NoteEnvError    = "environment_error"
	NoteNotice      = "notice"
	NoteOther       = "note"
)

// Note is one thing the harness said about a step.
type Note struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Compaction is one line of compactions.jsonl.
type Compaction struct {
	Step         int    `json:"step"`
	Summary      string `json:"summary"`
	TokensBefore int    `json:"tokens_before"`
	TokensAfter  int    `json:"tokens_after"`
}

// RuntimeError is one line of runtime_errors.jsonl.
type RuntimeError struct {
	Time  string `json:"time"`
	Step  int    `json:"step"`
	Kind  string `json:"kind"`
	Error string `json:"error"`
}

// FinalRun is one workspace/final_runs/run_N folder.
type FinalRun struct {
	N int
	// Dir is relative to the run directory.
	Dir         string
	Log         string
	Script      string
	Screenshots []string // relative to the run directory
	// Videos are the run's video/*.webm files (gate.video), relative to
	// the run directory: regular files in the folder the gate gave the
	// driver, never a link.
	Videos  []string
	Verdict *Verdict
	// Trace is the run's Playwright trace (gate.trace), relative to the run
	// directory; "" when it has none.
	Trace string
}

// Verdict is the part of self_reflect_result.json a reader wants.
type Verdict struct {
	PredictedLabel *int          `json:"predicted_label"`
	FinalResponse  string        `json:"final_response"`
	ImageRecords   []ImageRecord `json:"image_records"`
	Model          string        `json:"model"`
}

// ImageRecord is the judge's score and reasoning for one screenshot.
type ImageRecord struct {
	ImagePath string `json:"image_path"`
	Score     int    `json:"Score"`
	Reasoning string `json:"Reasoning"`
}

// Label says the verdict in a word.
func (v *Verdict) Label() string {
	switch {
	case v == nil:
		return ""
	case v.PredictedLabel == nil:
		return "unreadable"
	case *v.PredictedLabel == 1:
		return "success"
	}
	return "failure"
}

// Record returns the judge's record for a screenshot (by base name), if any.
func (v *Verdict) Record(shot string) *ImageRecord {
	if v == nil {
		return nil
	}
	for i := range v.ImageRecords {
		if filepath.Base(v.ImageRecords[i].ImagePath) == filepath.Base(shot) {
			return &v.ImageRecords[i]
		}
	}
	return nil
}

// IsRunDir reports whether dir looks like a run directory.
func IsRunDir(dir string) bool {
	for _, f := range []string{"trajectory.json", "result.json", "debug", "workspace"} {
		if _, err := Stat(dir, f); err == nil {
			return true
		}
	}
	return false
}

// LoadRun reads a run directory. Only a directory that is not a run at all
// is an error; damaged or missing files are listed in Run.Missing.
func LoadRun(dir string) (*Run, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("review: %w", err)
	}
	if !fi.IsDir() || !IsRunDir(dir) {
		return nil, fmt.Errorf("review: %s is not a run directory (no trajectory.json, result.json, debug/ or workspace/)", dir)
	}
	r := &Run{Dir: dir}
	r.readHeader()
	traj := r.readTrajectory()
	r.readSteps(traj)
	r.readCompactions()
	r.readErrors()
	r.readFinalRuns()
	r.Plan = r.readText("workspace/plan.md")
	r.FinalScript = r.readText("workspace/final_script.py")
	r.summarise(traj)
	return r, nil
}

func (r *Run) path(rel string) string { return filepath.Join(r.Dir, filepath.FromSlash(rel)) }

func (r *Run) readText(rel string) string {
	b, err := ReadFile(r.Dir, rel)
	if err != nil {
		return ""
	}
	return string(b)
}

// readJSON reads a JSON file; a missing or damaged one is noted.
func (r *Run) readJSON(rel string, v any, why string) bool {
	b, err := ReadFile(r.Dir, rel)
	if errors.Is(err, fs.ErrNotExist) {
		r.Missing = append(r.Missing, rel+": missing"+why)
		return false
	}
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		r.Missing = append(r.Missing, fmt.Sprintf("%s: unreadable (%v)", rel, err))
		return false
	}
	return true
}

// The run's files are read with structs of this package's own, loose
// where the format has changed or may change (the gate's keys), so that a
// review reads older and newer runs alike and does not move with the
// writer's internal types.

// Usage is a model call's (or a run's) token use and cost.
type Usage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	TotalTokens      int     `json:"total_tokens"`
	CachedTokens     int     `json:"cached_tokens"`
	CacheWriteTokens int     `json:"cache_write_tokens"`
	Cost             float64 `json:"cost"`
}

// result is result.json.
type result struct {
	TaskID        string    `json:"task_id"`
	ExitStatus    string    `json:"exit_status"`
	FinalResponse string    `json:"final_response"`
	Message       string    `json:"message"`
	Steps         int       `json:"steps"`
	Usage         Usage     `json:"usage"`
	Seconds       float64   `json:"seconds"`
	StartedAt     time.Time `json:"started_at"`
	Model         string    `json:"model"`
	Mode          string    `json:"mode"`
	GateLabel     any       `json:"gate_label"`
	// EstimatedPromptTokens is wright's estimate of the prompts the
	// endpoint reported no usage for.
	EstimatedPromptTokens int `json:"estimated_prompt_tokens"`
	// The final run the gate judged: gate_run (a number), or judged_run.
	GateRun   any `json:"gate_run"`
	JudgedRun any `json:"judged_run"`
}

// stepFile is debug/steps/step_NNNN.json.
type stepFile struct {
	Step          int            `json:"step"`
	Thought       string         `json:"thought"`
	Field         string         `json:"field"`
	Code          string         `json:"code"`
	Done          bool           `json:"done"`
	FinalResponse string         `json:"final_response"`
	Observation   map[string]any `json:"observation"`
	Notes         []string       `json:"notes"`
	Usage         Usage          `json:"usage"`
	PromptTokens  int            `json:"prompt_tokens"`
}

// message is one message of trajectory.json.
type message struct {
	Role    string         `json:"role"`
	Content string         `json:"content"`
	Extra   map[string]any `json:"extra"`
}

const (
	fieldBash   = "bash_command"
	fieldPython = "python_code"
)

func (r *Run) readHeader() {
	h := &r.Header
	var task struct {
		TaskID   string `json:"task_id"`
		Task     string `json:"task"`
		StartURL string `json:"start_url"`
	}
	if r.readJSON("workspace/task.json", &task, "") {
		h.TaskID, h.Task, h.StartURL = task.TaskID, task.Task, task.StartURL
	}
	var res result
	if !r.readJSON("result.json", &res, " (the run is still going, or it crashed)") {
		h.ExitStatus = "unfinished"
		return
	}
	h.Finished = true
	if h.TaskID == "" {
		h.TaskID = res.TaskID
	}
	h.ExitStatus, h.FinalResponse, h.Message = res.ExitStatus, res.FinalResponse, plainError(res.Message)
	h.Mode, h.Model = res.Mode, res.Model
	h.Steps, h.Tokens, h.PromptTokens, h.Cost = res.Steps, res.Usage.TotalTokens, res.Usage.PromptTokens, res.Usage.Cost
	h.CachedTokens = res.Usage.CachedTokens
	h.Seconds = res.Seconds
	if !res.StartedAt.IsZero() {
		h.StartedAt = res.StartedAt.UTC().Format(time.RFC3339)
	}
	h.EstimatedPrompt = res.EstimatedPromptTokens
	switch v := res.GateLabel.(type) {
	case float64:
		label := int(v)
		h.GateLabel = &label
	case string:
		// An older writer's label as text: its number, if it is one.
		if label, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			h.GateLabel = &label
		}
	}
	judged := res.JudgedRun
	if res.GateRun != nil {
		judged = res.GateRun
	}
	switch v := judged.(type) {
	case float64:
		h.JudgedRun = fmt.Sprintf("run_%d", int(v))
	case string:
		h.JudgedRun = filepath.Base(v)
	}
}

type trajectory struct {
	Info     map[string]any `json:"info"`
	Messages []message      `json:"messages"`
}

func (r *Run) readTrajectory() *trajectory {
	var t trajectory
	if !r.readJSON("trajectory.json", &t, "") {
		return nil
	}
	return &t
}

// summarise fills what result.json would have said from the other files,
// and the gate's verdict from the newest judged final run.
func (r *Run) summarise(traj *trajectory) {
	h := &r.Header
	if !h.Finished {
		h.Steps = len(r.Steps)
		for _, s := range r.Steps {
			h.Tokens += s.Usage.TotalTokens
			h.PromptTokens += s.Usage.PromptTokens
			h.CachedTokens += s.Usage.CachedTokens
			h.Cost += s.Usage.Cost
		}
		if traj != nil {
			if m := traj.Messages; len(m) > 0 && m[len(m)-1].Role == "exit" {
				h.ExitStatus = str(m[len(m)-1].Extra["exit_status"]) + " (no result.json)"
			}
			if t, err := time.Parse(time.RFC3339Nano, str(traj.Info["started_at"])); err == nil {
				h.StartedAt = t.UTC().Format(time.RFC3339)
				if s, err := time.Parse(time.RFC3339Nano, str(traj.Info["saved_at"])); err == nil {
					h.Seconds = s.Sub(t).Seconds()
				}
			}
		}
	}
	if h.EstimatedPrompt == 0 {
		// A run still going, or a result.json from before the field.
		for _, s := range r.Steps {
			if s.PromptEstimated {
				h.EstimatedPrompt += s.Prompt
			}
		}
	}
	if h.Task == "" && traj != nil && len(traj.Messages) > 1 {
		h.Task = firstLine(traj.Messages[1].Content, 200)
	}
	if h.Mode == "" && len(r.Steps) > 0 {
		h.Mode = map[string]string{fieldPython: "browser", fieldBash: "workspace"}[r.Steps[0].Field]
	}
	for i := len(r.FinalRuns) - 1; i >= 0; i-- {
		if v := r.FinalRuns[i].Verdict; v != nil {
			h.GateVerdict = v.Label()
			if h.JudgedRun == "" {
				h.JudgedRun = fmt.Sprintf("run_%d", r.FinalRuns[i].N)
			}
			break
		}
	}
	for _, s := range r.Steps {
		if s.Incomplete {
			r.Missing = append(r.Missing, fmt.Sprintf("step %d: the model's reply is recorded but not its result (no debug/steps/step_%04d.json)", s.N, s.N))
		}
	}
}

func number(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return 0
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// firstLine is s's first line, cut to n runes.
func firstLine(s string, n int) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(line); len(r) > n {
		line = string(r[:n]) + "…"
	}
	return line
}
