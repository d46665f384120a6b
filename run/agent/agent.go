// Package agent is wright's loop: ask the model for one action, run it, show
// it the observation, until an exit message ends the run.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"wright/env"
	"wright/model"
	"wright/run/compact"
	"wright/run/gate"
	"wright/run/output"
	"wright/run/rundir"
	"wright/run/templates"
)

// Exit statuses. Each ends the run as a message of role "exit".
const (
	Submitted         model.ExitStatus = "Submitted"
	LimitsExceeded    model.ExitStatus = "LimitsExceeded"
	CostLimitExceeded model.ExitStatus = "CostLimitExceeded"
	FormatErrorLimit  model.ExitStatus = "FormatErrorLimit"
	ModelError        model.ExitStatus = "ModelError"
	EnvironmentError  model.ExitStatus = "EnvironmentError"
	Interrupted       model.ExitStatus = "Interrupted"
)

// Config is the loop's section of the configuration (agent.* in the YAML),
// decoded straight into this type.
type Config struct {
	// Mode picks the environment (workspace or browser); recorded in
	// result.json.
	Mode                       string  `mapstructure:"mode"`
	StepLimit                  int     `mapstructure:"step_limit"`
	CostLimit                  float64 `mapstructure:"cost_limit"`
	MaxConsecutiveFormatErrors int     `mapstructure:"max_consecutive_format_errors"`
	// RequireSelfReflectionSuccess asks the harness for a gate that needs a
	// judge-approved final run; the loop asks whatever gate it is given.
	RequireSelfReflectionSuccess bool `mapstructure:"require_self_reflection_success"`
	// Context control (docs/context.md): observations older than the last
	// KeepLastNObservations lose their bulky parts; every SummaryEveryNSteps
	// calls, or when a prompt passes CompactAtTokens, the history is
	// compacted with SummaryUserPrompt. Zero turns each off.
	SummaryEveryNSteps    int `mapstructure:"summary_every_n_steps"`
	CompactAtTokens       int `mapstructure:"compact_at_tokens"`
	KeepLastNObservations int `mapstructure:"keep_last_n_observations"`
	// PruneBlock is how many observations pruning waits for before it
	// prunes them together, so the prompt changes before its end only
	// every PruneBlock steps (compact.PruneBlocks); 0 or 1 prunes each as
	// soon as it falls out of the last KeepLastNObservations.
	PruneBlock int `mapstructure:"prune_block"`
	// The prompts: a template text or builtin:<name>.
	SystemTemplate      string `mapstructure:"system_template"`
	InstanceTemplate    string `mapstructure:"instance_template"`
	ObservationTemplate string `mapstructure:"observation_template"`
	FormatErrorTemplate string `mapstructure:"format_error_template"`
	GateRefusalTemplate string `mapstructure:"gate_refusal_template"`
	SummaryUserPrompt   string `mapstructure:"summary_user_prompt"`
	// OutputSchema is the JSON Schema the final result must satisfy: a
	// file path, or the schema itself as a mapping. config.Load reads it
	// from the layers directly, like env.env: viper lowercases map keys,
	// and a schema's property names are case-sensitive. The harness
	// compiles it with output.FromConfig into Agent.OutputSchema.
	OutputSchema any `mapstructure:"-"`
}

// Task is what the user asked for.
type Task struct {
	ID       string
	Text     string
	StartURL string
	// OutputSchema, when set, is this task's own result contract (a bench
	// task's output_schema); it wins over Agent.OutputSchema.
	OutputSchema *output.Schema
	// Files are put into the workspace before the first step, by path
	// relative to it: a heal's current script and the failing rerun's
	// files (`wright heal`).
	Files map[string][]byte
}

// Agent runs one task. Create it with its parts, call Execute once.
type Agent struct {
	Config Config
	Model  model.Client
	Env    env.Environment
	Gate   gate.Gate
	// Dir is the run directory everything is written to as it happens.
	Dir *rundir.Run
	// What the loop needs from beyond its config section:
	// AttachScreenshot sends an observation's screenshot to the model as
	// an image (model.attach_observation_screenshot); ModelName is recorded
	// in result.json and picks the tokenizer; Vars are extra template
	// variables (workspace, timeouts, ...).
	AttachScreenshot bool
	ModelName        string
	Vars             map[string]any
	// OutputSchema, when set, is the contract for final_response: a done
	// whose final_response is not JSON valid against it is a format error.
	// The templates get its text as output_schema.
	OutputSchema *output.Schema
	// Observer, when set, hears the run's progress (steps, refusals,
	// compactions).
	Observer Observer
	// JudgeUsage, when set, reports what the judge has spent so far outside
	// the loop (`wright reflect`, `wright image-qa` inside the run): it
	// counts toward the cost limit.
	JudgeUsage func() model.Usage
	// Redact, when set, rewrites every text the model is sent (secret
	// values become their placeholders); what is sent is also what the
	// run's files keep.
	Redact func(string) string
	// Begun, when set, is when the run began, before its environment
	// started: result.json's start_seconds is the time from then to the
	// loop's start.
	Begun time.Time

	kind         env.Kind
	tpl          templates.Set
	messages     []model.Message
	calls        int
	usage        model.Usage
	formatErrors int
	promptTokens []int
	// estimated adds up the prompt estimates of the calls whose endpoint
	// reported no usage.
	estimated   int
	compactions []compact.Record
	// archived holds the messages compactions took out of the context, in
	// order, so that trajectory.json still has every message.
	archived  []model.Message
	tokenizer compact.Tokenizer
	// counting is closed when the count of the newest observation, made
	// beside the step's files (countAhead), is done; nil when none runs.
	counting  chan struct{}
	compactor *compact.Compactor
	started   time.Time
	task      Task
	// modelTime and envTime are the time spent inside model calls and
	// inside the environment's steps, so the rest of a run's time is the
	// harness's own (docs/performance.md measures it). gateTime is the
	// time inside the completion gate (its final runs and judge), and
	// compactTime inside compactions (a model call): neither is the
	// loop's own.
	modelTime, envTime, gateTime, compactTime time.Duration
	// harnessMs is each turn's own time in milliseconds: the turn's wall
	// time less the model's, the environment's, the gate's and the
	// compaction's (result.json's harness_ms_per_step).
	harnessMs []float64
	// verdict is the gate's last answer that carried a judge's label.
	verdict *gate.Verdict
	// output is the parsed final_response of the last done, when it
	// satisfied OutputSchema; nil otherwise.
	output any
}

// interruption ends a step early: its messages are appended instead of
// the step's normal result (a format error, a gate refusal, an exit).
type interruption struct{ msgs []model.Message }

func (f *interruption) Error() string { return "agent step interrupted" }

func exitMsg(status model.ExitStatus, text string) *interruption {
	return &interruption{[]model.Message{{Role: model.RoleExit, Content: text, Meta: &model.Meta{ExitStatus: status}}}}
}

// interrupt is one user message of the loop's own, in place of an
// observation.
func (a *Agent) interrupt(kind, text string) *interruption {
	return &interruption{[]model.Message{{Role: model.RoleUser, Content: text,
		Meta: &model.Meta{InterruptType: kind, Step: a.calls}}}}
}

// Execute runs the loop to its end and returns result.json's content. The
// error is non-nil only when the run's files could not be written.
func (a *Agent) Execute(ctx context.Context, task Task) (rundir.Result, error) {
	a.started = time.Now()
	a.task = task
	if task.OutputSchema != nil {
		a.OutputSchema = task.OutputSchema
	}
	a.kind = a.Env.Kind()
	a.emit(Event{Kind: RunStarted})
	vars := a.vars(map[string]any{"task": task.Text, "start_url": task.StartURL, "task_id": task.ID})
	system, err := a.tpl.Render(a.Config.SystemTemplate, vars)
	if err != nil {
		return rundir.Result{}, err
	}
	instance, err := a.tpl.Render(a.Config.InstanceTemplate, vars)
	if err != nil {
		return rundir.Result{}, err
	}
	a.messages = []model.Message{
		{Role: model.RoleSystem, Content: system},
		{Role: model.RoleUser, Content: instance, Meta: &model.Meta{Task: true}},
	}
	a.tokenizer = compact.NewTokenizer(a.ModelName)
	if a.Config.SummaryEveryNSteps > 0 || a.Config.CompactAtTokens > 0 {
		prompt, err := a.tpl.Render(a.Config.SummaryUserPrompt, vars)
		if err != nil {
			return rundir.Result{}, err
		}
		a.compactor = &compact.Compactor{Client: a.Model, Prompt: prompt, Tokenizer: a.tokenizer}
	}
	var saveErr error
	for {
		turn := time.Now()
		spent := a.modelTime + a.envTime + a.gateTime + a.compactTime
		err := a.step(ctx)
		var f *interruption
		switch {
		case err == nil:
		case errors.As(err, &f):
			a.messages = append(a.messages, f.msgs...)
		default:
			a.messages = append(a.messages, exitMsg(EnvironmentError, err.Error()).msgs...)
		}
		if err := a.saveTrajectory(); err != nil && saveErr == nil {
			saveErr = err
		}
		if a.last().Role == model.RoleExit {
			a.noteTurn(turn, spent)
			break
		}
		a.maybeCompact(ctx)
		a.noteTurn(turn, spent)
	}
	a.waitCount()
	// Files the environment still writes for the last step (live mode's
	// screenshot) belong to the run before result.json does.
	a.flushEnv()
	res := a.result(task)
	_ = a.Dir.Note(fmt.Sprintf("Exit: %s after %d model calls", res.ExitStatus, res.ModelCalls))
	if err := a.Dir.WriteJSON("result.json", res); err != nil && saveErr == nil {
		saveErr = err
	}
	a.emit(Event{Kind: RunEnded, Status: string(res.ExitStatus), Message: firstLine(res.Message)})
	return res, saveErr
}

// redactHistory applies Redact to every message before the model sees
// it. Messages already clean are left as they are, so this is cheap after
// the first pass over them.
func (a *Agent) redactHistory() {
	if a.Redact == nil {
		return
	}
	for i := range a.messages {
		a.messages[i].Content = a.Redact(a.messages[i].Content)
	}
}

func (a *Agent) judgeUsage() model.Usage {
	if a.JudgeUsage == nil {
		return model.Usage{}
	}
	return a.JudgeUsage()
}

func (a *Agent) last() model.Message { return a.messages[len(a.messages)-1] }

// step is one turn: query the model, then execute what it asked for.
func (a *Agent) step(ctx context.Context) (err error) {
	ctx, span := a.startStepSpan(ctx)
	defer func() { endStepSpan(span, err) }()
	action, err := a.query(ctx)
	if err != nil {
		return err
	}
	return a.execute(ctx, action)
}

func (a *Agent) query(ctx context.Context) (model.Action, error) {
	if ctx.Err() != nil {
		return model.Action{}, exitMsg(Interrupted, "interrupted before model call")
	}
	if a.calls >= a.Config.StepLimit {
		return model.Action{}, exitMsg(LimitsExceeded, fmt.Sprintf("step limit of %d model calls reached", a.Config.StepLimit))
	}
	if spent := a.usage.Cost + a.judgeUsage().Cost; a.Config.CostLimit > 0 && spent >= a.Config.CostLimit {
		return model.Action{}, exitMsg(CostLimitExceeded, fmt.Sprintf("cost limit $%.4f reached ($%.4f spent, the judge's calls included)", a.Config.CostLimit, spent))
	}
	// The endpoint's count wins when it reports one; the estimate covers
	// endpoints that report none.
	a.waitCount()
	estimate := compact.CountMessages(a.tokenizer, a.messages)
	a.redactHistory()
	called := time.Now()
	reply, err := a.Model.Complete(ctx, a.messages)
	a.modelTime += time.Since(called)
	if err != nil {
		a.Dir.RuntimeError(a.calls+1, "model", err)
		if ctx.Err() != nil {
			return model.Action{}, exitMsg(Interrupted, "interrupted during model call")
		}
		return model.Action{}, exitMsg(ModelError, err.Error())
	}
	a.calls++
	a.usage = a.usage.Add(reply.Usage)
	prompt := reply.Usage.PromptTokens
	if prompt == 0 {
		prompt = estimate
		a.estimated += estimate
	}
	a.promptTokens = append(a.promptTokens, prompt)
	_ = a.Dir.AppendJSONL("raw_responses.jsonl", map[string]any{"step": a.calls, "finish_reason": reply.FinishReason, "usage": reply.Usage, "content": reply.Content, "raw": rawJSON(reply.Raw)})
	usage := reply.Usage
	a.messages = append(a.messages, model.Message{Role: model.RoleAssistant, Content: capReply(reply.Content),
		Meta: &model.Meta{Step: a.calls, Usage: &usage, PromptTokens: prompt, FinishReason: reply.FinishReason}})

	action, err := model.ParseAction(reply.Content, reply.FinishReason, a.kind.Field)
	if err == nil && action.Code != "" && a.kind.Check != nil {
		err = a.kind.Check(ctx, action.Code)
	}
	if err == nil && action.Done {
		err = a.checkOutput(action.FinalResponse)
	}
	if err != nil {
		return action, a.formatError(err)
	}
	a.formatErrors = 0
	return action, nil
}

// checkOutput holds a done to the output schema before the gate is asked:
// a result that breaks the contract is an unusable reply, whatever the
// screenshots show.
func (a *Agent) checkOutput(finalResponse string) error {
	a.output = nil
	if a.OutputSchema == nil {
		return nil
	}
	v, problems := a.OutputSchema.Validate(finalResponse)
	if len(problems) > 0 {
		return fmt.Errorf("\"final_response\" must be a JSON value valid against the output schema, and it is not:\n%s\nPut the corrected JSON value, as a string, in \"final_response\"", output.Describe(problems))
	}
	a.output = v
	return nil
}

func (a *Agent) formatError(err error) error {
	a.formatErrors++
	a.Dir.RuntimeError(a.calls, "format", err)
	a.writeStep(model.Action{}, nil, "Format error: "+err.Error())
	reply := ""
	if m := a.lastAssistant(); m != nil {
		reply = firstLines(m.Content, 3)
	}
	a.emit(Event{Kind: FormatError, Message: firstLine(err.Error()), Reply: reply})
	if a.formatErrors >= a.Config.MaxConsecutiveFormatErrors {
		return exitMsg(FormatErrorLimit, fmt.Sprintf("%d unusable replies in a row; the last: %v", a.formatErrors, err))
	}
	text, rerr := a.tpl.Render(a.Config.FormatErrorTemplate, a.vars(map[string]any{"error": err.Error()}))
	if rerr != nil {
		return rerr
	}
	return a.interrupt("FormatError", text)
}

func (a *Agent) execute(ctx context.Context, action model.Action) error {
	a.progressAction(action)
	if action.Done {
		gctx, span := a.startGateSpan(ctx)
		checking := time.Now()
		verdict, err := a.Gate.Check(gctx)
		a.gateTime += time.Since(checking)
		endGateSpan(span, verdict, err)
		if verdict.Label != nil {
			a.verdict = &verdict
		}
		if err != nil {
			a.Dir.RuntimeError(a.calls, "gate", err)
			if ctx.Err() != nil {
				return exitMsg(Interrupted, "interrupted while checking completion")
			}
			verdict.Message = "the completion check failed: " + err.Error()
		}
		if verdict.Pass && err == nil {
			a.writeStep(action, nil)
			f := exitMsg(Submitted, action.FinalResponse)
			f.msgs[0].Meta.FinalResponse = action.FinalResponse
			return f
		}
		a.writeStep(action, nil, "Done refused: "+verdict.Message)
		text, err := a.tpl.Render(a.Config.GateRefusalTemplate, a.vars(map[string]any{"message": verdict.Message}))
		if err != nil {
			return err
		}
		a.emit(Event{Kind: DoneRefused, Message: firstLine(verdict.Message)})
		return a.interrupt("SelfReflectionGate", text)
	}
	tctx, span := a.startToolSpan(ctx, action)
	stepped := time.Now()
	obs, err := a.Env.Execute(tctx, a.calls, action.Code)
	a.envTime += time.Since(stepped)
	endToolSpan(span, obs, err)
	if err != nil {
		a.Dir.RuntimeError(a.calls, "environment", err)
		a.writeStep(action, &obs, "Environment error: "+err.Error())
		if ctx.Err() != nil {
			return exitMsg(Interrupted, "interrupted while running step "+fmt.Sprint(a.calls))
		}
		return exitMsg(EnvironmentError, err.Error())
	}
	text, err := a.renderObservation(obs)
	if err != nil {
		return err
	}
	msg := model.Message{Role: model.RoleUser, Content: text, Meta: &model.Meta{Observation: &obs, Step: a.calls}}
	if obs.Screenshot != "" && a.AttachScreenshot {
		a.flushEnv() // the image is read with the next request: it must be whole on disk
		msg.Images = []string{obs.Screenshot}
	}
	a.messages = append(a.messages, msg)
	a.countAhead(text)
	a.notices(obs)
	a.writeStep(action, &obs)
	a.progressObservation(obs)
	if _, err := compact.PruneBlocks(a.messages, a.Config.KeepLastNObservations, a.Config.PruneBlock, a.renderObservation); err != nil {
		a.Dir.RuntimeError(a.calls, "prune", err)
	}
	return nil
}

// notices appends what the environment flagged (a navigation, a dialog, a
// loop) and the steps-remaining warnings as messages of their own, so that
// pruning an observation never prunes them.
func (a *Agent) notices(obs env.Observation) {
	texts := append([]string{}, obs.Notices...)
	if left := a.Config.StepLimit - a.calls; left == 5 || left == 2 {
		texts = append(texts, fmt.Sprintf("%d steps remain before the step limit ends the run: finish the essential part now, and report what you have in final_response.", left))
	}
	for _, t := range texts {
		a.messages = append(a.messages, a.interrupt("SystemNotice", "[notice] "+t).msgs...)
	}
}

func (a *Agent) renderObservation(obs env.Observation) (string, error) {
	return a.tpl.Render(a.Config.ObservationTemplate, a.vars(map[string]any{"observation": obs.Flat()}))
}

// maybeCompact rewrites the history when it is due. A failure is recorded
// and the run goes on with the history as it was; the next trigger tries
// again.
func (a *Agent) maybeCompact(ctx context.Context) {
	if a.compactor == nil || ctx.Err() != nil || a.calls == 0 {
		return
	}
	lastPrompt := a.promptTokens[len(a.promptTokens)-1]
	every := a.Config.SummaryEveryNSteps
	byCount := every > 0 && a.calls%every == 0
	byTokens := a.Config.CompactAtTokens > 0 && lastPrompt > a.Config.CompactAtTokens
	if !byCount && !byTokens {
		return
	}
	a.redactHistory()
	compacting := time.Now()
	msgs, rec, err := a.compactor.Compact(ctx, a.messages, a.calls)
	a.compactTime += time.Since(compacting)
	a.usage = a.usage.Add(rec.Usage)
	if err != nil {
		a.Dir.RuntimeError(a.calls, "compaction", err)
		return
	}
	a.archived = append(a.archived, a.messages[2:]...)
	a.messages = msgs
	// The summary replaced every observation: one that showed only what
	// changed since an earlier one would now rest on nothing.
	if r, ok := a.Env.(interface{ RequestFull() }); ok {
		r.RequestFull()
	}
	a.compactions = append(a.compactions, rec)
	_ = a.Dir.AppendJSONL("compactions.jsonl", rec)
	_ = a.Dir.Note(fmt.Sprintf("History compacted at step %d (%d -> %d tokens)", rec.Step, rec.TokensBefore, rec.TokensAfter))
	a.emit(Event{Kind: Compacted, TokensBefore: rec.TokensBefore, TokensAfter: rec.TokensAfter})
	_ = a.saveTrajectory()
}

// countAhead counts an observation's tokens while the step's files are
// written and the history is pruned and saved: the tokenizer keeps the
// count, and the next call's estimate (CountMessages) finds it there
// instead of encoding the text, the largest part of a step's own time,
// then. The tokenizer is safe for concurrent use.
func (a *Agent) countAhead(text string) {
	a.waitCount()
	done := make(chan struct{})
	a.counting = done
	go func(tok compact.Tokenizer) {
		defer close(done)
		tok.Count(text)
	}(a.tokenizer)
}

// waitCount waits for countAhead's count, if one runs.
func (a *Agent) waitCount() {
	if a.counting != nil {
		<-a.counting
		a.counting = nil
	}
}

// noteTurn records a turn's own time: since turn, less what the model, the
// environment, the gate and compaction took of it (spent is their sum when
// the turn began).
func (a *Agent) noteTurn(turn time.Time, spent time.Duration) {
	own := time.Since(turn) - (a.modelTime + a.envTime + a.gateTime + a.compactTime - spent)
	a.harnessMs = append(a.harnessMs, math.Round(float64(own.Microseconds())/10)/100)
}

func (a *Agent) vars(extra map[string]any) map[string]any {
	v := map[string]any{"action_field": a.kind.Field, "step_limit": a.Config.StepLimit,
		"steps_used": a.calls, "steps_left": a.Config.StepLimit - a.calls}
	for k, x := range a.Vars {
		v[k] = x
	}
	if a.OutputSchema != nil {
		v["output_schema"] = a.OutputSchema.Text()
	}
	for k, x := range extra {
		v[k] = x
	}
	return v
}

func (a *Agent) saveTrajectory() error {
	info := map[string]any{"model_calls": a.calls, "usage": a.usage, "compactions": a.compactions,
		"started_at": a.started.UTC(), "saved_at": time.Now().UTC()}
	all := a.messages
	if len(a.archived) > 0 {
		all = append(append(append([]model.Message{}, a.messages[:2]...), a.archived...), a.messages[2:]...)
	}
	return a.Dir.SaveTrajectory(info, all)
}

func (a *Agent) result(task Task) rundir.Result {
	exit := a.last()
	var status model.ExitStatus
	if exit.Meta != nil {
		status = exit.Meta.ExitStatus
	}
	res := rundir.Result{TaskID: task.ID, ExitStatus: status, Steps: a.calls, ModelCalls: a.calls, Usage: a.usage,
		PromptTokensPerStep: a.promptTokens, EstimatedPromptTokens: a.estimated, Compactions: len(a.compactions),
		StartedAt: a.started.UTC(), EndedAt: time.Now().UTC(), RunDir: a.Dir.Dir,
		Model: a.ModelName, Mode: a.Config.Mode}
	res.Seconds = res.EndedAt.Sub(res.StartedAt).Seconds()
	res.ModelSeconds, res.EnvSeconds = a.modelTime.Seconds(), a.envTime.Seconds()
	res.HarnessMsPerStep = a.harnessMs
	if !a.Begun.IsZero() {
		res.StartSeconds = a.started.Sub(a.Begun).Seconds()
	}
	if a.verdict != nil {
		label, run := *a.verdict.Label, a.verdict.Run
		res.GateLabel, res.GateRun = &label, &run
	}
	if j := a.judgeUsage(); j != (model.Usage{}) {
		res.JudgeUsage = &j
	}
	if status == Submitted {
		res.FinalResponse = exit.Content
		res.Output = a.output // the value of the done that passed
	} else {
		res.Message = exit.Content
	}
	if res.PromptTokensPerStep == nil {
		res.PromptTokensPerStep = []int{}
	}
	return res
}

// writeStep writes the step's debug files: the action, its observation (nil
// for none) and what the harness said about it.
func (a *Agent) writeStep(action model.Action, obs *env.Observation, remarks ...string) {
	var u model.Usage
	prompt := 0
	if m := a.lastAssistant(); m != nil && m.Meta != nil {
		if m.Meta.Usage != nil {
			u = *m.Meta.Usage
		}
		prompt = m.Meta.PromptTokens
	}
	var flat map[string]any
	if obs != nil && !obs.IsZero() {
		flat = obs.Flat()
	}
	err := a.Dir.WriteStep(rundir.Step{Step: a.calls, Thought: action.Thought, Field: a.kind.Field, Lang: a.kind.Lang, Code: action.Code,
		Done: action.Done, FinalResponse: action.FinalResponse, Observation: flat, Notes: remarks,
		Usage: u, PromptTokens: prompt, Total: a.usage})
	if err != nil {
		a.Dir.RuntimeError(a.calls, "debug", err)
	}
}

func (a *Agent) lastAssistant() *model.Message {
	for i := len(a.messages) - 1; i >= 0; i-- {
		if a.messages[i].Role == model.RoleAssistant {
			return &a.messages[i]
		}
	}
	return nil
}

// emit tells the observer, if any, filling in what every event carries.
func (a *Agent) emit(e Event) {
	if a.Observer == nil {
		return
	}
	e.TaskID, e.Step, e.Usage, e.Estimated = a.task.ID, a.calls, a.usage, a.estimated
	if e.Kind == StepStarted || e.Kind == StepEnded {
		if m := a.lastAssistant(); m != nil && m.Meta != nil && m.Meta.Usage != nil {
			e.StepUsage = *m.Meta.Usage
			if e.StepUsage.PromptTokens == 0 {
				e.StepEstimate = m.Meta.PromptTokens
			}
		}
	}
	if a.Dir != nil {
		e.RunDir = a.Dir.Dir
	}
	a.Observer.Observe(e)
}

func (a *Agent) progressAction(action model.Action) {
	a.emit(Event{Kind: StepStarted, Thought: firstLine(action.Thought), Command: firstLines(action.Code, 3),
		Lang: a.kind.Lang, Done: action.Done, FinalResponse: firstLine(action.FinalResponse)})
}

func (a *Agent) progressObservation(obs env.Observation) {
	a.emit(Event{Kind: StepEnded, Status: outcome(obs), Output: firstLines(obs.Output, 3)})
}

// outcome is an observation's status in a few words: "rc 0", "success
// true (timed out)".
func outcome(obs env.Observation) string {
	status := fmt.Sprintf("rc %v", obs.Detail("returncode"))
	if obs.Detail("returncode") == nil {
		status = fmt.Sprintf("success %v", obs.Success)
	}
	if obs.Detail("timed_out") == true {
		status += " (timed out)"
	}
	return status
}

// firstLines keeps the first n non-blank lines of s, each cut as firstLine
// cuts, with " …" on the last when more followed.
func firstLines(s string, n int) string {
	var keep []string
	rest := strings.TrimSpace(s)
	for rest != "" && len(keep) < n {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		rest = strings.TrimLeft(rest, "\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		keep = append(keep, firstLine(line))
	}
	if strings.TrimSpace(rest) != "" && len(keep) > 0 && !strings.HasSuffix(keep[len(keep)-1], " …") {
		keep[len(keep)-1] += " …"
	}
	return strings.Join(keep, "\n")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	line, _, more := strings.Cut(s, "\n")
	if r := []rune(line); len(r) > 100 {
		line, more = string(r[:100]), true
	}
	if more {
		line += " …"
	}
	return line
}

// capReply keeps an oversized reply (a format error by its size) out of the
// history the model is sent again: its head stays, the rest is counted.
func capReply(s string) string {
	const keep = 2048
	if len(s) <= model.MaxReplyBytes {
		return s
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s\n[... %d more bytes: the reply was over the size limit]", s[:cut], len(s)-cut)
}

// rawJSON keeps an endpoint's body as JSON when it is JSON, as text otherwise.
func rawJSON(b []byte) any {
	switch {
	case len(b) == 0:
		return nil
	case json.Valid(b):
		return json.RawMessage(b)
	}
	return string(b)
}

// flushEnv waits for files an environment writes after its observation
// returned (live mode's screenshot), if it writes any.
func (a *Agent) flushEnv() {
	if f, ok := a.Env.(interface{ Flush() }); ok {
		f.Flush()
	}
}
