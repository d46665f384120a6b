// Package bench is what `wright bench` is made of apart from running one task:
// reading suites in the layouts published benchmarks use, choosing the tasks
// of a shard, recording one result line per attempt, and turning those lines
// into a summary, a merge of shards or a paired comparison.
package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"wright/run/output"
)

// Task is one web task of a suite, whatever layout it was read from.
type Task struct {
	ID              string          `json:"task_id"`
	Text            string          `json:"task"`
	StartURL        string          `json:"start_url"`
	Level           string          `json:"level,omitempty"`
	ReferenceLength int             `json:"reference_length,omitempty"`
	Site            string          `json:"web_name,omitempty"`
	Mode            string          `json:"mode,omitempty"`
	Config          map[string]any  `json:"config,omitempty"`
	Eval            *Eval           `json:"eval,omitempty"`
	OutputSchema    json.RawMessage `json:"output_schema,omitempty"`
	// Script names a library script that does this task, and Params its
	// inputs: with --library the task runs as a verified rerun first.
	Script string         `json:"script,omitempty"`
	Params map[string]any `json:"params,omitempty"`
	// Schema is OutputSchema compiled: the run's result contract.
	Schema *output.Schema `json:"-"`
	// Source says where the task came from ("file.jsonl:12"), for messages.
	Source string `json:"-"`
}

// Problem is a task that cannot run, kept so the bench can report it.
type Problem struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

func (p Problem) String() string { return p.Source + ": " + p.Reason }

// Suite is what Load read: the usable tasks in order and the unusable ones.
type Suite struct {
	Tasks   []Task
	Invalid []Problem
	// Digest is a hash of the bytes read, for the reproducibility record.
	Digest string
}

// Options change how a suite is read.
type Options struct {
	// Sites fills WebArena's __NAME__ placeholders: "SHOPPING" -> "http://...".
	Sites map[string]string
	// Builtin resolves builtin:NAME to the suite's bytes; the caller passes
	// the package that embeds them, so this one stays free of them.
	Builtin func(name string) ([]byte, error)
}

// Load reads a suite: a JSONL file, a JSON array, builtin:NAME, or a directory
// of WebArena-style task files (one JSON object each).
func Load(ref string, opts Options) (*Suite, error) {
	if name, ok := strings.CutPrefix(ref, "builtin:"); ok {
		if opts.Builtin == nil {
			return nil, fmt.Errorf("suite %s: no built-in suites in this build", ref)
		}
		data, err := opts.Builtin(name)
		if err != nil {
			return nil, fmt.Errorf("suite %s: %w", ref, err)
		}
		return parse(ref, data, opts)
	}
	info, err := os.Stat(ref)
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	if info.IsDir() {
		return loadDir(ref, opts)
	}
	data, err := os.ReadFile(ref)
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	// The path as given names the file's lines, so that a problem points
	// at the file the command line named.
	return parse(ref, data, opts)
}

func parse(name string, data []byte, opts Options) (*Suite, error) {
	s := &Suite{Digest: digest(data)}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(trimmed, &items); err != nil {
			return nil, fmt.Errorf("suite %s: not a JSON array of tasks: %w", name, err)
		}
		for i, raw := range items {
			s.add(fmt.Sprintf("%s[%d]", name, i), raw, i+1, opts)
		}
		return s.checkIDs(), nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		s.add(fmt.Sprintf("%s:%d", name, n), append([]byte(nil), line...), n, opts)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("suite %s: %w", name, err)
	}
	return s.checkIDs(), nil
}

func loadDir(dir string, opts Options) (*Suite, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	// Numeric file names (WebArena's 0.json ... 811.json) sort as numbers.
	sort.Slice(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	s := &Suite{}
	var all []byte
	for i, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, fmt.Errorf("suite: %w", err)
		}
		all = append(append(all, n...), data...)
		s.add(n, data, i+1, opts)
	}
	s.Digest = digest(all)
	if len(names) == 0 {
		return nil, fmt.Errorf("suite %s: no .json task files in the directory", dir)
	}
	return s.checkIDs(), nil
}

func (s *Suite) add(source string, raw []byte, pos int, opts Options) {
	t, err := decodeTask(raw, opts)
	if err != nil {
		s.Invalid = append(s.Invalid, Problem{Source: source, Reason: err.Error()})
		return
	}
	if t.ID == "" {
		t.ID = fmt.Sprintf("task_%d", pos)
	}
	t.Source = source
	s.Tasks = append(s.Tasks, t)
}

// checkIDs moves a task whose id was already used to Invalid: results are
// keyed by id, so two tasks with one id would overwrite each other.
func (s *Suite) checkIDs() *Suite {
	seen := map[string]string{}
	kept := s.Tasks[:0]
	for _, t := range s.Tasks {
		if first, dup := seen[t.ID]; dup {
			s.Invalid = append(s.Invalid, Problem{Source: t.Source, Reason: fmt.Sprintf("task id %q is also used at %s", t.ID, first)})
			continue
		}
		seen[t.ID] = t.Source
		kept = append(kept, t)
	}
	s.Tasks = kept
	return s
}

// fieldNames lists, per field, the names published suites use for it, in the
// order they are tried.
var fieldNames = struct{ id, text, url, level, refLen, site []string }{
	id:     []string{"task_id", "id"},
	text:   []string{"task", "confirmed_task", "task_description", "ques", "intent"},
	url:    []string{"start_url", "website", "web"},
	level:  []string{"level"},
	refLen: []string{"reference_length"},
	site:   []string{"web_name", "sites"},
}

func decodeTask(raw []byte, opts Options) (Task, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return Task{}, fmt.Errorf("not a JSON object: %v", err)
	}
	var t Task
	t.ID = firstString(m, fieldNames.id)
	t.Text = strings.TrimSpace(firstString(m, fieldNames.text))
	t.StartURL = strings.TrimSpace(fillSites(firstString(m, fieldNames.url), opts.Sites))
	t.Level = firstString(m, fieldNames.level)
	t.Site = firstString(m, fieldNames.site)
	if v, ok := m["reference_length"]; ok {
		_ = json.Unmarshal(v, &t.ReferenceLength)
	}
	if v, ok := m["mode"]; ok {
		if err := json.Unmarshal(v, &t.Mode); err != nil {
			return Task{}, fmt.Errorf("mode: %v", err)
		}
		if t.Mode != "" && t.Mode != "workspace" && t.Mode != "browser" {
			return Task{}, fmt.Errorf("mode %q: want workspace or browser", t.Mode)
		}
	}
	if v, ok := m["config"]; ok {
		if err := json.Unmarshal(v, &t.Config); err != nil {
			return Task{}, fmt.Errorf("config: want an object of config keys: %v", err)
		}
	}
	if v, ok := m["output_schema"]; ok && string(v) != "null" {
		schema, err := output.Compile(v, "output_schema")
		if err != nil {
			return Task{}, fmt.Errorf("output_schema: %v", err)
		}
		t.OutputSchema, t.Schema = v, schema
	}
	if err := decodeScript(m, &t); err != nil {
		return Task{}, err
	}
	if v, ok := m["eval"]; ok && string(v) != "null" {
		ev, err := decodeEval(v, opts)
		if err != nil {
			return Task{}, fmt.Errorf("eval: %v", err)
		}
		t.Eval = ev
	}
	switch {
	case t.Text == "":
		return Task{}, errors.New("no task text (task, confirmed_task, task_description, ques or intent)")
	case t.StartURL == "":
		return Task{}, errors.New("no start URL (start_url, website or web)")
	case strings.Contains(t.StartURL, "__"):
		return Task{}, fmt.Errorf("start URL %q has a site placeholder: give it with --sites NAME=URL", t.StartURL)
	}
	return t, nil
}

// firstString returns the first of names present as a string (or a number,
// since some suites number their tasks, or a list, whose first item is taken).
func firstString(m map[string]json.RawMessage, names []string) string {
	for _, n := range names {
		raw, ok := m[n]
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		switch x := v.(type) {
		case string:
			return x
		case float64:
			return string(bytes.TrimSpace(raw))
		case []any:
			if len(x) > 0 {
				if s, ok := x[0].(string); ok {
					return s
				}
			}
		}
	}
	return ""
}

// fillSites replaces WebArena's __SHOPPING__-style placeholders.
func fillSites(s string, sites map[string]string) string {
	for name, url := range sites {
		s = strings.ReplaceAll(s, "__"+strings.ToUpper(name)+"__", strings.TrimRight(url, "/"))
	}
	return s
}

func naturalLess(a, b string) bool {
	na, ea := leadingInt(a)
	nb, eb := leadingInt(b)
	if ea && eb && na != nb {
		return na < nb
	}
	return a < b
}

func leadingInt(s string) (int, bool) {
	n, i := 0, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n, i > 0
}
