package compact

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"wright/model"
	"wright/model/modeltest"
)

// newClient is the real OpenAI-compatible client pointed at a scripted
// endpoint. One attempt: a 500 must fail this compaction at once rather
// than sleep through retries.
func newClient(t *testing.T, srv *modeltest.Server) model.Client {
	t.Helper()
	c, err := model.New(model.Config{Name: "gpt-4o", BaseURL: srv.URL, Retry: model.Retry{Attempts: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const taskText = "Task: on https://shop.test find the cheapest red kettle under $40 and report its name and price.\n\nRules: use final_script.py."

// longHistory: system, task, then steps (assistant action, observation) with
// a gate refusal among them.
func longHistory(t *testing.T, steps int) []model.Message {
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: "You are wright, a web agent."},
		{Role: model.RoleUser, Content: taskText, Meta: &model.Meta{Task: true}},
	}
	for i := 1; i <= steps; i++ {
		msgs = append(msgs,
			model.Message{Role: model.RoleAssistant, Content: `{"thought":"look","bash_command":"curl -s https://shop.test","done":false,"final_response":""}`},
			obsMessage(t, workspaceObs(i)))
		if i == 2 {
			msgs = append(msgs, model.Message{Role: model.RoleUser, Content: "Not done yet: no final run.", Meta: &model.Meta{InterruptType: "SelfReflectionGate"}})
		}
	}
	return msgs
}

func TestCompact(t *testing.T) {
	const summary = "Progress: found the kettle list at /c/kettles.\nNext steps: sort by price."
	srv := modeltest.New(t, modeltest.Reply(summary).WithUsage(5000, 80))
	c := &Compactor{Client: newClient(t, srv), Prompt: testSummaryPrompt, Tokenizer: NewTokenizer("gpt-4o")}
	msgs := longHistory(t, 4)
	before := deepCopy(msgs)

	out, rec, err := c.Compact(context.Background(), msgs, 9)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(msgs, before) {
		t.Error("Compact modified the history it was given")
	}
	if len(out) != 3 {
		t.Fatalf("new history has %d messages, want 3", len(out))
	}
	if !reflect.DeepEqual(out[0], msgs[0]) || !reflect.DeepEqual(out[1], msgs[1]) {
		t.Error("system or task message not kept as it was")
	}
	if out[1].Content != taskText {
		t.Errorf("task text changed: %q", out[1].Content)
	}
	s := out[2]
	if s.Role != model.RoleUser {
		t.Errorf("summary role %q", s.Role)
	}
	if !strings.Contains(s.Content, summary) || !strings.Contains(s.Content, "steps 1-9") {
		t.Errorf("summary message does not carry the summary and the replaced steps:\n%s", s.Content)
	}
	if s.Meta.InterruptType != InterruptHistoryCompaction || s.Meta.Step != 9 {
		t.Errorf("summary Meta = %+v", s.Meta)
	}
	if s.Meta.TokensBefore != rec.TokensBefore || s.Meta.TokensAfter != rec.TokensAfter {
		t.Errorf("Meta tokens %v/%v, record %d/%d", s.Meta.TokensBefore, s.Meta.TokensAfter, rec.TokensBefore, rec.TokensAfter)
	}
	if rec.TokensBefore != CountMessages(c.Tokenizer, msgs) || rec.TokensAfter != CountMessages(c.Tokenizer, out) {
		t.Errorf("record tokens %d -> %d do not match the histories", rec.TokensBefore, rec.TokensAfter)
	}
	if rec.TokensAfter >= rec.TokensBefore {
		t.Errorf("compaction did not shrink the history: %d -> %d", rec.TokensBefore, rec.TokensAfter)
	}
	wantUsage := model.Usage{PromptTokens: 5000, CompletionTokens: 80, TotalTokens: 5080}
	if rec.Usage.PromptTokens != wantUsage.PromptTokens || rec.Usage.CompletionTokens != wantUsage.CompletionTokens || rec.Usage.TotalTokens != wantUsage.TotalTokens {
		t.Errorf("usage %+v, want %+v", rec.Usage, wantUsage)
	}
	if rec.Summary != summary || rec.Step != 9 || rec.MessagesBefore != len(msgs) {
		t.Errorf("record %+v", rec)
	}

	// The model saw the whole history and then the prompt.
	sent := srv.Last().Chat().Messages
	if len(sent) != len(msgs)+1 {
		t.Fatalf("model was sent %d messages, want %d", len(sent), len(msgs)+1)
	}
	if last := sent[len(sent)-1]; last.Role != "user" || last.Text() != testSummaryPrompt {
		t.Errorf("last message sent is %s %.60q, want the summary prompt", last.Role, last.Text())
	}
	if sent[1].Text() != taskText {
		t.Error("task not sent verbatim")
	}
}

// A second compaction folds the first summary in; the task is still the
// original one, not the first summary.
func TestCompactTwiceKeepsTask(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("first summary"), modeltest.Reply("second summary"))
	c := &Compactor{Client: newClient(t, srv), Prompt: testSummaryPrompt}
	h, _, err := c.Compact(context.Background(), longHistory(t, 3), 20)
	if err != nil {
		t.Fatal(err)
	}
	h = append(h, longHistory(t, 2)[2:]...)
	h, _, err = c.Compact(context.Background(), h, 40)
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 3 || h[1].Content != taskText {
		t.Fatalf("after two compactions: %d messages, task %q", len(h), h[1].Content)
	}
	if !strings.Contains(h[2].Content, "second summary") || strings.Contains(h[2].Content, "first summary") {
		t.Errorf("summary message: %s", h[2].Content)
	}
	if !strings.Contains(h[2].Content, "steps 1-40") {
		t.Errorf("summary message does not say it replaces steps 1-40: %s", h[2].Content)
	}
	// The second request carried the first summary.
	if got := srv.Last().Chat().Messages[2].Text(); !strings.Contains(got, "first summary") {
		t.Errorf("second request's third message: %q", got)
	}
}

func TestCompactFailuresLeaveHistory(t *testing.T) {
	for _, tc := range []struct {
		name      string
		resp      modeltest.Response
		wantUsage bool
		errHas    string
	}{
		{"server error", modeltest.Status(500), false, "ask for summary"},
		{"bad request", modeltest.Status(400), false, "ask for summary"},
		{"garbage body", modeltest.Raw(200, "this is not json"), false, "ask for summary"},
		{"empty summary", modeltest.Reply(""), true, "empty"},
		{"whitespace summary", modeltest.Reply(" \n\t "), true, "empty"},
		{"fenced nothing", modeltest.Reply("```\n\n```"), true, "empty"},
		{"action without text", modeltest.Bash("", "ls"), true, "no summary text"},
		{"content filter", modeltest.Reply("x").WithFinishReason("content_filter"), true, "content filter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := modeltest.New(t, tc.resp)
			c := &Compactor{Client: newClient(t, srv), Prompt: testSummaryPrompt}
			msgs := longHistory(t, 3)
			before := deepCopy(msgs)
			out, rec, err := c.Compact(context.Background(), msgs, 5)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("error %q does not mention %q", err, tc.errHas)
			}
			if !reflect.DeepEqual(out, before) || !reflect.DeepEqual(msgs, before) {
				t.Error("history changed")
			}
			if got := rec.Usage.TotalTokens > 0; got != tc.wantUsage {
				t.Errorf("usage %+v: set=%v, want %v", rec.Usage, got, tc.wantUsage)
			}
		})
	}
}

func TestCompactBadSetup(t *testing.T) {
	srv := modeltest.New(t) // any request fails the test: none may be made
	client := newClient(t, srv)
	h := longHistory(t, 2)
	for _, tc := range []struct {
		name string
		c    *Compactor
		msgs []model.Message
	}{
		{"nil compactor", nil, h},
		{"no client", &Compactor{Prompt: "p"}, h},
		{"no prompt", &Compactor{Client: client, Prompt: "  "}, h},
		{"empty history", &Compactor{Client: client, Prompt: "p"}, nil},
		{"no system first", &Compactor{Client: client, Prompt: "p"}, h[1:]},
		{"only system and task", &Compactor{Client: client, Prompt: "p"}, h[:2]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := deepCopy(tc.msgs)
			out, _, err := tc.c.Compact(context.Background(), tc.msgs, 3)
			if err == nil {
				t.Fatal("no error")
			}
			if len(tc.msgs) > 0 && !reflect.DeepEqual(out, before) {
				t.Error("history changed")
			}
		})
	}
	_, _, err := (&Compactor{Client: client, Prompt: "p"}).Compact(context.Background(), h[:2], 3)
	if !errors.Is(err, ErrNothingToCompact) {
		t.Errorf("system+task only: %v, want ErrNothingToCompact", err)
	}
}

func TestCompactCancelled(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("late").Forever())
	c := &Compactor{Client: newClient(t, srv), Prompt: "p"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msgs := longHistory(t, 2)
	out, _, err := c.Compact(ctx, msgs, 2)
	if err == nil || len(out) != len(msgs) {
		t.Fatalf("cancelled compaction: %d messages, err %v", len(out), err)
	}
}

// Exit messages never go to the model, even in a summary request.
func TestCompactSkipsExitMessages(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("s"))
	c := &Compactor{Client: newClient(t, srv), Prompt: "p"}
	msgs := append(longHistory(t, 1), model.Message{Role: model.RoleExit, Content: "", Meta: &model.Meta{ExitStatus: "Interrupted"}})
	if _, _, err := c.Compact(context.Background(), msgs, 1); err != nil {
		t.Fatal(err)
	}
	for _, m := range srv.Last().Chat().Messages {
		if m.Role == model.RoleExit {
			t.Error("an exit message was sent to the model")
		}
	}
}

func TestSummaryText(t *testing.T) {
	for _, tc := range []struct{ name, reply, want string }{
		{"plain", "  Progress: a\nNext: b \n", "Progress: a\nNext: b"},
		{"fenced", "```\nProgress: a\n```", "Progress: a"},
		{"fenced with language", "```markdown\nProgress: a\n```", "Progress: a"},
		{"inner fences stay", "Script:\n```python\nprint(1)\n```\nNext: run it", "Script:\n```python\nprint(1)\n```\nNext: run it"},
		{"think block", "<think>let me see</think>\nProgress: a", "Progress: a"},
		{"action", `{"thought":"Progress: a","bash_command":"","done":false,"final_response":""}`, "Progress: a"},
		{"action with final", `{"thought":"Progress: a","python_code":"","done":true,"final_response":"Next: b"}`, "Progress: a\n\nNext: b"},
		{"action repeated", `{"thought":"same","done":true,"final_response":"same"}`, "same"},
		{"fenced action", "```json\n{\"thought\":\"Progress: a\",\"bash_command\":\"ls\"}\n```", "Progress: a"},
		{"summary key", `{"summary":"Progress: a","thought":"ignored"}`, "Progress: a"},
		{"not quite json", `{Progress: a}`, `{Progress: a}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := summaryText(tc.reply)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("summaryText = %q, want %q", got, tc.want)
			}
		})
	}
}

// testSummaryPrompt stands for the rendered summary template.
const testSummaryPrompt = "Summarise the work so far: what was tried, what works, what remains."
