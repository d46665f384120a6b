// Package library is the on-disk script library: verified scripts saved by
// name, one folder per script and one per version, in plain JSON and
// Python, with each script's history of versions and reruns. A person can
// read it and keep it in git; wright reads and writes it with `wright run
// --save-as`, `wright rerun`, `wright heal` and `wright scripts`.
//
//	<library>/<name>/
//	  history.jsonl          one line per version made and per rerun
//	  v1/
//	    final_script.py      the script
//	    version.json         interface, task template, start URL, policy, verdict, hash
//	    output_schema.json   the output schema, when there is one
//	    verified/            the verifying run: log, screenshots, result.json, verdict
//	  v2/ ... changes.diff   what the heal changed against v1
//	  reruns/<time>_v<N>/    rerun folders (a run directory each)
package library

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"wright/internal/atomicfile"
)

// EnvDir names the library directory when --library does not.
const EnvDir = "WRIGHT_LIBRARY"

// File names inside a script's folder.
const (
	ScriptFile  = "final_script.py"
	VersionFile = "version.json"
	SchemaFile  = "output_schema.json"
	VerifiedDir = "verified"
	DiffFile    = "changes.diff"
	HistoryFile = "history.jsonl"
	RerunsDir   = "reruns"
)

// DefaultDir is the library when neither --library nor WRIGHT_LIBRARY says:
// $XDG_DATA_HOME/wright/library, else ~/.local/share/wright/library.
func DefaultDir() (string, error) {
	if d := os.Getenv(EnvDir); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "wright", "library"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("library: no home directory for the default library (use --library DIR): %w", err)
	}
	return filepath.Join(home, ".local", "share", "wright", "library"), nil
}

// Library is one library directory.
type Library struct{ Dir string }

// Open returns the library at dir ("" = DefaultDir), made if missing.
func Open(dir string) (*Library, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	return &Library{Dir: abs}, nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$`)

// CheckName says what is wrong with a script name, or nil.
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return usagef("script name %q: use letters, digits, '.', '_' and '-' (at most 80, starting with a letter or digit)", name)
	}
	return nil
}

// Verdict is the judge's answer on the run that verified a version.
type Verdict struct {
	Label     *int   `json:"label"`
	Reasoning string `json:"reasoning,omitempty"`
}

// Version is version.json: everything a rerun needs besides the script.
type Version struct {
	Name    string    `json:"name"`
	Version int       `json:"version"`
	Created time.Time `json:"created"`
	// Source is how the version came: run (--save-as), heal or import.
	Source string `json:"source"`
	// HealedFrom is the version a heal repaired; InterfaceChange marks a
	// heal allowed to change the interface.
	HealedFrom      int  `json:"healed_from,omitempty"`
	InterfaceChange bool `json:"interface_change,omitempty"`
	// Task is the task the version was verified on; Template is it with
	// the parameters' defaults as {name}.
	Task      string    `json:"task"`
	Template  string    `json:"template"`
	StartURL  string    `json:"start_url"`
	Interface Interface `json:"interface"`
	// Crafted: made under gate.crafted (a command-line tool).
	Crafted   bool `json:"crafted"`
	HasSchema bool `json:"has_schema"`
	// AllowedDomains and BlockedDomains are the URL policy it ran under;
	// Secrets the names of the secrets it needs (never their values).
	AllowedDomains []string `json:"allowed_domains,omitempty"`
	BlockedDomains []string `json:"blocked_domains,omitempty"`
	Secrets        []string `json:"secrets,omitempty"`
	Verdict        Verdict  `json:"verdict"`
	// RunDir is the run that made it (the agent's run directory).
	RunDir        string `json:"run_dir,omitempty"`
	WrightVersion string `json:"wright_version"`
	// SHA256 is the script's content hash.
	SHA256 string `json:"sha256"`
}

// Saved is a version on disk.
type Saved struct {
	Version
	Dir string
}

// Script reads the version's script.
func (s Saved) Script() ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(s.Dir, ScriptFile))
	if err != nil {
		return nil, fmt.Errorf("script %s v%d: %w", s.Name, s.Version.Version, err)
	}
	if s.SHA256 != "" && Hash(b) != s.SHA256 {
		return nil, fmt.Errorf("script %s v%d: %s does not match its saved hash (edited by hand?)", s.Name, s.Version.Version, ScriptFile)
	}
	return b, nil
}

// Schema reads the version's output schema text ("" when none).
func (s Saved) Schema() (string, error) {
	if !s.HasSchema {
		return "", nil
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, SchemaFile))
	if err != nil {
		return "", fmt.Errorf("script %s v%d: %w", s.Name, s.Version.Version, err)
	}
	return string(b), nil
}

// Hash is a script's content hash.
func Hash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// ErrNotFound: no script of that name (or no such version).
var ErrNotFound = errors.New("not in the library")

// ScriptDir is a script's folder.
func (l *Library) ScriptDir(name string) string { return filepath.Join(l.Dir, name) }

// Names lists the library's scripts, sorted.
func (l *Library) Names() ([]string, error) {
	entries, err := os.ReadDir(l.Dir)
	if err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && nameRE.MatchString(e.Name()) {
			if vs, _ := l.versionNumbers(e.Name()); len(vs) > 0 {
				out = append(out, e.Name())
			}
		}
	}
	return out, nil
}

var versionRE = regexp.MustCompile(`^v([1-9][0-9]*)$`)

func (l *Library) versionNumbers(name string) ([]int, error) {
	entries, err := os.ReadDir(l.ScriptDir(name))
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		if m := versionRE.FindStringSubmatch(e.Name()); m != nil && e.IsDir() {
			n, _ := strconv.Atoi(m[1])
			if _, err := os.Stat(filepath.Join(l.ScriptDir(name), e.Name(), VersionFile)); err == nil {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// Versions returns every version of a script, oldest first.
func (l *Library) Versions(name string) ([]Saved, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	nums, err := l.versionNumbers(name)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && len(nums) == 0) {
		return nil, fmt.Errorf("script %q: %w (%s)", name, ErrNotFound, l.Dir)
	}
	if err != nil {
		return nil, fmt.Errorf("script %q: %w", name, err)
	}
	var out []Saved
	for _, n := range nums {
		s, err := l.Get(name, n)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Latest is a script's newest version.
func (l *Library) Latest(name string) (Saved, error) {
	vs, err := l.Versions(name)
	if err != nil {
		return Saved{}, err
	}
	return vs[len(vs)-1], nil
}

// Get reads one version.
func (l *Library) Get(name string, version int) (Saved, error) {
	if err := CheckName(name); err != nil {
		return Saved{}, err
	}
	dir := filepath.Join(l.ScriptDir(name), "v"+strconv.Itoa(version))
	var v Version
	err := readJSON(filepath.Join(dir, VersionFile), &v)
	if errors.Is(err, fs.ErrNotExist) {
		return Saved{}, fmt.Errorf("script %q version %d: %w", name, version, ErrNotFound)
	}
	if err != nil {
		return Saved{}, fmt.Errorf("script %q version %d: %w", name, version, err)
	}
	return Saved{Version: v, Dir: dir}, nil
}

// SaveSpec is a version to save.
type SaveSpec struct {
	Version
	Script []byte
	// Schema is the output schema's text, "" when none.
	Schema string
	// VerifiedRun is the final run folder that verified the script: its
	// log, screenshots, result.json and verdict are copied.
	VerifiedRun string
	// Diff, for a version after the first, is what changed.
	Diff string
}

// Save stores spec as the script's next version (1 for a new name) and
// records it in the history. Two saves at once get different numbers.
func (l *Library) Save(spec SaveSpec) (Saved, error) {
	if err := CheckName(spec.Name); err != nil {
		return Saved{}, err
	}
	if len(spec.Script) == 0 {
		return Saved{}, errors.New("save: the script is empty")
	}
	sdir := l.ScriptDir(spec.Name)
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return Saved{}, fmt.Errorf("save %s: %w", spec.Name, err)
	}
	nums, err := l.versionNumbers(spec.Name)
	if err != nil {
		return Saved{}, fmt.Errorf("save %s: %w", spec.Name, err)
	}
	n := 1
	if len(nums) > 0 {
		n = nums[len(nums)-1] + 1
	}
	// Mkdir is the claim on the number: a concurrent save takes the next.
	var vdir string
	for ; ; n++ {
		vdir = filepath.Join(sdir, "v"+strconv.Itoa(n))
		err := os.Mkdir(vdir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return Saved{}, fmt.Errorf("save %s: %w", spec.Name, err)
		}
	}
	v := spec.Version
	v.Version, v.SHA256, v.HasSchema = n, Hash(spec.Script), spec.Schema != ""
	if v.Created.IsZero() {
		v.Created = time.Now().UTC()
	}
	fail := func(err error) (Saved, error) {
		os.RemoveAll(vdir)
		return Saved{}, fmt.Errorf("save %s v%d: %w", spec.Name, n, err)
	}
	if err := atomicfile.Write(filepath.Join(vdir, ScriptFile), spec.Script, 0o644); err != nil {
		return fail(err)
	}
	if spec.Schema != "" {
		if err := atomicfile.Write(filepath.Join(vdir, SchemaFile), []byte(strings.TrimRight(spec.Schema, "\n")+"\n"), 0o644); err != nil {
			return fail(err)
		}
	}
	if spec.Diff != "" {
		if err := atomicfile.Write(filepath.Join(vdir, DiffFile), []byte(spec.Diff), 0o644); err != nil {
			return fail(err)
		}
	}
	if spec.VerifiedRun != "" {
		if err := copyRun(spec.VerifiedRun, filepath.Join(vdir, VerifiedDir)); err != nil {
			return fail(err)
		}
	}
	// version.json last: a version without it is not listed.
	if err := writeJSON(filepath.Join(vdir, VersionFile), v); err != nil {
		return fail(err)
	}
	ev := Event{Kind: EventVersion, Time: v.Created, Version: n, Source: v.Source, HealedFrom: v.HealedFrom,
		InterfaceChange: v.InterfaceChange, RunDir: v.RunDir}
	if err := l.Append(spec.Name, ev); err != nil {
		return Saved{Version: v, Dir: vdir}, err
	}
	return Saved{Version: v, Dir: vdir}, nil
}

// copyRun copies what shows a run worked: its log, result, verdict and
// screenshots (not the script's other files).
func copyRun(from, to string) error {
	if err := os.MkdirAll(filepath.Join(to, "screenshots"), 0o755); err != nil {
		return err
	}
	for _, f := range []string{"final_script_log.txt", "result.json", "self_reflect_result.json"} {
		if err := copyFile(filepath.Join(from, f), filepath.Join(to, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	shots, err := os.ReadDir(filepath.Join(from, "screenshots"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range shots {
		if e.Type().IsRegular() {
			if err := copyFile(filepath.Join(from, "screenshots", e.Name()), filepath.Join(to, "screenshots", e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return atomicfile.Write(to, b, 0o644)
}

// Remove deletes a script, every version and its history.
func (l *Library) Remove(name string) error {
	if _, err := l.Versions(name); err != nil {
		return err
	}
	if err := os.RemoveAll(l.ScriptDir(name)); err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	return nil
}

// RerunDir makes the name of a new rerun folder of a version.
func (l *Library) RerunDir(name string, version int, at time.Time) string {
	base := filepath.Join(l.ScriptDir(name), RerunsDir, at.UTC().Format("20060102_150405")+"_v"+strconv.Itoa(version))
	dir := base
	for i := 2; ; i++ {
		if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
			return dir
		}
		dir = base + "_" + strconv.Itoa(i)
	}
}
