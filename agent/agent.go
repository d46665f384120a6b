// Package agent is wright's loop: ask the model for one action, run it, show
// it the observation, until an exit message ends the run.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"wright/compact"
	"wright/env"
	"wright/gate"
	"wright/model"
	"wright/runs"
	"wright/templates"
)

// Exit statuses. Each ends the run as a message of role "exit".
const (
	Submitted         = "Submitted"
	LimitsExceeded    = "LimitsExceeded"
	CostLimitExceeded = "CostLimitExceeded"
	FormatErrorLimit  = "FormatErrorLimit"
	ModelError        = "ModelError"
	EnvironmentError  = "EnvironmentError"
	Interrupted       = "Interrupted"
)

// Settings are the loop's knobs and prompts (config agent.* plus what the
// templates need from other sections).
type Settings struct {
	StepLimit                  int
	CostLimit                  float64
	MaxConsecutiveFormatErrors int
	ActionField                string
	SystemTemplate             string
	InstanceTemplate           string
	ObservationTemplate        string
	FormatErrorTemplate        string
	GateRefusalTemplate        string
	// AttachScreenshot sends an observation's screenshot_path as an image.
	AttachScreenshot bool
	// Context control (DESIGN §6): observations older than the last
	// KeepLastNObservations lose their bulky parts; every SummaryEveryNSteps
	// calls, or when a prompt passes CompactAtTokens, the history is
	// compacted with SummaryPrompt. Zero turns each off.
	KeepLastNObservations int
	SummaryEveryNSteps    int
	CompactAtTokens       int
	SummaryPrompt         string
	// ModelName and Mode are recorded in result.json; ModelName also picks
	// the tokenizer.
	ModelName, Mode string
	// Vars are extra template variables (workspace, timeouts, mode, ...).
	Vars map[string]any
}

// Task is what the user asked for.
type Task struct {
	ID       string
	Text     string
	StartURL string
}

// Agent runs one task. Create it with its parts, call Run once.
type Agent struct {
	Settings Settings
	Model    model.Client
	Env      env.Environment
	Gate     gate.Gate
	Run      *runs.Run
	// Progress, when set, gets one short block per step for a person.
	Progress io.Writer
	// JudgeUsage, when set, reports what the judge has spent so far outside
	// the loop (`wright reflect`, `wright image-qa` inside the run): it
	// counts toward CostLimit.
	JudgeUsage func() model.Usage
	// Redact, when set, rewrites every text the model is sent (secret
	// values become their placeholders); what is sent is also what the
	// run's files keep.
	Redact func(string) string

	tpl          templates.Set
	messages     []model.Message
	calls        int
	usage        model.Usage
	formatErrors int
	promptTokens []int
	compactions  []compact.Record
	// archived holds the messages compactions took out of the context, in
	// order, so that trajectory.json still has every message.
	archived  []model.Message
	tokenizer compact.Tokenizer
	compactor *compact.Compactor
	started   time.Time
}

// flow interrupts a step: its messages are appended instead of the step's
// normal result (a format error, a limit, an exit).
type flow struct{ msgs []model.Message }

func (f *flow) Error() string { return "agent flow interrupted" }

func exitMsg(status, text string) *flow {
	return &flow{[]model.Message{{Role: model.RoleExit, Content: text, Extra: map[string]any{"exit_status": status}}}}
}

// Execute runs the loop to its end and returns result.json's content. The
// error is non-nil only when the run's files could not be written.
func (a *Agent) Execute(ctx context.Context, task Task) (runs.Result, error) {
	a.started = time.Now()
	vars := a.vars(map[string]any{"task": task.Text, "start_url": task.StartURL, "task_id": task.ID})
	system, err := a.tpl.Render(a.Settings.SystemTemplate, vars)
	if err != nil {
		return runs.Result{}, err
	}
	instance, err := a.tpl.Render(a.Settings.InstanceTemplate, vars)
	if err != nil {
		return runs.Result{}, err
	}
	a.messages = []model.Message{
		{Role: model.RoleSystem, Content: system},
		{Role: model.RoleUser, Content: instance, Extra: map[string]any{"task": true}},
	}
	a.tokenizer = compact.NewTokenizer(a.Settings.ModelName)
	if a.Settings.SummaryEveryNSteps > 0 || a.Settings.CompactAtTokens > 0 {
		prompt, err := a.tpl.Render(a.Settings.SummaryPrompt, vars)
		if err != nil {
			return runs.Result{}, err
		}
		a.compactor = &compact.Compactor{Client: a.Model, Prompt: prompt, Tokenizer: a.tokenizer}
	}
	var saveErr error
	for {
		err := a.step(ctx)
		var f *flow
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
			break
		}
		a.maybeCompact(ctx)
	}
	res := a.result(task)
	_ = a.Run.Note(fmt.Sprintf("Exit: %s after %d model calls", res.ExitStatus, res.ModelCalls))
	if err := a.Run.WriteJSON("result.json", res); err != nil && saveErr == nil {
		saveErr = err
	}
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
func (a *Agent) step(ctx context.Context) error {
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
	if a.calls >= a.Settings.StepLimit {
		return model.Action{}, exitMsg(LimitsExceeded, fmt.Sprintf("step limit of %d model calls reached", a.Settings.StepLimit))
	}
	if spent := a.usage.Cost + a.judgeUsage().Cost; a.Settings.CostLimit > 0 && spent >= a.Settings.CostLimit {
		return model.Action{}, exitMsg(CostLimitExceeded, fmt.Sprintf("cost limit $%.4f reached ($%.4f spent, the judge's calls included)", a.Settings.CostLimit, spent))
	}
	// The endpoint's count wins when it reports one; the estimate covers
	// endpoints that report none.
	estimate := compact.CountMessages(a.tokenizer, a.messages)
	a.redactHistory()
	reply, err := a.Model.Complete(ctx, a.messages)
	if err != nil {
		a.Run.RuntimeError(a.calls+1, "model", err)
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
	}
	a.promptTokens = append(a.promptTokens, prompt)
	_ = a.Run.AppendJSONL("raw_responses.jsonl", map[string]any{"step": a.calls, "finish_reason": reply.FinishReason, "usage": reply.Usage, "content": reply.Content, "raw": rawJSON(reply.Raw)})
	a.messages = append(a.messages, model.Message{Role: model.RoleAssistant, Content: capReply(reply.Content),
		Extra: map[string]any{"step": a.calls, "usage": reply.Usage, "prompt_tokens": prompt, "finish_reason": reply.FinishReason}})

	action, err := model.ParseAction(reply.Content, reply.FinishReason, a.Settings.ActionField)
	if err == nil && action.Code != "" {
		err = model.CheckSyntax(ctx, a.Settings.ActionField, action.Code)
	}
	if err != nil {
		return action, a.formatError(err)
	}
	a.formatErrors = 0
	return action, nil
}

func (a *Agent) formatError(err error) error {
	a.formatErrors++
	a.Run.RuntimeError(a.calls, "format", err)
	a.writeStep(model.Action{}, nil, "Format error: "+err.Error())
	if a.formatErrors >= a.Settings.MaxConsecutiveFormatErrors {
		return exitMsg(FormatErrorLimit, fmt.Sprintf("%d unusable replies in a row; the last: %v", a.formatErrors, err))
	}
	text, rerr := a.tpl.Render(a.Settings.FormatErrorTemplate, a.vars(map[string]any{"error": err.Error()}))
	if rerr != nil {
		return rerr
	}
	return &flow{[]model.Message{{Role: model.RoleUser, Content: text,
		Extra: map[string]any{"interrupt_type": "FormatError", "step": a.calls}}}}
}

func (a *Agent) execute(ctx context.Context, action model.Action) error {
	a.progressAction(action)
	if action.Done {
		verdict, err := a.Gate.Check(ctx)
		if err != nil {
			a.Run.RuntimeError(a.calls, "gate", err)
			if ctx.Err() != nil {
				return exitMsg(Interrupted, "interrupted while checking completion")
			}
			verdict.Message = "the completion check failed: " + err.Error()
		}
		if verdict.Pass && err == nil {
			a.writeStep(action, nil)
			f := exitMsg(Submitted, action.FinalResponse)
			f.msgs[0].Extra["final_response"] = action.FinalResponse
			return f
		}
		a.writeStep(action, nil, "Done refused: "+verdict.Message)
		text, err := a.tpl.Render(a.Settings.GateRefusalTemplate, a.vars(map[string]any{"message": verdict.Message}))
		if err != nil {
			return err
		}
		a.progressf("  done refused: %s\n", firstLine(verdict.Message))
		return &flow{[]model.Message{{Role: model.RoleUser, Content: text,
			Extra: map[string]any{"interrupt_type": "SelfReflectionGate", "step": a.calls}}}}
	}
	obs, err := a.Env.Execute(ctx, a.calls, action.Code)
	if err != nil {
		a.Run.RuntimeError(a.calls, "environment", err)
		a.writeStep(action, obs, "Environment error: "+err.Error())
		if ctx.Err() != nil {
			return exitMsg(Interrupted, "interrupted while running step "+fmt.Sprint(a.calls))
		}
		return exitMsg(EnvironmentError, err.Error())
	}
	text, err := a.renderObservation(obs)
	if err != nil {
		return err
	}
	msg := model.Message{Role: model.RoleUser, Content: text, Extra: map[string]any{"observation": obs, "step": a.calls}}
	if p, ok := obs["screenshot_path"].(string); ok && p != "" && a.Settings.AttachScreenshot {
		msg.Images = []string{p}
	}
	a.messages = append(a.messages, msg)
	a.notices(obs)
	a.writeStep(action, obs)
	a.progressObservation(obs)
	if _, err := compact.Prune(a.messages, a.Settings.KeepLastNObservations, a.renderObservation); err != nil {
		a.Run.RuntimeError(a.calls, "prune", err)
	}
	return nil
}

// notices appends what the environment flagged (a navigation, a dialog, a
// loop) and the steps-remaining warnings as messages of their own, so that
// pruning an observation never prunes them.
func (a *Agent) notices(obs env.Observation) {
	var texts []string
	switch n := obs["notices"].(type) {
	case []string:
		texts = append(texts, n...)
	case []any:
		for _, x := range n {
			texts = append(texts, fmt.Sprint(x))
		}
	}
	if left := a.Settings.StepLimit - a.calls; left == 5 || left == 2 {
		texts = append(texts, fmt.Sprintf("%d steps remain before the step limit ends the run: finish the essential part now, and report what you have in final_response.", left))
	}
	for _, t := range texts {
		a.messages = append(a.messages, model.Message{Role: model.RoleUser, Content: "[notice] " + t,
			Extra: map[string]any{"interrupt_type": "SystemNotice", "step": a.calls}})
	}
}

func (a *Agent) renderObservation(obs env.Observation) (string, error) {
	return a.tpl.Render(a.Settings.ObservationTemplate, a.vars(map[string]any{"observation": map[string]any(obs)}))
}

// maybeCompact rewrites the history when it is due. A failure is recorded
// and the run goes on with the history as it was; the next trigger tries
// again.
func (a *Agent) maybeCompact(ctx context.Context) {
	if a.compactor == nil || ctx.Err() != nil || a.calls == 0 {
		return
	}
	lastPrompt := a.promptTokens[len(a.promptTokens)-1]
	every := a.Settings.SummaryEveryNSteps
	byCount := every > 0 && a.calls%every == 0
	byTokens := a.Settings.CompactAtTokens > 0 && lastPrompt > a.Settings.CompactAtTokens
	if !byCount && !byTokens {
		return
	}
	a.redactHistory()
	msgs, rec, err := a.compactor.Compact(ctx, a.messages, a.calls)
	a.usage = a.usage.Add(rec.Usage)
	if err != nil {
		a.Run.RuntimeError(a.calls, "compaction", err)
		return
	}
	a.archived = append(a.archived, a.messages[2:]...)
	a.messages = msgs
	a.compactions = append(a.compactions, rec)
	_ = a.Run.AppendJSONL("compactions.jsonl", rec)
	_ = a.Run.Note(fmt.Sprintf("History compacted at step %d (%d -> %d tokens)", rec.Step, rec.TokensBefore, rec.TokensAfter))
	a.progressf("  history compacted at step %d (%d -> %d tokens)\n", rec.Step, rec.TokensBefore, rec.TokensAfter)
	_ = a.saveTrajectory()
}

func (a *Agent) vars(extra map[string]any) map[string]any {
	v := map[string]any{"action_field": a.Settings.ActionField, "step_limit": a.Settings.StepLimit,
		"steps_used": a.calls, "steps_left": a.Settings.StepLimit - a.calls}
	for k, x := range a.Settings.Vars {
		v[k] = x
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
	return a.Run.SaveTrajectory(info, all)
}

func (a *Agent) result(task Task) runs.Result {
	exit := a.last()
	status, _ := exit.Extra["exit_status"].(string)
	res := runs.Result{TaskID: task.ID, ExitStatus: status, Steps: a.calls, ModelCalls: a.calls, Usage: a.usage,
		PromptTokensPerStep: a.promptTokens, Compactions: len(a.compactions),
		StartedAt: a.started.UTC(), EndedAt: time.Now().UTC(), RunDir: a.Run.Dir,
		Model: a.Settings.ModelName, Mode: a.Settings.Mode}
	res.Seconds = res.EndedAt.Sub(res.StartedAt).Seconds()
	if j := a.judgeUsage(); j != (model.Usage{}) {
		res.JudgeUsage = &j
	}
	if status == Submitted {
		res.FinalResponse = exit.Content
	} else {
		res.Message = exit.Content
	}
	if res.PromptTokensPerStep == nil {
		res.PromptTokensPerStep = []int{}
	}
	return res
}

func (a *Agent) writeStep(action model.Action, obs env.Observation, notes ...string) {
	var u model.Usage
	prompt := 0
	if m := a.lastAssistant(); m != nil {
		u, _ = m.Extra["usage"].(model.Usage)
		prompt, _ = m.Extra["prompt_tokens"].(int)
	}
	err := a.Run.WriteStep(runs.Step{Step: a.calls, Thought: action.Thought, Field: a.Settings.ActionField, Code: action.Code,
		Done: action.Done, FinalResponse: action.FinalResponse, Observation: obs, Notes: notes,
		Usage: u, PromptTokens: prompt, Total: a.usage})
	if err != nil {
		a.Run.RuntimeError(a.calls, "debug", err)
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

func (a *Agent) progressf(format string, args ...any) {
	if a.Progress == nil {
		return
	}
	text := fmt.Sprintf(format, args...)
	if a.Redact != nil {
		text = a.Redact(text)
	}
	io.WriteString(a.Progress, text)
}

func (a *Agent) progressAction(action model.Action) {
	a.progressf("step %d · %s\n", a.calls, firstLine(action.Thought))
	if action.Code != "" {
		a.progressf("  $ %s\n", firstLine(action.Code))
	}
	if action.Done {
		a.progressf("  done: %s\n", firstLine(action.FinalResponse))
	}
}

func (a *Agent) progressObservation(obs env.Observation) {
	status := fmt.Sprintf("rc %v", obs["returncode"])
	if obs["returncode"] == nil {
		status = fmt.Sprintf("success %v", obs["success"])
	}
	if obs["timed_out"] == true {
		status += " (timed out)"
	}
	a.progressf("  → %s · %d tokens · $%.4f\n", status, a.usage.TotalTokens, a.usage.Cost)
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
