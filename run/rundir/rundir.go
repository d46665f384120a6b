// Package rundir owns the run directory: everything a run leaves on disk is
// written here, as it happens, so that a crash or a Ctrl-C loses nothing.
package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"wright/internal/atomicfile"
	"wright/model"
)

// Run is one run directory.
type Run struct {
	Dir       string
	Workspace string
	// Redact, when set, rewrites every byte the run writes (secret values
	// become their placeholders) before it reaches a file.
	Redact func([]byte) []byte

	mu       sync.Mutex
	stepsMD  *os.File
	openedMD bool

	// encoded holds each message of the last SaveTrajectory as written,
	// so that the next one encodes only the messages that are new or
	// changed (trajMu guards it: saves come from the loop alone, but
	// nothing here relies on that).
	trajMu  sync.Mutex
	encoded []encodedMessage
}

// encodedMessage is one message of trajectory.json as last written, with
// what it was made from: a message whose role, content, images and meta
// (the pointer and the fields it holds) are the same is the same text.
type encodedMessage struct {
	role, content string
	images        []string
	meta          *model.Meta
	metaVal       model.Meta
	text          []byte
}

func (e *encodedMessage) matches(m model.Message) bool {
	if e.role != m.Role || e.content != m.Content || e.meta != m.Meta || !slices.Equal(e.images, m.Images) {
		return false
	}
	return m.Meta == nil || *m.Meta == e.metaVal
}

// Result is result.json.
type Result struct {
	TaskID        string           `json:"task_id"`
	ExitStatus    model.ExitStatus `json:"exit_status"`
	FinalResponse string           `json:"final_response"`
	// Output is final_response parsed, when the run had an output schema
	// and was Submitted: the value the schema vouches for.
	Output     any         `json:"output,omitempty"`
	Message    string      `json:"message,omitempty"` // why the run ended, for statuses other than Submitted
	Steps      int         `json:"steps"`
	ModelCalls int         `json:"model_calls"`
	Usage      model.Usage `json:"usage"`
	// JudgeUsage is what the judge spent for the run (its calls through the
	// harness and the key proxy); it counts toward the cost limit too.
	JudgeUsage *model.Usage `json:"judge_usage,omitempty"`
	// PromptTokensPerStep is the prompt size of each model call, in order:
	// the endpoint's count, or wright's estimate when it reported none.
	PromptTokensPerStep []int `json:"prompt_tokens_per_step"`
	// EstimatedPromptTokens adds up wright's estimates of the prompts of
	// the calls whose endpoint reported no usage (recorded replies, some
	// local servers); Usage keeps what endpoints reported, and a person
	// is shown this figure marked "est." where Usage has none.
	EstimatedPromptTokens int     `json:"estimated_prompt_tokens,omitempty"`
	Compactions           int     `json:"compactions"`
	Seconds               float64 `json:"seconds"`
	// ModelSeconds is the time inside the model's calls, EnvSeconds the
	// time inside the environment's steps; the rest of Seconds is the
	// harness's own.
	ModelSeconds float64 `json:"model_seconds"`
	EnvSeconds   float64 `json:"env_seconds"`
	// HarnessMsPerStep is each turn's own time, in milliseconds: its wall
	// time less the model's call, the environment's step, the gate and
	// any compaction. What is left is the loop's bookkeeping: building and
	// counting the prompt, parsing and checking the reply, rendering the
	// observation, pruning, and writing the trajectory and the step files.
	HarnessMsPerStep []float64 `json:"harness_ms_per_step,omitempty"`
	// StartSeconds is the time the run took to start, before Seconds
	// began: its first files, the policy proxy, the judge's access and the
	// environment's start (the browser's page, the shell or the runner).
	StartSeconds float64   `json:"start_seconds,omitempty"`
	StartedAt    time.Time `json:"started_at"`
	EndedAt      time.Time `json:"ended_at"`
	RunDir       string    `json:"run_dir"`
	Model        string    `json:"model"`
	Mode         string    `json:"mode"`
	// GateLabel is the judge's label (1 success, 0 failure) on the last
	// final run the gate read a verdict of, and GateRun that run's number
	// N (final_runs/run_<N>); both null when the gate is off or never got
	// that far.
	GateLabel *int `json:"gate_label"`
	GateRun   *int `json:"gate_run"`
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SafeID turns a task id into a file name part.
func SafeID(id string) string {
	s := strings.Trim(unsafeID.ReplaceAllString(id, "_"), "_.")
	if s == "" {
		return "task"
	}
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

// DirName is <task_id>_<YYYYmmdd_HHMMSS>.
func DirName(taskID string, t time.Time) string {
	return SafeID(taskID) + "_" + t.Format("20060102_150405")
}

// Create makes the run directory (which must not hold a previous run) and
// its workspace.
func Create(dir string) (*Run, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("run dir: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "trajectory.json")); err == nil {
		return nil, fmt.Errorf("run dir %s already holds a run: choose another --run-dir", dir)
	}
	r := &Run{Dir: dir, Workspace: filepath.Join(dir, "workspace")}
	for _, d := range []string{r.Workspace, filepath.Join(dir, "debug", "steps")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("create run dir: %w", err)
		}
	}
	return r, nil
}

// CreateUnique makes a new run directory named name under parent, adding
// _2, _3, ... when a run that started in the same second already took the
// name, so runs started at once never share a directory.
func CreateUnique(parent, name string) (*Run, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create run dir: %w", err)
	}
	for i := 1; ; i++ {
		dir := filepath.Join(parent, name)
		if i > 1 {
			dir += fmt.Sprintf("_%d", i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return Create(dir)
		}
		if !errors.Is(err, fs.ErrExist) || i >= 1000 {
			return nil, fmt.Errorf("create run dir: %w", err)
		}
	}
}

// WriteFile writes a file in the run directory atomically (temp file and
// rename), so a reader never sees half a file.
func (r *Run) WriteFile(rel string, data []byte) error {
	path := filepath.Join(r.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", rel, err)
	}
	// 0600: a run's files can hold what the task typed into pages.
	return atomicfile.Write(path, r.redact(data), 0o600)
}

// redact applies the run's Redact hook.
func (r *Run) redact(b []byte) []byte {
	if r.Redact == nil {
		return b
	}
	return r.Redact(b)
}

// WriteJSON writes v as indented JSON, atomically.
func (r *Run) WriteJSON(rel string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", rel, err)
	}
	return r.WriteFile(rel, append(b, '\n'))
}

// Trajectory is trajectory.json.
type Trajectory struct {
	Info     map[string]any  `json:"info"`
	Messages []model.Message `json:"messages"`
}

// dataURL matches inline base64 images, which must never bloat the
// trajectory (images are kept as file paths instead).
var dataURL = regexp.MustCompile(`data:image/[a-zA-Z0-9.+-]+;base64,[A-Za-z0-9+/=]{16,}`)

// ImageMarker replaces an inline image in saved files.
const ImageMarker = "[image omitted]"

// SaveTrajectory rewrites trajectory.json: the text json.MarshalIndent
// makes of a Trajectory (two spaces), inline images replaced. The loop
// saves after every step, and the history only grows at its end (pruning
// and compaction replace a few messages), so each message's text is kept
// from the save before and only new or changed ones are encoded: the
// save of a long run's step no longer encodes the whole run again.
func (r *Run) SaveTrajectory(info map[string]any, msgs []model.Message) error {
	head, err := json.MarshalIndent(info, "  ", "  ")
	if err != nil {
		return fmt.Errorf("encode trajectory: %w", err)
	}
	r.trajMu.Lock()
	defer r.trajMu.Unlock()
	enc := make([]encodedMessage, len(msgs))
	size := len(head) + 64
	for i, m := range msgs {
		if i < len(r.encoded) && r.encoded[i].matches(m) {
			enc[i] = r.encoded[i]
		} else if enc[i], err = encodeMessage(m); err != nil {
			return err
		}
		size += len(enc[i].text) + 6
	}
	b := make([]byte, 0, size)
	b = append(b, "{\n  \"info\": "...)
	b = append(b, dataURL.ReplaceAll(head, []byte(ImageMarker))...)
	b = append(b, ",\n  \"messages\": "...)
	switch {
	case msgs == nil:
		b = append(b, "null"...)
	case len(msgs) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, "[\n    "...)
		for i, e := range enc {
			if i > 0 {
				b = append(b, ",\n    "...)
			}
			b = append(b, e.text...)
		}
		b = append(b, "\n  ]"...)
	}
	b = append(b, "\n}\n"...)
	if err := r.WriteFile("trajectory.json", b); err != nil {
		return err
	}
	r.encoded = enc
	return nil
}

// encodeMessage is a message's text at its depth in trajectory.json, an
// inline image in it (its content or its meta) replaced by the marker.
func encodeMessage(m model.Message) (encodedMessage, error) {
	e := encodedMessage{role: m.Role, content: m.Content, images: slices.Clone(m.Images), meta: m.Meta}
	if m.Meta != nil {
		e.metaVal = *m.Meta
	}
	m.Content = dataURL.ReplaceAllString(m.Content, ImageMarker)
	b, err := json.MarshalIndent(m, "    ", "  ")
	if err != nil {
		return e, fmt.Errorf("encode trajectory: %w", err)
	}
	e.text = dataURL.ReplaceAll(b, []byte(ImageMarker))
	return e, nil
}

// AppendJSONL appends one JSON line to a log in the run directory.
func (r *Run) AppendJSONL(rel string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s line: %w", rel, err)
	}
	b = dataURL.ReplaceAll(b, []byte(ImageMarker))
	r.mu.Lock()
	defer r.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(r.Dir, rel), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", rel, err)
	}
	defer f.Close()
	_, err = f.Write(r.redact(append(b, '\n')))
	return err
}

// RuntimeError records something that went wrong without ending the run
// (or that ended it), in runtime_errors.jsonl.
func (r *Run) RuntimeError(step int, kind string, err error) {
	_ = r.AppendJSONL("runtime_errors.jsonl", map[string]any{
		"time": time.Now().UTC().Format(time.RFC3339Nano), "step": step, "kind": kind, "error": err.Error(),
	})
}
