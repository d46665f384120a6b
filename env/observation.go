package env

import (
	"encoding/json"
	"maps"
	"time"
)

// Observation is what one action produced. The Go side is typed; the flat
// form (Flat, and JSON) is what the templates, trajectory.json
// (extra.observation) and the debug files see, with the snake_case keys
// they always had: success, elapsed_ms, the output under OutputKey,
// log_path, screenshot_path, notices, and the Details keys.
type Observation struct {
	// Success says the action did what it was asked without error.
	Success bool
	// Elapsed is how long the action ran (elapsed_ms).
	Elapsed time.Duration
	// Output is what the action printed, head and tail when it was long;
	// OutputKey is its flat key ("command_output", "python_output").
	Output    string
	OutputKey string
	// LogPath is the file, relative to the workspace, that keeps the whole
	// output (log_path); "" for none.
	LogPath string
	// Screenshot is the absolute path of the screenshot taken after the
	// action (screenshot_path); "" for none.
	Screenshot string
	// Notices are what the environment flagged for the model (a
	// navigation, a dialog, a loop); the loop shows each as a message of
	// its own, which pruning never touches.
	Notices []string
	// Details hold what is particular to the mode (returncode, cwd, url,
	// aria_snapshot, ...), under their flat keys.
	Details map[string]any
	// Prunable maps the flat keys whose values pruning may replace (the
	// bulky ones: the output, an ARIA snapshot) to the placeholder that
	// replaces them, which tells the model what was there and where to get
	// it back. It is not part of the flat form.
	Prunable map[string]string
	// Incremental says the Prunable values are changes to the observation
	// before this one (live mode's change observations), which the model
	// needs to read them: pruning keeps every observation back to the last
	// one that is not incremental. It is not part of the flat form.
	Incremental bool
}

// IsZero reports an observation that holds nothing: an action that never
// got to run.
func (o Observation) IsZero() bool {
	return !o.Success && o.Elapsed == 0 && o.OutputKey == "" && o.Output == "" && o.LogPath == "" &&
		o.Screenshot == "" && o.Notices == nil && o.Details == nil
}

// Flat keys of the typed fields.
const (
	KeySuccess    = "success"
	KeyElapsedMS  = "elapsed_ms"
	KeyLogPath    = "log_path"
	KeyScreenshot = "screenshot_path"
	KeyNotices    = "notices"
)

// Flat is the observation as one map. Empty optional fields (log path,
// screenshot, notices) are left out.
func (o Observation) Flat() map[string]any {
	m := make(map[string]any, len(o.Details)+6)
	maps.Copy(m, o.Details)
	m[KeySuccess] = o.Success
	m[KeyElapsedMS] = o.Elapsed.Milliseconds()
	if o.OutputKey != "" {
		m[o.OutputKey] = o.Output
	}
	if o.LogPath != "" {
		m[KeyLogPath] = o.LogPath
	}
	if o.Screenshot != "" {
		m[KeyScreenshot] = o.Screenshot
	}
	if o.Notices != nil {
		m[KeyNotices] = o.Notices
	}
	return m
}

// Get returns the string under a flat key: the output, or a Details value.
func (o Observation) Get(key string) (string, bool) {
	if key == o.OutputKey && key != "" {
		return o.Output, true
	}
	s, ok := o.Details[key].(string)
	return s, ok
}

// With returns a copy of o with the string under a flat key replaced; o
// and its Details are left as they were.
func (o Observation) With(key, value string) Observation {
	if key == o.OutputKey && key != "" {
		o.Output = value
		return o
	}
	o.Details = maps.Clone(o.Details)
	if o.Details == nil {
		o.Details = map[string]any{}
	}
	o.Details[key] = value
	return o
}

// Detail is the Details value under key, or nil.
func (o Observation) Detail(key string) any { return o.Details[key] }

// MarshalJSON writes the flat form.
func (o Observation) MarshalJSON() ([]byte, error) { return json.Marshal(o.Flat()) }

// outputKeys are the flat keys an output has had, for reading a flat
// observation back.
var outputKeys = []string{"command_output", "python_output"}

// UnmarshalJSON reads the flat form back, as trajectory.json holds it
// (run directories written before the struct existed included).
func (o *Observation) UnmarshalJSON(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*o = FromFlat(m)
	return nil
}

// FromFlat rebuilds an observation from its flat form: the known keys go
// to their fields, the rest to Details. Prunable is not part of the flat
// form and stays empty.
func FromFlat(m map[string]any) Observation {
	d := maps.Clone(m)
	var o Observation
	o.Success, _ = d[KeySuccess].(bool)
	switch ms := d[KeyElapsedMS].(type) {
	case float64:
		o.Elapsed = time.Duration(ms) * time.Millisecond
	case int64:
		o.Elapsed = time.Duration(ms) * time.Millisecond
	case int:
		o.Elapsed = time.Duration(ms) * time.Millisecond
	}
	for _, k := range outputKeys {
		if s, ok := d[k].(string); ok {
			o.Output, o.OutputKey = s, k
			delete(d, k)
			break
		}
	}
	o.LogPath, _ = d[KeyLogPath].(string)
	o.Screenshot, _ = d[KeyScreenshot].(string)
	switch n := d[KeyNotices].(type) {
	case []string:
		o.Notices = n
	case []any:
		o.Notices = []string{}
		for _, x := range n {
			if s, ok := x.(string); ok {
				o.Notices = append(o.Notices, s)
			}
		}
	}
	for _, k := range []string{KeySuccess, KeyElapsedMS, KeyLogPath, KeyScreenshot, KeyNotices} {
		delete(d, k)
	}
	if len(d) > 0 {
		o.Details = d
	}
	return o
}
