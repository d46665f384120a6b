package rerun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"wright/internal/atomicfile"
	"wright/library"
	"wright/run/config"
	"wright/run/gate"
	"wright/run/harness"
	"wright/run/output"
)

// DefaultHealSteps bounds a heal when HealStepLimit is 0: a repair starts
// from a script that worked, so it needs fewer steps than a first run.
const DefaultHealSteps = 40

// healDir is where a script's heal runs go.
const healDir = "heals"

// heal repairs the script whose rerun rep failed: a workspace-mode agent
// run on the saved task (the default inputs, which the gate's fresh run of
// the repair uses), seeded with the script and the failing rerun's files.
// A repair that passes the gate and keeps the interface (or may change it)
// is saved as the next version; when the rerun's inputs were not the
// defaults, the new version is then rerun with them, verified, for the
// answer. rep is updated in place; the error is non-nil only when the
// heal could not be carried out.
func (p *Prepared) heal(ctx context.Context, rep *Report, startURL string) error {
	o, saved := p.o, p.saved
	start := time.Now()
	cfg, err := p.healConfig()
	if err != nil {
		return err
	}
	h, err := harness.Build(&cfg, harness.Options{OutputDir: filepath.Join(o.Library.ScriptDir(o.Name), healDir), Observer: o.Observer, Warn: o.Warn})
	if err != nil {
		return fmt.Errorf("heal: %w", err)
	}
	task, script, err := p.healTask(rep, startURL)
	if err != nil {
		return err
	}
	res, err := h.Run(ctx, task)
	hr := &Heal{RunDir: res.RunDir, ExitStatus: string(res.ExitStatus), ModelCalls: res.ModelCalls,
		Tokens: res.Usage.TotalTokens, Cost: res.Usage.Cost}
	if res.JudgeUsage != nil {
		hr.Tokens += res.JudgeUsage.TotalTokens
		hr.Cost += res.JudgeUsage.Cost
	}
	rep.Heal = hr
	defer func() { hr.Seconds = time.Since(start).Seconds() }()
	if err != nil && res.ExitStatus == "" {
		return fmt.Errorf("heal: %w", err)
	}
	spec, verr := VersionFromRun(ctx, &cfg, saved.Task, saved.StartURL, res)
	if verr != nil {
		hr.Refused = verr.Error()
		rep.Reason += "; the heal did not repair it: " + verr.Error()
		return nil
	}
	changes := library.Changes(saved.Interface, spec.Interface)
	hr.Changes = changes
	if len(changes) > 0 && !o.AllowInterfaceChange {
		hr.Refused = "the repair changes the interface (" + strings.Join(changes, "; ") + "); --allow-interface-change saves it"
		rep.Reason += "; " + hr.Refused
		return nil
	}
	spec.Name, spec.Source, spec.HealedFrom = o.Name, "heal", saved.Version.Version
	spec.InterfaceChange = len(changes) > 0
	if !spec.InterfaceChange {
		spec.Template = saved.Template
	}
	spec.Diff = library.DiffScripts(fmt.Sprintf("v%d/%s", saved.Version.Version, library.ScriptFile), "healed/"+library.ScriptFile, string(script), string(spec.Script))
	newV, err := o.Library.Save(spec)
	if err != nil {
		return fmt.Errorf("heal: %w", err)
	}
	hr.Saved = newV.Version.Version
	// The healed run's answer is the rerun's when it ran on the same
	// inputs; other inputs get a verified rerun of the new version.
	if sameInputs(saved.Interface.Params, p.values) {
		rep.Verified, rep.Reason, rep.ErrorTail = true, "", ""
		rep.Version = newV.Version.Version
		rep.FinalRun = spec.VerifiedRun
		rep.Output = readOutput(spec.VerifiedRun)
		return nil
	}
	return p.rerunHealed(ctx, rep, newV.Version.Version)
}

// healConfig is the rerun's config made a heal's: workspace mode, the heal's
// step and cost limits, a self-reflection that must succeed and a gate that
// reruns the repair.
func (p *Prepared) healConfig() (config.Config, error) {
	o, saved := p.o, p.saved
	cfg := *p.cfg
	if cfg.Agent.Mode != "workspace" {
		return cfg, fmt.Errorf("heal: agent.mode is %s; a heal runs in workspace mode", cfg.Agent.Mode)
	}
	cfg.Agent.StepLimit = DefaultHealSteps
	if o.HealStepLimit > 0 {
		cfg.Agent.StepLimit = o.HealStepLimit
	}
	if o.HealCostLimit > 0 {
		cfg.Agent.CostLimit = o.HealCostLimit
	}
	cfg.Gate.Crafted = saved.Crafted
	cfg.Agent.RequireSelfReflectionSuccess = true
	if cfg.Gate.Mode == "off" {
		cfg.Gate.Mode = "rerun"
	}
	return cfg, nil
}

// healTask is the heal's agent task: the saved task and the brief, seeded
// with the script and the failing rerun's files. It returns the saved
// script too, which the new version's diff starts from.
func (p *Prepared) healTask(rep *Report, startURL string) (harness.Task, []byte, error) {
	saved := p.saved
	script, err := saved.Script()
	if err != nil {
		return harness.Task{}, nil, err
	}
	files := map[string][]byte{gate.FinalScriptName: script}
	seedFailedRun(files, rep.FinalRun)
	files["heal/reason.txt"] = []byte(rep.Reason + "\n")
	task := harness.Task{
		ID:       p.o.Name + "_heal",
		Text:     saved.Task + "\n\n" + healBrief(saved, rep),
		StartURL: startURL,
		Files:    files,
	}
	task.OutputSchema = p.schema
	return task, script, nil
}

// rerunHealed reruns version newV, just saved by the heal, on the rerun's
// own inputs and verification, and makes rep that rerun's report; its
// model use adds to rep's.
func (p *Prepared) rerunHealed(ctx context.Context, rep *Report, newV int) error {
	o := p.o
	again, err := Prepare(Options{Library: o.Library, Name: o.Name, Params: o.Params, Verify: o.Verify,
		OutputDir: o.OutputDir, StartURL: o.StartURL, Config: o.Config, Warn: o.Warn})
	if o.RunDir != "" {
		again.o.RunDir = o.RunDir + "_healed"
	}
	if err != nil {
		return fmt.Errorf("heal: rerun v%d: %w", newV, err)
	}
	again.inner = true
	second, err := again.Run(ctx)
	rep.ModelCalls += second.ModelCalls
	rep.Tokens += second.Tokens
	rep.Cost += second.Cost
	if err != nil {
		return fmt.Errorf("heal: rerun v%d: %w", newV, err)
	}
	rep.Verified, rep.Reason, rep.ErrorTail, rep.Version = second.Verified, second.Reason, second.ErrorTail, second.Version
	rep.FinalRun, rep.Output = second.FinalRun, second.Output
	return nil
}

// sameInputs: every value is its parameter's default.
func sameInputs(params []library.Param, values map[string]any) bool {
	for _, p := range params {
		if fmt.Sprint(values[p.Name]) != fmt.Sprint(p.Default) {
			return false
		}
	}
	return true
}

// seedFailedRun copies the failing rerun's log, result, verdict and
// screenshots into heal/failed_run/.
func seedFailedRun(files map[string][]byte, finalRun string) {
	if finalRun == "" {
		return
	}
	for _, f := range []string{gate.FinalLogName, output.ResultFile, gate.VerdictName} {
		if b, err := os.ReadFile(filepath.Join(finalRun, f)); err == nil {
			files["heal/failed_run/"+f] = b
		}
	}
	shots, _ := gate.RunScreenshots(finalRun)
	for _, s := range shots {
		if b, err := os.ReadFile(s); err == nil {
			files["heal/failed_run/screenshots/"+filepath.Base(s)] = b
		}
	}
}

// healBrief tells the agent what it repairs. Wright's own words: the
// failing run's files are data the agent reads, not text put here.
func healBrief(saved library.Saved, rep *Report) string {
	var params []string
	for _, p := range saved.Interface.Params {
		params = append(params, fmt.Sprintf("%s %s (%s)", p.Flag, p.Name, p.Type))
	}
	iface := "it takes no command-line parameters"
	if len(params) > 0 {
		iface = "its command-line options are " + strings.Join(params, ", ")
	}
	return fmt.Sprintf(`This is a repair. The workspace already holds final_script.py: a saved script (version %d) that did this task and has now stopped working, most likely because the site changed. Its last run failed: see heal/reason.txt, and the run's log, result and screenshots under heal/failed_run/. Find out what changed on the site, then fix final_script.py so that it does the task again from a fresh browser.
Keep its interface exactly: %s; the same run() parameters; and a result of the same shape. Change only what the site's change requires, run the script, and finish as usual once a fresh run of it passes.`, saved.Version.Version, iface)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'), 0o644)
}
