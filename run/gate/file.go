package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"wright/env"
	"wright/internal/clip"
	"wright/run/output"
)

// FileGate is gate.mode: file. The model runs its script and the judge
// itself; the gate only reads what they left in the newest run folder and
// lets a done pass when that holds a fresh verdict of success.
type FileGate struct {
	workspace string
	// Schema, when set, is the output schema: the newest run's result.json
	// must satisfy it before its verdict counts.
	Schema *output.Schema
	// Command is how the model invokes wright in its shell; refusals quote
	// it in the command lines they suggest. Default "wright".
	Command string
	// Verify, when set, decides whether a verdict file's content was made
	// by the harness for exactly the files now in runPath (package
	// verdict); its error is quoted in the refusal.
	Verify func(data []byte, runPath string) error
}

// NewFileGate returns the file gate for a workspace.
// A relative workspace is made absolute now, because the command lines
// the refusals quote must work from wherever the model's shell stands.
func NewFileGate(workspace string) *FileGate {
	if workspace != "" {
		if abs, err := filepath.Abs(workspace); err == nil {
			workspace = abs
		}
	}
	return &FileGate{workspace: workspace, Command: "wright"}
}

// verdictFile is the part of self_reflect_result.json the gate reads.
// PredictedLabel is raw so that a missing key, null and a non-integer can
// each be told apart.
type verdictFile struct {
	PredictedLabel json.RawMessage `json:"predicted_label"`
	FinalResponse  string          `json:"final_response"`
	ImagePaths     []string        `json:"image_paths"`
}

// Check reads the newest run folder's verdict. Only a broken context is an
// error; everything the model can fix is a refusal that says how.
func (g *FileGate) Check(ctx context.Context) (Verdict, error) {
	if err := ctx.Err(); err != nil {
		return Verdict{}, err
	}
	newest, msg := g.newestRun()
	if msg != "" {
		return refuse(msg), nil
	}
	next := newest.N + 1
	rel := FinalRunsDir + "/" + newest.Name
	verdictPath := filepath.Join(newest.Path, VerdictName)
	if msg := CheckResult(g.Schema, newest.Path, rel); msg != "" {
		return refuse(msg + "Fix the script, then:\n" + g.rerunSteps(next)), nil
	}

	vst, err := os.Stat(verdictPath)
	if errors.Is(err, fs.ErrNotExist) {
		shots, _ := RunScreenshots(newest.Path)
		msg := fmt.Sprintf("The newest final run, %s, has no judge verdict (%s/%s is missing).\n", rel, rel, VerdictName)
		if len(shots) == 0 {
			msg += fmt.Sprintf("It also holds no screenshots, so there is nothing to judge: final_script.py must save them into $RUN_DIR/%s/ as final_execution_<n>_<what>.png. Fix the script, then:\n%s", ScreenshotsDir, g.rerunSteps(next))
		} else {
			msg += "Judge it now:\n  " + g.reflectCommand(newest.Name)
		}
		return refuse(msg), nil
	}
	if err != nil {
		return refuse(fmt.Sprintf("The verdict file %s/%s cannot be read (%v). Judge the run again:\n  %s", rel, VerdictName, err, g.reflectCommand(newest.Name))), nil
	}
	data, err := os.ReadFile(verdictPath)
	if err != nil {
		return refuse(fmt.Sprintf("The verdict file %s/%s cannot be read (%v). Judge the run again:\n  %s", rel, VerdictName, err, g.reflectCommand(newest.Name))), nil
	}
	var v verdictFile
	if err := json.Unmarshal(data, &v); err != nil {
		return refuse(fmt.Sprintf("The verdict file %s/%s is not a valid verdict: %v. Do not write this file by hand; let the judge write it:\n  %s", rel, VerdictName, err, g.reflectCommand(newest.Name))), nil
	}
	label, labelErr := parseLabel(v.PredictedLabel)
	if labelErr != nil {
		return refuse(fmt.Sprintf("The verdict file %s/%s is not a valid verdict: %v. Do not write this file by hand; let the judge write it:\n  %s", rel, VerdictName, labelErr, g.reflectCommand(newest.Name))), nil
	}

	if g.Verify != nil {
		if err := g.Verify(data, newest.Path); err != nil {
			return refuse(fmt.Sprintf("The verdict %s/%s does not count: %v.\n"+
				"A verdict counts only when the harness judged the run as it is now. Do not write, edit or copy verdict files, and do not change a judged run. Make a fresh run and judge it:\n%s",
				rel, VerdictName, err, g.rerunSteps(next))), nil
		}
	}

	// Freshness comes before the label: a success on files that changed
	// afterwards proves nothing, and a failure on them is out of date too.
	if msg := g.staleness(newest, rel, vst, v.ImagePaths); msg != "" {
		return refuse(msg), nil
	}

	if label == nil || *label != 1 {
		what := "failure (predicted_label: 0)"
		if label == nil {
			what = "no verdict (predicted_label: null: the judge's answer had no readable \"Status: success|failure\" line)"
		}
		reasoning := strings.TrimSpace(v.FinalResponse)
		if reasoning == "" {
			reasoning = "(the verdict holds no final_response)"
		}
		v := refuse(fmt.Sprintf("The judge's verdict on %s is %s. Its reasoning:\n%s\n\n"+
			"Fix final_script.py so the run really accomplishes the task (check the screenshots and %s/%s yourself), then make a fresh run and judge it; do not edit or reuse %s:\n%s",
			rel, what, indent(clip.Thirds(reasoning, 6000)), rel, FinalLogName, rel, g.rerunSteps(next)))
		v.Label, v.Run = label, newest.N
		return v, nil
	}
	return Verdict{Pass: true, Label: label, Run: newest.N}, nil
}

// newestRun is the newest final run in the workspace, or, when there is
// none to check, the message that refuses the gate.
func (g *FileGate) newestRun() (RunFolder, string) {
	ws := g.workspace
	if ws == "" {
		return RunFolder{}, "The gate has no workspace directory, so no final run can be checked. This is a harness problem, not yours: report it in final_response."
	}
	if st, err := os.Stat(ws); err != nil || !st.IsDir() {
		return RunFolder{}, fmt.Sprintf("The workspace %s does not exist, so there is no final run to check. Recreate it (mkdir -p %s), write final_script.py there and run it into %s/run_1.", ws, ws, FinalRunsDir)
	}
	runsDir := filepath.Join(ws, FinalRunsDir)
	runs, err := ListRuns(runsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return RunFolder{}, fmt.Sprintf("There is no %s/ folder in the workspace, so final_script.py has never had a clean final run.\n"+
			"Do this next:\n%s", FinalRunsDir, g.rerunSteps(1))
	}
	if err != nil {
		return RunFolder{}, fmt.Sprintf("The folder %s/ cannot be read (%v). Fix its permissions, then:\n%s", FinalRunsDir, err, g.rerunSteps(1))
	}
	if len(runs) == 0 {
		return RunFolder{}, fmt.Sprintf("The folder %s/ holds no run_<N> folder, so final_script.py has never had a clean final run.\n"+
			"Do this next:\n%s", FinalRunsDir, g.rerunSteps(1))
	}
	newest := runs[len(runs)-1]
	if len(runs) > 1 && runs[len(runs)-2].N == newest.N {
		return RunFolder{}, fmt.Sprintf("The folder %s/ has two folders numbered %d (%s and %s), so it is unclear which run is the newest. Do not reuse numbers: make a fresh run instead.\n%s",
			FinalRunsDir, newest.N, runs[len(runs)-2].Name, newest.Name, g.rerunSteps(newest.N+1))
	}
	return newest, ""
}

// parseLabel accepts 1, 0 or null; anything else is reported.
func parseLabel(raw json.RawMessage) (*int, error) {
	if len(raw) == 0 {
		return nil, errors.New("it has no predicted_label field")
	}
	if string(raw) == "null" {
		return nil, nil
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil || (n != 0 && n != 1) {
		return nil, fmt.Errorf("predicted_label must be 1, 0 or null, found %s", raw)
	}
	return &n, nil
}

// staleness explains why a verdict no longer speaks for its run folder, or
// returns "".
func (g *FileGate) staleness(run RunFolder, rel string, vst fs.FileInfo, imagePaths []string) string {
	shots, err := RunScreenshots(run.Path)
	if err != nil {
		return fmt.Sprintf("The screenshots of %s cannot be listed (%v).", rel, err)
	}
	if len(shots) == 0 {
		return fmt.Sprintf("%s holds no screenshots, so no judge can have seen the run: its verdict proves nothing. final_script.py must save screenshots into $RUN_DIR/%s/ as final_execution_<n>_<what>.png. Fix the script, then:\n%s",
			rel, ScreenshotsDir, g.rerunSteps(run.N+1))
	}
	watched := append([]string{filepath.Join(run.Path, FinalLogName), filepath.Join(run.Path, FinalScriptName), filepath.Join(run.Path, output.ResultFile)}, shots...)
	for _, p := range watched {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if st.ModTime().After(vst.ModTime()) {
			name, _ := filepath.Rel(run.Path, p)
			return fmt.Sprintf("The verdict in %s is stale: %s/%s was modified after %s was written (%s > %s), so the judge never saw the run as it is now. "+
				"Do not change a judged run; make a fresh run and judge that:\n%s",
				rel, rel, filepath.ToSlash(name), VerdictName,
				st.ModTime().Format("15:04:05.000"), vst.ModTime().Format("15:04:05.000"), g.rerunSteps(run.N+1))
		}
	}

	want := map[string]string{} // canonical path -> path relative to the run
	for _, s := range shots {
		name, _ := filepath.Rel(run.Path, s)
		want[canonical(s)] = filepath.ToSlash(name)
	}
	got := map[string]bool{}
	var foreign []string
	for _, p := range imagePaths {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(g.workspace, filepath.FromSlash(p))
		}
		c := canonical(abs)
		if _, ok := want[c]; ok {
			got[c] = true
		} else {
			foreign = append(foreign, p)
		}
	}
	var missing []string
	for c, name := range want {
		if !got[c] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(foreign) == 0 && len(missing) == 0 {
		return ""
	}
	msg := fmt.Sprintf("The verdict in %s did not judge that run's screenshots.", rel)
	if len(foreign) > 0 {
		msg += fmt.Sprintf(" It judged images that are not screenshots of %s: %s.", rel, strings.Join(foreign, ", "))
	}
	if len(missing) > 0 {
		msg += fmt.Sprintf(" It did not see these screenshots of %s: %s.", rel, strings.Join(missing, ", "))
	}
	msg += fmt.Sprintf(" Judge the run's own screenshots (do not list images in %s unless they are that run's):\n  %s", ReflectConfig, g.reflectCommand(run.Name))
	return msg
}

// canonical resolves symlinks where it can, so the same file reached two
// ways compares equal.
func canonical(p string) string {
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// reflectCommand is the exact command line that judges run folder name.
func (g *FileGate) reflectCommand(runName string) string {
	ws := g.workspace
	cmd := fmt.Sprintf("%s reflect --workspace-dir %s", g.command(), env.ShellQuote(ws))
	if _, err := os.Stat(filepath.Join(ws, ReflectConfig)); err == nil {
		cmd += " --config " + env.ShellQuote(filepath.Join(ws, ReflectConfig))
	}
	out := filepath.Join(ws, FinalRunsDir, runName, VerdictName)
	return cmd + fmt.Sprintf(" --auto-latest-run %s --output %s", FinalRunsDir, env.ShellQuote(out))
}

// rerunSteps are the commands that make run n from the current
// final_script.py and judge it. Each line stands alone (it starts with its
// own cd), so it works however the model splits them up.
func (g *FileGate) rerunSteps(n int) string {
	run := fmt.Sprintf("%s/run_%d", FinalRunsDir, n)
	cd := "cd " + env.ShellQuote(g.workspace) + " && "
	return fmt.Sprintf("  1. %smkdir -p %s && cp %s %s/\n"+
		"  2. %sRUN_DIR=\"$PWD/%s\" WRIGHT_RUN_DIR=\"$PWD/%s\" python3 %s > %s/%s 2>&1; echo \"exit code $?\"\n"+
		"     (it must exit 0 and save its screenshots into $RUN_DIR/%s/ as final_execution_<n>_<what>.png)\n"+
		"  3. %s",
		cd, run, FinalScriptName, run,
		cd, run, run, FinalScriptName, run, FinalLogName,
		ScreenshotsDir, g.reflectCommand(fmt.Sprintf("run_%d", n)))
}

func (g *FileGate) command() string {
	if g.Command == "" {
		return "wright"
	}
	return g.Command
}

func refuse(msg string) Verdict { return Verdict{Pass: false, Message: msg} }

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}
