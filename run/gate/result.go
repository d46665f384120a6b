package gate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"wright/internal/clip"
	"wright/run/output"
)

// A run with an output schema returns structured data: the final script
// writes it to result.json in its run folder. The gates (and the judge
// package, before it spends a call) check that file against the schema.

// CheckResult explains what is wrong with a run folder's result.json,
// or returns "" when it satisfies schema (or there is no schema).
func CheckResult(schema *output.Schema, runDir, rel string) string {
	if schema == nil {
		return ""
	}
	path := filepath.Join(runDir, output.ResultFile)
	_, problems, err := schema.ReadResult(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("The final run %s has no %s. This task returns structured data: final_script.py must write its result, a JSON value valid against the output schema, to %s in its run folder ($RUN_DIR/%s).\n",
			rel, output.ResultFile, output.ResultFile, output.ResultFile)
	case err != nil:
		return fmt.Sprintf("The result %s/%s cannot be read (%v).\n", rel, output.ResultFile, err)
	case len(problems) > 0:
		return fmt.Sprintf("The result %s/%s is not valid against the output schema:\n%s\nfinal_script.py must write a JSON value of the schema's shape there.\n",
			rel, output.ResultFile, output.Describe(problems))
	}
	return ""
}

// resultProblem is what is wrong with a run's result (its result.json and,
// for a crafted tool, what run() returned), or "".
func resultProblem(schema *output.Schema, returned *returnFile, runDir, rel string) string {
	msg := CheckResult(schema, runDir, rel)
	if msg == "" && returned != nil {
		msg = returned.check(schema, runDir, rel)
	}
	return msg
}

// returnCapture runs a crafted final_script.py as `python3 final_script.py`
// would (same argv, __main__, sys.path) and records what the script's own
// top-level run() returned last, so the gate can hold run() itself to the
// schema, not only the file its front end writes. A profile hook sees
// every return without touching the script.
const returnCapture = `import json, os, runpy, sys
script = os.path.abspath(sys.argv[1])
sys.argv = sys.argv[1:]
sys.path[0] = os.path.dirname(script)
record = {"calls": 0}
def hook(frame, event, arg):
    if event == "return" and frame.f_code.co_name == "run" and frame.f_code.co_filename == script:
        if getattr(frame.f_globals.get("run"), "__code__", None) is frame.f_code:
            record["calls"] += 1
            record["value"] = arg
def save():
    sys.setprofile(None)
    try:
        text = json.dumps(record)
    except (TypeError, ValueError) as e:
        text = json.dumps({"calls": record["calls"], "error": "run() returned a value JSON cannot hold: %s" % e})
    with open(os.environ["WRIGHT_RUN_RETURN"], "w") as f:
        f.write(text)
sys.setprofile(hook)
try:
    runpy.run_path(script, run_name="__main__")
finally:
    save()
`

// returnFile is where returnCapture writes; it lives outside the
// workspace, so nothing the model or the judge sees changes, in a private
// directory of its own that a sandboxed script is given writable.
type returnFile struct{ dir, path string }

func newReturnFile() (*returnFile, error) {
	dir, err := os.MkdirTemp("", "wright-run-return-")
	if err != nil {
		return nil, fmt.Errorf("rerun gate: %w", err)
	}
	return &returnFile{dir: dir, path: filepath.Join(dir, "return.json")}, nil
}

func (r *returnFile) close() { os.RemoveAll(r.dir) }

// args runs script through the capture; env names the file.
func (r *returnFile) args(script string) []string { return []string{"-c", returnCapture, script} }
func (r *returnFile) env() string                 { return "WRIGHT_RUN_RETURN=" + r.path }

// check explains how run()'s return value breaks the contract: not called,
// not of the schema's shape, or not what result.json holds. "" when it
// holds.
func (r *returnFile) check(schema *output.Schema, runDir, rel string) string {
	data, err := os.ReadFile(r.path)
	var rec struct {
		Calls int             `json:"calls"`
		Value json.RawMessage `json:"value"`
		Error string          `json:"error"`
	}
	if err != nil || json.Unmarshal(data, &rec) != nil {
		return fmt.Sprintf("The gate could not see what run() returned in %s.\n", rel)
	}
	switch {
	case rec.Error != "":
		return rec.Error + "; it must return the result itself (plain dicts, lists, strings, numbers).\n"
	case rec.Calls == 0:
		return fmt.Sprintf("final_script.py never called a top-level function run(...) (or it never returned). The tool's run() must do the task and return the result, a JSON value valid against the output schema; the __main__ front calls it and writes what it returns to %s.\n", output.ResultFile)
	}
	if problems := schema.ValidateValue(mustParse(rec.Value)); len(problems) > 0 {
		return fmt.Sprintf("run() returned a value that is not valid against the output schema:\n%s\nrun() must return the result in the schema's shape.\n", output.Describe(problems))
	}
	written, err := os.ReadFile(filepath.Join(runDir, output.ResultFile))
	if err != nil {
		return ""
	}
	if v, err := output.ParseJSON(string(written)); err == nil && !output.SameJSON(v, mustParse(rec.Value)) {
		return fmt.Sprintf("%s/%s is not what run() returned (run() returned %s). Write run()'s return value to %s unchanged.\n",
			rel, output.ResultFile, clip.Thirds(string(rec.Value), 600), output.ResultFile)
	}
	return ""
}

func mustParse(raw json.RawMessage) any {
	v, err := output.ParseJSON(string(raw))
	if err != nil {
		return nil
	}
	return v
}

// helpMissesFields names the result fields a crafted tool's --help text
// leaves out: the help must say what run() returns.
func helpMissesFields(schema *output.Schema, help string) []string {
	if schema == nil {
		return nil
	}
	lower := strings.ToLower(help)
	var missing []string
	for _, f := range schema.Fields() {
		if !strings.Contains(lower, strings.ToLower(f)) {
			missing = append(missing, f)
		}
	}
	return missing
}
