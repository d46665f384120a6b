package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/env/workspace"
	"wright/model"
	"wright/model/modeltest"
	"wright/run/agent"
	"wright/run/gate"
	"wright/run/rundir"
)

// harness is one agent wired to real parts: a pty shell in a fresh run
// directory and the model client over real HTTP to a scripted endpoint.
type harness struct {
	t     *testing.T
	srv   *modeltest.Server
	run   *rundir.Run
	agent *agent.Agent
	shell *workspace.Shell
}

func newHarness(t *testing.T, mc func(*model.Config), responses ...modeltest.Response) *harness {
	t.Helper()
	srv := modeltest.New(t, responses...)
	run, err := rundir.Create(filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.Config{Name: "scripted", BaseURL: srv.URL + "/v1", ActionField: model.FieldBash,
		ResponseFormat: model.FormatJSONSchema, APIKeyEnv: "WRIGHT_TEST_KEY",
		Retry: model.Retry{Attempts: 3, InitialDelaySeconds: 0.01, MaxDelaySeconds: 0.05}}
	t.Setenv("WRIGHT_TEST_KEY", "sk-test-not-a-real-key")
	if mc != nil {
		mc(&cfg)
	}
	client, err := model.New(cfg, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	shell, err := workspace.New(context.Background(), workspace.Options{Dir: run.Workspace, Timeout: 20 * time.Second, OutputLimit: 4000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shell.Close() })
	a := &agent.Agent{
		Config: agent.Config{
			StepLimit: 20, MaxConsecutiveFormatErrors: 3,
			SystemTemplate: "builtin:workspace_system.j2", InstanceTemplate: "builtin:workspace_instance.j2",
			ObservationTemplate: "builtin:workspace_observation.j2", FormatErrorTemplate: "builtin:format_error.j2",
			GateRefusalTemplate: "builtin:gate_refusal.j2",
		},
		Vars:  map[string]any{"workspace": run.Workspace, "command_timeout_seconds": 20},
		Model: client, Env: shell, Gate: gate.Open{}, Dir: run,
	}
	return &harness{t: t, srv: srv, run: run, agent: a, shell: shell}
}

func (h *harness) execute(ctx context.Context) rundir.Result {
	h.t.Helper()
	res, err := h.agent.Execute(ctx, agent.Task{ID: "t1", Text: "find the answer", StartURL: "http://127.0.0.1:1/"})
	if err != nil {
		h.t.Fatalf("Execute: %v", err)
	}
	return res
}

// trajectory reads trajectory.json back from disk.
func (h *harness) trajectory() rundir.Trajectory {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.run.Dir, "trajectory.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	var tr rundir.Trajectory
	if err := json.Unmarshal(b, &tr); err != nil {
		h.t.Fatal(err)
	}
	return tr
}

func (h *harness) savedResult() rundir.Result {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.run.Dir, "result.json"))
	if err != nil {
		h.t.Fatal(err)
	}
	var r rundir.Result
	if err := json.Unmarshal(b, &r); err != nil {
		h.t.Fatal(err)
	}
	return r
}

// lastUserText is the last user message of the i-th request the model got.
func (h *harness) lastUserText(i int) string {
	msgs := h.srv.Requests()[i].Chat().Messages
	return msgs[len(msgs)-1].Text()
}

func wantStatus(t *testing.T, res rundir.Result, status model.ExitStatus) {
	t.Helper()
	if res.ExitStatus != status {
		t.Fatalf("exit status %s (%s), want %s", res.ExitStatus, res.Message, status)
	}
}

func TestSubmitted(t *testing.T) {
	h := newHarness(t, nil,
		modeltest.Bash("write a file", "cd sub 2>/dev/null || mkdir sub && cd sub; echo 42 > answer.txt; pwd").WithUsage(100, 20),
		modeltest.Bash("read it back", "cat answer.txt").WithUsage(150, 20),
		modeltest.Done(model.FieldBash, "finished", "The answer is 42.").WithUsage(200, 10),
	)
	res := h.execute(context.Background())
	wantStatus(t, res, agent.Submitted)
	if res.FinalResponse != "The answer is 42." || res.ModelCalls != 3 {
		t.Errorf("result %+v", res)
	}
	if res.Usage.PromptTokens != 450 || res.Usage.CompletionTokens != 50 {
		t.Errorf("usage %+v", res.Usage)
	}
	if got := h.lastUserText(2); !strings.Contains(got, "42") || !strings.Contains(got, "<returncode>0</returncode>") {
		t.Errorf("the model did not see the output of cat in the persistent cwd:\n%s", got)
	}
	if saved := h.savedResult(); saved.ExitStatus != agent.Submitted || saved.FinalResponse != res.FinalResponse {
		t.Errorf("result.json %+v", saved)
	}
	tr := h.trajectory()
	last := tr.Messages[len(tr.Messages)-1]
	if last.Role != model.RoleExit || last.Meta.ExitStatus != agent.Submitted {
		t.Errorf("last message %+v", last)
	}
	obs := tr.Messages[3].Meta.Observation.Flat()
	for _, k := range []string{"success", "returncode", "timed_out", "cwd", "command_output", "log_path", "elapsed_ms"} {
		if _, ok := obs[k]; !ok {
			t.Errorf("observation lacks %q: %v", k, obs)
		}
	}
	for _, f := range []string{"debug/steps.md", "debug/steps/step_0001.json", "raw_responses.jsonl"} {
		if _, err := os.Stat(filepath.Join(h.run.Dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestFormatErrorRepaired(t *testing.T) {
	h := newHarness(t, nil,
		modeltest.Reply("Sure! I will list the files now."),
		modeltest.Bash("list", "ls"),
		modeltest.Done(model.FieldBash, "ok", "done"),
	)
	wantStatus(t, h.execute(context.Background()), agent.Submitted)
	if got := h.lastUserText(1); !strings.Contains(got, "could not be used") || !strings.Contains(got, "bash_command") {
		t.Errorf("format error message:\n%s", got)
	}
	tr := h.trajectory()
	found := false
	for _, m := range tr.Messages {
		found = found || m.Meta != nil && m.Meta.InterruptType == "FormatError"
	}
	if !found {
		t.Error("no FormatError message in the trajectory")
	}
}

func TestFormatErrorLimit(t *testing.T) {
	h := newHarness(t, nil, modeltest.Reply("no JSON here").Forever())
	res := h.execute(context.Background())
	wantStatus(t, res, agent.FormatErrorLimit)
	if h.srv.Calls() != 3 {
		t.Errorf("%d calls, want 3", h.srv.Calls())
	}
}

func TestFormatErrorsMustBeConsecutive(t *testing.T) {
	bad := modeltest.Reply("{not json")
	h := newHarness(t, nil, bad, bad, modeltest.Bash("fine", "true"), bad, bad, modeltest.Done(model.FieldBash, "ok", "x"))
	wantStatus(t, h.execute(context.Background()), agent.Submitted)
}

func TestTruncatedReplyIsNamed(t *testing.T) {
	h := newHarness(t, nil, modeltest.Reply(`{"thought": "a very long`).WithFinishReason("length"), modeltest.Done(model.FieldBash, "ok", "x"))
	wantStatus(t, h.execute(context.Background()), agent.Submitted)
	if got := h.lastUserText(1); !strings.Contains(strings.ToLower(got), "token limit") && !strings.Contains(strings.ToLower(got), "cut off") {
		t.Errorf("the model was not told its reply was cut off:\n%s", got)
	}
}

func TestDoneWithActionIsDemoted(t *testing.T) {
	h := newHarness(t, nil,
		modeltest.JSON(map[string]any{"thought": "do and finish", "bash_command": "echo ran > ran.txt", "done": true, "final_response": "early"}),
		modeltest.Done(model.FieldBash, "now finish", "late"),
	)
	res := h.execute(context.Background())
	wantStatus(t, res, agent.Submitted)
	if res.FinalResponse != "late" || res.ModelCalls != 2 {
		t.Errorf("demoted done ended the run: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(h.run.Workspace, "ran.txt")); err != nil {
		t.Error("the demoted action did not run")
	}
}

func TestBashSyntaxErrorIsNotRun(t *testing.T) {
	h := newHarness(t, nil,
		modeltest.Bash("broken", "echo started > started.txt\nif then fi"),
		modeltest.Done(model.FieldBash, "ok", "x"),
	)
	wantStatus(t, h.execute(context.Background()), agent.Submitted)
	if _, err := os.Stat(filepath.Join(h.run.Workspace, "started.txt")); err == nil {
		t.Error("a command with a syntax error ran")
	}
	if got := h.lastUserText(1); !strings.Contains(got, "syntax") {
		t.Errorf("the syntax error was not reported:\n%s", got)
	}
}

func TestStepLimit(t *testing.T) {
	h := newHarness(t, nil, modeltest.Bash("again", "true").Forever())
	h.agent.Config.StepLimit = 2
	res := h.execute(context.Background())
	wantStatus(t, res, agent.LimitsExceeded)
	if h.srv.Calls() != 2 || res.ModelCalls != 2 {
		t.Errorf("%d calls", h.srv.Calls())
	}
}

func TestCostLimit(t *testing.T) {
	h := newHarness(t, func(c *model.Config) { c.Price = model.Price{Input: 10, Output: 30} },
		modeltest.Bash("expensive", "true").WithUsage(60000, 1000).Forever())
	h.agent.Config.CostLimit = 1.0
	res := h.execute(context.Background())
	wantStatus(t, res, agent.CostLimitExceeded)
	if h.srv.Calls() != 2 || res.Usage.Cost < 1.0 {
		t.Errorf("calls %d, cost %v", h.srv.Calls(), res.Usage.Cost)
	}
}

func TestServerErrorIsRetried(t *testing.T) {
	h := newHarness(t, nil, modeltest.Status(500), modeltest.Status(503), modeltest.Done(model.FieldBash, "ok", "x"))
	res := h.execute(context.Background())
	wantStatus(t, res, agent.Submitted)
	if h.srv.Calls() != 3 || res.ModelCalls != 1 {
		t.Errorf("server calls %d, model calls %d", h.srv.Calls(), res.ModelCalls)
	}
}

func TestUnauthorizedIsModelError(t *testing.T) {
	h := newHarness(t, nil, modeltest.Error(401, "Incorrect API key provided: sk-te****"))
	res := h.execute(context.Background())
	wantStatus(t, res, agent.ModelError)
	if !strings.Contains(res.Message, "Incorrect API key provided") {
		t.Errorf("endpoint's message not shown: %q", res.Message)
	}
	if h.srv.Calls() != 1 {
		t.Errorf("a 401 was retried: %d calls", h.srv.Calls())
	}
}

func TestEnvironmentError(t *testing.T) {
	h := newHarness(t, nil, modeltest.Bash("run", "echo hi"))
	h.shell.Close()
	res := h.execute(context.Background())
	wantStatus(t, res, agent.EnvironmentError)
	if _, err := os.Stat(filepath.Join(h.run.Dir, "runtime_errors.jsonl")); err != nil {
		t.Error("the environment error was not logged")
	}
}

func TestInterruptedMidCommand(t *testing.T) {
	h := newHarness(t, nil, modeltest.Bash("wait", "echo begun; sleep 30; echo never"))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	start := time.Now()
	res := h.execute(ctx)
	wantStatus(t, res, agent.Interrupted)
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("interrupt took %v", d)
	}
	if h.savedResult().ExitStatus != agent.Interrupted {
		t.Error("result.json does not say Interrupted")
	}
	if tr := h.trajectory(); tr.Messages[len(tr.Messages)-1].Role != model.RoleExit {
		t.Error("trajectory.json does not end with the exit message")
	}
}

func TestGateRefusalThenPass(t *testing.T) {
	h := newHarness(t, nil,
		modeltest.Done(model.FieldBash, "too early", "x"),
		modeltest.Bash("make it pass", "touch ok"),
		modeltest.Done(model.FieldBash, "now", "passed"),
	)
	h.agent.Gate = fileExistsGate{filepath.Join(h.run.Workspace, "ok")}
	res := h.execute(context.Background())
	wantStatus(t, res, agent.Submitted)
	if got := h.lastUserText(1); !strings.Contains(got, "was refused") || !strings.Contains(got, "touch ok") {
		t.Errorf("refusal text:\n%s", got)
	}
}

// fileExistsGate passes once a file exists: a gate with real file-system
// state, smaller than the self-reflection gate, which has its own tests.
type fileExistsGate struct{ path string }

func (g fileExistsGate) Check(context.Context) (gate.Verdict, error) {
	if _, err := os.Stat(g.path); err != nil {
		return gate.Verdict{Message: "the file ok is missing: run `touch ok`"}, nil
	}
	return gate.Verdict{Pass: true}, nil
}

func TestCompactionAtNAnd2N(t *testing.T) {
	h := newHarness(t, nil,
		modeltest.Bash("one", "echo first"), modeltest.Bash("two", "echo second"),
		modeltest.Reply("SUMMARY-ONE: printed first and second."),
		modeltest.Bash("three", "echo third"), modeltest.Bash("four", "echo fourth"),
		modeltest.Reply("SUMMARY-TWO: printed four lines."),
		modeltest.Done(model.FieldBash, "finish", "ok"),
	)
	h.agent.Config.SummaryEveryNSteps = 2
	h.agent.Config.SummaryUserPrompt = "builtin:summary_workspace.j2"
	res := h.execute(context.Background())
	wantStatus(t, res, agent.Submitted)
	if res.Compactions != 2 || res.ModelCalls != 5 {
		t.Fatalf("compactions %d, model calls %d", res.Compactions, res.ModelCalls)
	}
	reqs := h.srv.Requests()
	for i, want := range map[int]string{3: "SUMMARY-ONE", 6: "SUMMARY-TWO"} {
		msgs := reqs[i].Chat().Messages
		if len(msgs) != 3 || msgs[0].Role != "system" || !strings.Contains(msgs[1].Text(), "find the answer") || !strings.Contains(msgs[2].Text(), want) {
			t.Errorf("request %d after compaction: %d messages, want system + task + %s", i, len(msgs), want)
		}
	}
	tr := h.trajectory()
	var texts []string
	for _, m := range tr.Messages {
		texts = append(texts, m.Content)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"first", "second", "third", "fourth", "SUMMARY-ONE", "SUMMARY-TWO"} {
		if !strings.Contains(all, want) {
			t.Errorf("trajectory.json lost %q", want)
		}
	}
	md, _ := os.ReadFile(filepath.Join(h.run.Dir, "debug", "steps.md"))
	if !strings.Contains(string(md), "History compacted at step 2 (") || !strings.Contains(string(md), "History compacted at step 4 (") {
		t.Errorf("steps.md does not record the compactions:\n%s", md)
	}
}

func TestFailedSummaryLeavesTheRunGoing(t *testing.T) {
	for name, bad := range map[string]modeltest.Response{
		"empty":  modeltest.Reply("   "),
		"status": modeltest.Error(400, "summary refused"),
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, nil, modeltest.Bash("one", "echo first"), bad, modeltest.Done(model.FieldBash, "finish", "ok"))
			h.agent.Config.SummaryEveryNSteps = 1
			h.agent.Config.SummaryUserPrompt = "builtin:summary_workspace.j2"
			res := h.execute(context.Background())
			wantStatus(t, res, agent.Submitted)
			if res.Compactions != 0 {
				t.Errorf("compactions %d", res.Compactions)
			}
			if msgs := h.srv.Requests()[2].Chat().Messages; len(msgs) != 4 {
				t.Errorf("history changed after a failed summary: %d messages", len(msgs))
			}
			b, _ := os.ReadFile(filepath.Join(h.run.Dir, "runtime_errors.jsonl"))
			if !strings.Contains(string(b), `"compaction"`) {
				t.Errorf("the failure was not logged: %s", b)
			}
		})
	}
}

func TestCompactionByTokens(t *testing.T) {
	h := newHarness(t, nil,
		modeltest.Bash("one", "echo first").WithUsage(50000, 10),
		modeltest.Reply("SUMMARY"),
		modeltest.Done(model.FieldBash, "finish", "ok").WithUsage(900, 10),
	)
	h.agent.Config.CompactAtTokens = 40000
	h.agent.Config.SummaryUserPrompt = "builtin:summary_workspace.j2"
	res := h.execute(context.Background())
	wantStatus(t, res, agent.Submitted)
	if res.Compactions != 1 || len(res.PromptTokensPerStep) != 2 || res.PromptTokensPerStep[0] != 50000 {
		t.Errorf("compactions %d, prompt tokens %v", res.Compactions, res.PromptTokensPerStep)
	}
}

func TestWorkspaceOutputPruning(t *testing.T) {
	h := newHarness(t, nil,
		modeltest.Bash("one", "yes OUTPUT-ONE | head -300"),
		modeltest.Bash("two", "yes OUTPUT-TWO | head -300"),
		modeltest.Bash("three", "yes OUTPUT-THREE | head -300"),
		modeltest.Done(model.FieldBash, "finish", "ok"),
	)
	h.agent.Config.KeepLastNObservations = 2
	wantStatus(t, h.execute(context.Background()), agent.Submitted)
	msgs := h.srv.Requests()[3].Chat().Messages
	var joined strings.Builder
	for _, m := range msgs {
		joined.WriteString(m.Text())
	}
	text := joined.String()
	if strings.Count(text, "OUTPUT-ONE") > 1 { // once: the command itself
		t.Error("the oldest output was sent in full")
	}
	if !strings.Contains(text, "logs/step_0001.log") {
		t.Errorf("the placeholder does not name the log:\n%s", text)
	}
	if strings.Count(text, "OUTPUT-TWO") < 300 || strings.Count(text, "OUTPUT-THREE") < 300 {
		t.Error("the latest observations were touched")
	}
	if b, err := os.ReadFile(filepath.Join(h.run.Workspace, "logs", "step_0001.log")); err != nil || strings.Count(string(b), "OUTPUT-ONE") != 300 {
		t.Errorf("the log lost the pruned output: %v", err)
	}
}

func TestStepsRemainingNotices(t *testing.T) {
	h := newHarness(t, nil, modeltest.Bash("again", "true").Forever())
	h.agent.Config.StepLimit = 6
	wantStatus(t, h.execute(context.Background()), agent.LimitsExceeded)
	var notices []string
	for _, m := range h.trajectory().Messages {
		if m.Meta != nil && m.Meta.InterruptType == "SystemNotice" {
			notices = append(notices, m.Content)
		}
	}
	if len(notices) != 2 || !strings.Contains(notices[0], "5 steps remain") || !strings.Contains(notices[1], "2 steps remain") {
		t.Errorf("notices: %q", notices)
	}
}

// A megabyte of one character used to freeze the run in the tokenizer (and
// SIGINT with it). It is a format error now, and the history keeps only its
// head; how long it takes is a benchmark figure, not an assertion.
func TestHugeReplyIsAFormatError(t *testing.T) {
	h := newHarness(t, nil, modeltest.Reply(strings.Repeat("a", 1<<20)).Forever())
	res := h.execute(context.Background())
	wantStatus(t, res, agent.FormatErrorLimit)
	if !strings.Contains(res.Message, "over the limit") {
		t.Errorf("exit message does not name the size: %s", res.Message)
	}
	for i, r := range h.srv.Requests() {
		if n := len(r.Body); n > 200<<10 {
			t.Errorf("request %d is %d bytes: the huge reply was sent back", i, n)
		}
	}
}

// What the judge spends inside the run (reflect through the harness, the
// key proxy) counts toward the cost limit.
func TestJudgeSpendingCountsTowardCostLimit(t *testing.T) {
	h := newHarness(t, nil, modeltest.Bash("cheap", "true").Forever())
	h.agent.Config.CostLimit = 1.0
	calls := 0
	h.agent.JudgeUsage = func() model.Usage {
		calls++
		if calls > 2 {
			return model.Usage{TotalTokens: 5000, Cost: 1.5}
		}
		return model.Usage{}
	}
	res := h.execute(context.Background())
	wantStatus(t, res, agent.CostLimitExceeded)
	if res.JudgeUsage == nil || res.JudgeUsage.Cost != 1.5 {
		t.Errorf("result.json judge_usage %+v", res.JudgeUsage)
	}
}

// What the model client sends, call after call, extends the call before
// it, except where a block of observations was pruned or the history was
// compacted (the summary call itself extends the call before it).
func TestPromptsExtendEachOtherBetweenBlocks(t *testing.T) {
	const steps, every = 12, 8
	var responses []modeltest.Response
	for i := 1; i <= steps; i++ {
		responses = append(responses, modeltest.Bash(fmt.Sprint("step ", i), fmt.Sprintf("yes OUTPUT-%d | head -200", i)))
		if i == every {
			responses = append(responses, modeltest.Reply("SUMMARY: printed lines."))
		}
	}
	responses = append(responses, modeltest.Done(model.FieldBash, "finish", "ok"))
	h := newHarness(t, nil, responses...)
	h.agent.Config.KeepLastNObservations = 1
	h.agent.Config.PruneBlock = 3
	h.agent.Config.SummaryEveryNSteps = every
	h.agent.Config.SummaryUserPrompt = "builtin:summary_workspace.j2"
	wantStatus(t, h.execute(context.Background()), agent.Submitted)

	var prev string
	var breaks []int
	for i, r := range h.srv.Requests() {
		var b strings.Builder
		for _, m := range r.Chat().Messages {
			b.WriteString(m.Role + "\x00" + m.Text() + "\x00")
		}
		cur := b.String()
		if i > 0 && !strings.HasPrefix(cur, prev) {
			breaks = append(breaks, i)
		}
		prev = cur
	}
	// Requests 0-7 are steps 1-8, 8 the summary, 9-12 steps 9-12, 13 the
	// done. Observations fall out of the last one from step 2 on, so a
	// block of 3 is pruned before requests 4 and 7; request 9 follows the
	// compaction; after it, the block is due again three observations on.
	want := []int{4, 7, 9, 13}
	if fmt.Sprint(breaks) != fmt.Sprint(want) {
		t.Errorf("prompts break at requests %v, want %v", breaks, want)
	}
}
