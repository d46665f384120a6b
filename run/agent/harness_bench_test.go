package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"wright/env/workspace"
	"wright/model"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/gate"
	"wright/run/rundir"
)

// recordedSteps is how many steps the recorded run takes before its done.
const recordedSteps = 40

// reply is a recorded action, its fields in the order the model writes them.
type reply struct {
	Thought string `json:"thought"`
	Command string `json:"bash_command"`
	Done    bool   `json:"done"`
	Final   string `json:"final_response"`
}

// writeRecording writes a replay file of recordedSteps bash steps and a
// done. The commands print what a real exploration's do, from a line to
// the observation's whole budget (seq and a listing), so that rendering,
// counting and pruning see observations of every size.
func writeRecording(tb testing.TB, dir string) string {
	tb.Helper()
	var lines []byte
	for i := range recordedSteps {
		cmd := fmt.Sprintf("echo step %d; pwd", i)
		switch i % 4 {
		case 1:
			cmd = fmt.Sprintf("seq 1 %d", 200+i*40) // 1 to 11 kB: the later ones are cut to the budget
		case 2:
			cmd = "ls -la /usr/bin | head -n 60"
		case 3:
			cmd = fmt.Sprintf("printf 'line %%s of a file\\n' $(seq 1 %d) > notes_%d.txt; wc -l notes_%d.txt", 20+i, i, i)
		}
		b, _ := json.Marshal(reply{Thought: fmt.Sprintf("Step %d: look at what the last command showed and go on.", i), Command: cmd})
		lines = append(append(lines, b...), '\n')
	}
	b, _ := json.Marshal(reply{Thought: "Finished.", Done: true, Final: "All steps done."})
	lines = append(append(lines, b...), '\n')
	path := filepath.Join(dir, "replies.jsonl")
	if err := os.WriteFile(path, lines, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// recordedRun runs the recorded 40-step run once: the replay model, a real
// pty shell in a fresh run directory, the built-in workspace config
// (pruning, the tokenizer of the default model, summaries every 20 steps
// off: a replay has no summary to give). It returns result.json.
func recordedRun(tb testing.TB, base, replies string) rundir.Result {
	tb.Helper()
	cfg, err := config.Load(nil, map[string]any{"agent.summary_every_n_steps": 0, "agent.require_self_reflection_success": false})
	if err != nil {
		tb.Fatal(err)
	}
	run, err := rundir.Create(filepath.Join(base, fmt.Sprintf("run-%d", time.Now().UnixNano())))
	if err != nil {
		tb.Fatal(err)
	}
	client, err := model.New(model.Config{Name: model.ReplayPrefix + replies, ActionField: model.FieldBash}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	shell, err := workspace.New(ctx, workspace.Options{Dir: run.Workspace, Timeout: 20 * time.Second,
		OutputLimit: cfg.Env.OutputTruncationChars})
	if err != nil {
		tb.Fatal(err)
	}
	defer shell.Close()
	a := &agent.Agent{Config: cfg.Agent, Model: client, Env: shell, Gate: gate.Open{}, Dir: run, ModelName: cfg.Model.Name,
		Vars: map[string]any{"workspace": run.Workspace, "mode": cfg.Agent.Mode, "command_timeout_seconds": cfg.Env.CommandTimeoutSeconds}}
	res, err := a.Execute(ctx, agent.Task{ID: "recorded", Text: "Run the recorded steps.", StartURL: "http://127.0.0.1:1/"})
	if err != nil {
		tb.Fatal(err)
	}
	if res.ExitStatus != agent.Submitted || res.Steps != recordedSteps+1 {
		tb.Fatalf("the recorded run ended %s after %d steps (%s), want Submitted after %d", res.ExitStatus, res.Steps, res.Message, recordedSteps+1)
	}
	return res
}

// TestHarnessTimePerStep: result.json has one own time per turn, each
// short of the turn's whole (the model's and the environment's time are
// not in it).
func TestHarnessTimePerStep(t *testing.T) {
	dir := t.TempDir()
	res := recordedRun(t, dir, writeRecording(t, dir))
	if len(res.HarnessMsPerStep) != res.Steps {
		t.Fatalf("%d own times for %d steps", len(res.HarnessMsPerStep), res.Steps)
	}
	var own float64
	for i, ms := range res.HarnessMsPerStep {
		if ms <= 0 {
			t.Errorf("step %d: own time %v ms", i+1, ms)
		}
		own += ms / 1000
	}
	t.Logf("own ms per step: %v", res.HarnessMsPerStep)
	if own >= res.Seconds-res.EnvSeconds {
		t.Errorf("own time %.3f s is not less than the run's %.3f s less the environment's %.3f s", own, res.Seconds, res.EnvSeconds)
	}
}

// BenchmarkHarnessStep reports the harness's own time per turn of the
// recorded 40-step run (median and 95th percentile over every turn of
// every run), and the run's whole time less the environment's.
func BenchmarkHarnessStep(b *testing.B) {
	dir := b.TempDir()
	replies := writeRecording(b, dir)
	var all []float64
	var rest float64
	for b.Loop() {
		res := recordedRun(b, dir, replies)
		all = append(all, res.HarnessMsPerStep...)
		rest += res.Seconds - res.EnvSeconds - res.ModelSeconds
	}
	slices.Sort(all)
	b.ReportMetric(all[len(all)/2], "ms/step-median")
	b.ReportMetric(all[min(len(all)-1, len(all)*95/100)], "ms/step-p95")
	b.ReportMetric(rest/float64(b.N)*1000, "ms/run-own")
	b.ReportMetric(0, "ns/op")
}
