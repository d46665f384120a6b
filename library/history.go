package library

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"wright/internal/atomicfile"
)

// Event kinds in history.jsonl.
const (
	EventVersion = "version"
	EventRerun   = "rerun"
)

// Event is one line of a script's history: a version made, or a rerun.
type Event struct {
	Kind    string    `json:"kind"`
	Time    time.Time `json:"time"`
	Version int       `json:"version"`
	// A version: how it came, and from which version a heal made it.
	Source          string `json:"source,omitempty"`
	HealedFrom      int    `json:"healed_from,omitempty"`
	InterfaceChange bool   `json:"interface_change,omitempty"`
	// RunDir is the run that made a version, or a rerun's folder.
	RunDir string `json:"run_dir,omitempty"`
	// A rerun: its inputs, checks and answer.
	Inputs   map[string]any `json:"inputs,omitempty"`
	Verify   string         `json:"verify,omitempty"`
	Verified *bool          `json:"verified,omitempty"`
	Reason   string         `json:"reason,omitempty"`
	Output   any            `json:"output,omitempty"`
	Seconds  float64        `json:"seconds,omitempty"`
	// ModelCalls, tokens and Cost are the judge's (a rerun makes no other
	// call); a heal's are HealCalls, HealTokens and HealCost.
	ModelCalls int     `json:"model_calls,omitempty"`
	Tokens     int     `json:"tokens,omitempty"`
	Cost       float64 `json:"cost,omitempty"`
	// Healed is the version a heal of this rerun saved; HealRun the heal's
	// run directory (also when it failed).
	Healed     int     `json:"healed,omitempty"`
	HealRun    string  `json:"heal_run,omitempty"`
	HealCalls  int     `json:"heal_calls,omitempty"`
	HealTokens int     `json:"heal_tokens,omitempty"`
	HealCost   float64 `json:"heal_cost,omitempty"`
}

// Append adds one event to a script's history. One write of one line with
// O_APPEND: concurrent reruns do not interleave.
func (l *Library) Append(name string, ev Event) error {
	if err := CheckName(name); err != nil {
		return err
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	line, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("history of %s: %w", name, err)
	}
	f, err := os.OpenFile(filepath.Join(l.ScriptDir(name), HistoryFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("history of %s: %w", name, err)
	}
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("history of %s: %w", name, werr)
	}
	return nil
}

// History reads a script's history, oldest first. A line that does not
// parse (a hand edit, a torn write) is skipped, not fatal.
func (l *Library) History(name string) ([]Event, error) {
	if _, err := l.Versions(name); err != nil {
		return nil, err
	}
	f, err := os.Open(filepath.Join(l.ScriptDir(name), HistoryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history of %s: %w", name, err)
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Kind != "" {
			out = append(out, ev)
		}
	}
	return out, sc.Err()
}

// Diff is the unified diff between two versions' scripts.
func (l *Library) Diff(name string, from, to int) (string, error) {
	a, err := l.Get(name, from)
	if err != nil {
		return "", err
	}
	b, err := l.Get(name, to)
	if err != nil {
		return "", err
	}
	as, err := a.Script()
	if err != nil {
		return "", err
	}
	bs, err := b.Script()
	if err != nil {
		return "", err
	}
	return DiffScripts(fmt.Sprintf("v%d/%s", from, ScriptFile), fmt.Sprintf("v%d/%s", to, ScriptFile), string(as), string(bs)), nil
}

// DiffScripts is a unified diff of two scripts ("" when they are equal).
func DiffScripts(fromLabel, toLabel, a, b string) string {
	if a == b {
		return ""
	}
	return udiff.Unified(fromLabel, toLabel, a, b)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o644)
}

// DescribeEvent is one line of `wright scripts history`.
func DescribeEvent(ev Event, params []Param) string {
	t := ev.Time.Local().Format("2006-01-02 15:04:05")
	switch ev.Kind {
	case EventVersion:
		s := fmt.Sprintf("%s  v%d  saved from a %s", t, ev.Version, ev.Source)
		if ev.Source == "heal" && ev.HealedFrom > 0 {
			s = fmt.Sprintf("%s  v%d  healed from v%d", t, ev.Version, ev.HealedFrom)
		}
		if ev.InterfaceChange {
			s += " (interface change)"
		}
		if ev.RunDir != "" {
			s += "  " + ev.RunDir
		}
		return s
	case EventRerun:
		state := "not verified"
		if ev.Verified != nil && *ev.Verified {
			state = "verified"
		}
		if ev.Verify == "none" {
			state += " (unchecked)"
		}
		inputs := FormatInputs(params, ev.Inputs)
		if inputs == "" {
			inputs = formatMap(ev.Inputs)
		}
		s := fmt.Sprintf("%s  v%d  rerun  %s  %s  %.1fs  $%.4f", t, ev.Version, orDash(inputs), state, ev.Seconds, ev.Cost+ev.HealCost)
		if ev.Healed > 0 {
			s += fmt.Sprintf("  healed into v%d", ev.Healed)
		} else if ev.HealRun != "" {
			s += "  heal failed"
		}
		if ev.Reason != "" && (ev.Verified == nil || !*ev.Verified) {
			s += "  (" + firstLine(ev.Reason) + ")"
		}
		return s
	}
	return fmt.Sprintf("%s  v%d  %s", t, ev.Version, ev.Kind)
}

func formatMap(m map[string]any) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, k+"="+formatValue(v))
	}
	return strings.Join(parts, ", ")
}

func orDash(s string) string {
	if s == "" {
		return "(defaults)"
	}
	return s
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "..."
	}
	return s
}
