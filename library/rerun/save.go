package rerun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"wright/library"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/gate"
	"wright/run/output"
	"wright/run/rundir"
)

// WrightVersion is recorded in each version saved; the binary sets it.
var WrightVersion = "dev"

// VersionFromRun reads what a version is made of from a run that passed
// the gate: the script exactly as the judged final run ran it, its
// interface, the task as a template, the schema, the policy and the
// verdict. A run that did not pass is an error.
func VersionFromRun(ctx context.Context, cfg *config.Config, taskText, startURL string, res rundir.Result) (library.SaveSpec, error) {
	if res.ExitStatus != agent.Submitted || res.GateLabel == nil || *res.GateLabel != 1 || res.GateRun == nil {
		label := "none"
		if res.GateLabel != nil {
			label = fmt.Sprint(*res.GateLabel)
		}
		return library.SaveSpec{}, fmt.Errorf("only a run that ends Submitted with the judge's label 1 on a final run is saved (this one: %s, label %s)", res.ExitStatus, label)
	}
	ws := filepath.Join(res.RunDir, "workspace")
	folders, err := gate.ListRuns(filepath.Join(ws, gate.FinalRunsDir))
	if err != nil {
		return library.SaveSpec{}, err
	}
	var finalRun string
	for _, f := range folders {
		if f.N == *res.GateRun {
			finalRun = f.Path
		}
	}
	if finalRun == "" {
		return library.SaveSpec{}, fmt.Errorf("the judged final run run_%d is gone", *res.GateRun)
	}
	// The rerun gate copies the script it ran into the run folder; the
	// file gate leaves it in the workspace.
	script, err := os.ReadFile(filepath.Join(finalRun, gate.FinalScriptName))
	if errors.Is(err, os.ErrNotExist) {
		script, err = os.ReadFile(filepath.Join(ws, gate.FinalScriptName))
	}
	if err != nil {
		return library.SaveSpec{}, fmt.Errorf("read the script: %w", err)
	}
	iface, err := library.ReadInterface(ctx, "", script)
	if err != nil {
		return library.SaveSpec{}, err
	}
	if v, err := output.ParseJSON(readOr(filepath.Join(finalRun, output.ResultFile))); err == nil {
		iface.Output = library.ShapeOf(v)
	}
	schema := readOr(filepath.Join(res.RunDir, "output_schema.json"))
	var verdict struct {
		Label     *int   `json:"predicted_label"`
		Reasoning string `json:"final_response"`
	}
	if b, err := os.ReadFile(filepath.Join(finalRun, gate.VerdictName)); err == nil {
		_ = json.Unmarshal(b, &verdict)
	}
	if verdict.Label == nil {
		verdict.Label = res.GateLabel
	}
	var secretNames []string
	for k := range cfg.Secrets {
		secretNames = append(secretNames, k)
	}
	slices.Sort(secretNames)
	return library.SaveSpec{
		Version: library.Version{
			Task:           taskText,
			Template:       library.MakeTemplate(taskText, iface.Params),
			StartURL:       startURL,
			Interface:      iface,
			Crafted:        cfg.Gate.Crafted,
			AllowedDomains: cfg.Browser.AllowedDomains,
			BlockedDomains: cfg.Browser.BlockedDomains,
			Secrets:        secretNames,
			Verdict:        library.Verdict{Label: verdict.Label, Reasoning: verdict.Reasoning},
			RunDir:         res.RunDir,
			WrightVersion:  WrightVersion,
		},
		Script:      script,
		Schema:      schema,
		VerifiedRun: finalRun,
	}, nil
}

// readOr is a file's text, or "" when it cannot be read.
func readOr(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}
