package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"wright/library"
	"wright/library/rerun"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/rundir"
)

// How an attempt was served (results.jsonl's via).
const (
	ViaRerun = "rerun" // a verified rerun of the task's library script
	ViaHeal  = "heal"  // a rerun that failed, repaired by a heal
	ViaAgent = "agent" // an ordinary agent run
)

// Reuse makes a bench use the script library: a task that names a script
// runs as a verified rerun first, falls back to a heal (Heal) and then to
// an agent run; with Save, an agent run that passes the gate is saved
// under its task id.
type Reuse struct {
	Library *library.Library
	Heal    bool
	Save    bool
}

// decodeScript reads a task's "script" and "params".
func decodeScript(m map[string]json.RawMessage, t *Task) error {
	if v, ok := m["script"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &t.Script); err != nil {
			return fmt.Errorf("script: want a library script's name: %v", err)
		}
		if err := library.CheckName(t.Script); err != nil {
			return fmt.Errorf("script: %v", err)
		}
	}
	if v, ok := m["params"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &t.Params); err != nil {
			return fmt.Errorf("params: want an object of the script's inputs: %v", err)
		}
		if t.Script == "" {
			return errors.New("params without a script")
		}
	}
	return nil
}

// paramArgs writes a task's params as --param takes them, in a stable order.
func paramArgs(params map[string]any) []string {
	var out []string
	for k, v := range params {
		var s string
		switch x := v.(type) {
		case string:
			s = x
		case float64:
			s = strconv.FormatFloat(x, 'f', -1, 64)
		default:
			b, _ := json.Marshal(v)
			s = string(b)
		}
		out = append(out, k+"="+s)
	}
	sort.Strings(out)
	return out
}

// reuseScript runs the attempt as a verified rerun of its script. done is
// true when the rerun (or its heal) served the attempt; otherwise spent is
// what the failed try cost, to be added to the agent run's record.
func (x *HarnessExecutor) reuseScript(ctx context.Context, cfg *config.Config, a Attempt) (rec Record, done bool, spent Record) {
	warn := func(format string, args ...any) {
		if x.Warn != nil {
			x.Warn(fmt.Sprintf("%s: ", a.Task.ID) + fmt.Sprintf(format, args...))
		}
	}
	p, err := rerun.Prepare(rerun.Options{Library: x.Reuse.Library, Name: a.Task.Script, Params: paramArgs(a.Task.Params),
		Config: cfg, Heal: x.Reuse.Heal, Warn: x.Warn})
	if err != nil {
		if !errors.Is(err, library.ErrNotFound) && !strings.Contains(err.Error(), library.ErrNotFound.Error()) {
			warn("script %s cannot be rerun (%v): an agent run does the task", a.Task.Script, err)
		}
		return Record{}, false, Record{}
	}
	rep, err := p.Run(ctx)
	spent = Record{Cost: rep.Cost, Tokens: rep.Tokens, Seconds: rep.Seconds}
	if rep.Heal != nil {
		spent.Cost += rep.Heal.Cost
		spent.Tokens += rep.Heal.Tokens
		spent.Steps = rep.Heal.ModelCalls
	}
	if err != nil || !rep.Verified {
		if err != nil {
			warn("the rerun of %s failed: %v", a.Task.Script, err)
		}
		return Record{}, false, spent
	}
	one := 1
	rec = spent
	rec.Via, rec.ScriptVersion = ViaRerun, rep.Version
	if rep.Heal != nil && rep.Heal.Saved > 0 {
		rec.Via = ViaHeal
	}
	rec.ExitStatus, rec.GateLabel = string(agent.Submitted), &one
	if rep.Output != nil {
		b, _ := json.Marshal(rep.Output)
		rec.FinalResponse = string(b)
	}
	rec.AgentCost = madeCost(p.Saved())
	// The bench's attempt folder points at the rerun folder, which stays
	// where the script's history names it.
	if err := os.Symlink(rep.RunDir, a.RunDir); err != nil {
		warn("link the rerun folder: %v", err)
	}
	final := Final{ExitStatus: rec.ExitStatus, Response: rec.FinalResponse, GateLabel: rec.GateLabel, RunDir: rep.RunDir, Config: cfg}
	if a.Task.Eval.NeedsPage() {
		final.PageErr = "a rerun's final page is not kept for page checks (js, url)"
	}
	v := Score(ctx, a.Task, final)
	rec.Passed, rec.Evals, rec.Unscored = v.Passed, v.Evals, v.Unscored
	rec.Cost += v.Usage.Cost
	rec.Tokens += v.Usage.TotalTokens
	return rec, true, Record{}
}

// madeCost is what the agent run that made a version cost (its model and
// its judge), when that run's result.json is still there.
func madeCost(v library.Saved) *float64 {
	if v.RunDir == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(v.RunDir, "result.json"))
	if err != nil {
		return nil
	}
	var res rundir.Result
	if json.Unmarshal(b, &res) != nil {
		return nil
	}
	c := res.Usage.Cost
	if res.JudgeUsage != nil {
		c += res.JudgeUsage.Cost
	}
	return &c
}

// saveScript keeps an agent run that passed the gate in the library under
// its task id (--save-scripts).
func (x *HarnessExecutor) saveScript(ctx context.Context, cfg *config.Config, a Attempt, res rundir.Result) {
	name := a.Task.Script
	if name == "" {
		name = a.Task.ID
	}
	spec, err := rerun.VersionFromRun(ctx, cfg, a.Task.Text, a.Task.StartURL, res)
	if err != nil {
		return // not a run that passed: nothing to keep
	}
	if err := library.CheckName(name); err != nil {
		if x.Warn != nil {
			x.Warn(fmt.Sprintf("%s: not saved in the library: %v", a.Task.ID, err))
		}
		return
	}
	spec.Name, spec.Source = name, "run"
	if _, err := x.Reuse.Library.Save(spec); err != nil && x.Warn != nil {
		x.Warn(fmt.Sprintf("%s: not saved in the library: %v", a.Task.ID, err))
	}
}
