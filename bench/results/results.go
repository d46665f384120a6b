// Package results is the line format of a bench's results.jsonl: what
// `wright bench` writes and `wright review` reads, one type for both.
package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Record is one finished attempt: one line of results.jsonl.
type Record struct {
	TaskID     string  `json:"task_id"`
	Attempt    int     `json:"attempt"`
	ExitStatus string  `json:"exit_status"`
	GateLabel  *int    `json:"gate_label"`
	Passed     *bool   `json:"passed"`
	Evals      []Eval  `json:"evals"`
	Steps      int     `json:"steps"`
	Tokens     int     `json:"tokens"`
	Cost       float64 `json:"cost"`
	Seconds    float64 `json:"seconds"`
	RunDir     string  `json:"run_dir"`
	// Error is set for an infrastructure failure (endpoint unreachable, the
	// browser would not start): the attempt says nothing about the agent.
	Error         string  `json:"error,omitempty"`
	Unscored      string  `json:"unscored,omitempty"` // why passed is null
	FinalResponse string  `json:"final_response,omitempty"`
	Level         string  `json:"level,omitempty"`
	Mode          string  `json:"mode,omitempty"` // workspace or browser: the mode the attempt ran in
	Site          string  `json:"site,omitempty"`
	ModelSeconds  float64 `json:"model_seconds,omitempty"`
	// EnvSeconds is the time inside the environment's steps, and
	// AttemptSeconds the attempt's whole wall time in the bench (the
	// environment's start and end and the scoring included):
	// AttemptSeconds - ModelSeconds - EnvSeconds is the harness's own
	// time (docs/performance.md).
	EnvSeconds     float64 `json:"env_seconds,omitempty"`
	AttemptSeconds float64 `json:"attempt_seconds,omitempty"`
	// StartSeconds and ScoreSeconds are two parts of the harness's own
	// time: the run's start (its environment's included) and the
	// scoring (the page probe, the bench's rerun of final_script.py, the
	// judge).
	StartSeconds float64 `json:"start_seconds,omitempty"`
	ScoreSeconds float64 `json:"score_seconds,omitempty"`
	Retries      int     `json:"retries,omitempty"`
	// Via says how a bench with a script library served the attempt:
	// rerun, heal or agent. ScriptVersion is the library version a rerun
	// or heal ended on; AgentCost what the agent run that made that
	// version cost, the cost a reuse saves against.
	Via           string   `json:"via,omitempty"`
	ScriptVersion int      `json:"script_version,omitempty"`
	AgentCost     *float64 `json:"agent_cost,omitempty"`
	// PromptTokens and CachedTokens are the prompt side of Tokens and the
	// part of it the provider's prompt cache served.
	PromptTokens int `json:"prompt_tokens"`
	CachedTokens int `json:"cached_tokens"`
	// EstimatedPromptTokens is the run's result.json figure: wright's
	// estimate of the prompts the endpoint reported no usage for (recorded
	// replies, some local servers). Tokens keeps what was reported.
	EstimatedPromptTokens int `json:"estimated_prompt_tokens,omitempty"`
}

// Eval is one evaluator's verdict on one attempt. Passed is nil when
// the evaluator could not run; Detail then says why.
type Eval struct {
	Kind   string   `json:"kind"`
	Passed *bool    `json:"passed"`
	Score  *float64 `json:"score,omitempty"`
	Detail string   `json:"detail,omitempty"`
}

// Mark is ✓, ✗ or ? (the evaluator could not run).
func (e Eval) Mark() string {
	switch {
	case e.Passed == nil:
		return "?"
	case *e.Passed:
		return "✓"
	}
	return "✗"
}

// Final says whether a record ends its attempt for good: resume skips it.
// Interrupted attempts and infrastructure errors are run again.
func (r Record) Final() bool {
	return r.Error == "" && r.ExitStatus != "Interrupted" && r.ExitStatus != ""
}

// Outcome is an attempt's final state. It is the one answer the bench's
// display, summary.md and `wright review` all count by, so they agree.
type Outcome string

// The outcomes, in the order a summary lists them.
const (
	Pass        Outcome = "pass"        // an evaluator (or the gate) said yes
	Fail        Outcome = "fail"        // scored, and not passed
	Unscored    Outcome = "unscored"    // finished, with nothing to score it by
	Error       Outcome = "error"       // an infrastructure failure; runs again on resume
	Interrupted Outcome = "interrupted" // stopped by Ctrl-C; runs again on resume
)

// Outcome is the record's final state.
func (r Record) Outcome() Outcome {
	switch {
	case r.Error != "":
		return Error
	case r.ExitStatus == "Interrupted":
		return Interrupted
	case r.Passed == nil:
		return Unscored
	case *r.Passed:
		return Pass
	}
	return Fail
}

// Tally is the totals of a bench's attempts, each counted once by its
// latest record.
type Tally struct {
	Attempts    int     `json:"attempts"`
	Passed      int     `json:"passed"`
	Failed      int     `json:"failed"`
	Unscored    int     `json:"unscored"`
	Errors      int     `json:"errors"`
	Interrupted int     `json:"interrupted"`
	Tokens      int     `json:"tokens"`
	Cost        float64 `json:"cost"`
	// Seconds is the sum of the attempts' run times, which parallel
	// attempts make longer than the bench's wall time.
	Seconds float64 `json:"seconds"`
}

// Count tallies recs by Outcome, over the latest record of each attempt
// (a rerun supersedes the interrupted or errored line before it).
func Count(recs []Record) Tally {
	var t Tally
	for _, r := range Latest(recs) {
		t.Attempts++
		t.Add(r.Outcome())
		t.Tokens += r.Tokens
		t.Cost += r.Cost
		t.Seconds += r.Seconds
	}
	return t
}

// Add counts one outcome.
func (t *Tally) Add(o Outcome) {
	switch o {
	case Pass:
		t.Passed++
	case Fail:
		t.Failed++
	case Unscored:
		t.Unscored++
	case Error:
		t.Errors++
	case Interrupted:
		t.Interrupted++
	}
}

// Status is the record's line in counts: "error" for infrastructure
// failures, otherwise the run's exit status.
func (r Record) Status() string {
	if r.Error != "" {
		return "error"
	}
	return r.ExitStatus
}

// Log appends records to results.jsonl, one write per line so a killed bench
// leaves whole lines (a torn last line is skipped when read back).
type Log struct {
	mu   sync.Mutex
	file *os.File
}

// OpenLog opens (creating) a results file for appending.
func OpenLog(path string) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	return &Log{file: f}, nil
}

// Append writes one record and syncs it to disk.
func (l *Log) Append(r Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode result: %w", err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.file.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("append result: %w", err)
	}
	return l.file.Sync()
}

// Close closes the file.
func (l *Log) Close() error { return l.file.Close() }

// Read reads results.jsonl. A missing file is no records; a line that
// does not parse (the torn end of a killed write) is skipped and counted.
func Read(path string) (recs []Record, skipped int, err error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read results: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var r Record
		if json.Unmarshal(line, &r) != nil || r.TaskID == "" {
			skipped++
			continue
		}
		recs = append(recs, r)
	}
	return recs, skipped, sc.Err()
}

// Latest keeps, per (task, attempt), the last record written: a rerun of an
// errored or interrupted attempt supersedes the earlier line.
func Latest(recs []Record) []Record {
	type key struct {
		id      string
		attempt int
	}
	idx := map[key]int{}
	var out []Record
	for _, r := range recs {
		k := key{r.TaskID, r.Attempt}
		if i, ok := idx[k]; ok {
			out[i] = r
			continue
		}
		idx[k] = len(out)
		out = append(out, r)
	}
	return out
}
