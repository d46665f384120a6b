package compact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"wright/model"
)

// InterruptHistoryCompaction is the interrupt_type of the summary message.
const InterruptHistoryCompaction = "HistoryCompactionSummary"

// ErrNothingToCompact is returned when the history holds nothing beyond the
// system and task messages.
var ErrNothingToCompact = errors.New("compact history: nothing after the task message")

// Compactor asks the model for a summary of the history so far and replaces
// the history by it.
type Compactor struct {
	// Client answers the summary request. Its own retries apply; an error
	// it returns only fails this compaction, never the run.
	Client model.Client
	// Prompt is the rendered summary prompt (agent.summary_user_prompt),
	// sent as the last user message. The defaults are the templates
	// summary_workspace.j2 and summary_browser.j2.
	Prompt string
	// Tokenizer measures the history before and after. Nil means the
	// default (cl100k) tokenizer.
	Tokenizer Tokenizer
	// Format turns the summary into the content of the summary message.
	// Nil means SummaryContent.
	Format func(step int, summary string) string
}

// Record is what one compaction did, for the run's logs.
type Record struct {
	Step           int    `json:"step"`
	Summary        string `json:"summary"`
	TokensBefore   int    `json:"tokens_before"`
	TokensAfter    int    `json:"tokens_after"`
	MessagesBefore int    `json:"messages_before"`
	// FinishReason is the endpoint's; "length" means the summary was cut
	// off by the completion limit (it is still used).
	FinishReason string `json:"finish_reason,omitempty"`
	// Usage is set whenever the model answered, even when the compaction
	// failed afterwards (an empty summary still cost tokens).
	Usage model.Usage `json:"usage"`
}

// SummaryContent is the default content of the summary message.
func SummaryContent(step int, summary string) string {
	return fmt.Sprintf("[Context compacted at step %d] The messages of steps 1-%d were removed to save context. "+
		"The summary below, which you wrote just before, replaces them; the task above is unchanged. "+
		"Continue the task from where the summary leaves off.\n\n<summary>\n%s\n</summary>", step, step, summary)
}

// Compact makes one model call over msgs followed by the summary prompt and
// returns the new history: msgs[0] (system), msgs[1] (the original task,
// whatever was compacted before) and one user message holding the summary,
// with Meta interrupt_type, step, tokens_before and tokens_after.
//
// On any failure (no client or prompt, a history too short, a failed call, a
// reply with no usable summary) it returns msgs untouched and an error for
// the caller to log; the run goes on with the long history. msgs itself is
// never modified.
func (c *Compactor) Compact(ctx context.Context, msgs []model.Message, step int) ([]model.Message, Record, error) {
	rec := Record{Step: step, MessagesBefore: len(msgs)}
	if c == nil || c.Client == nil {
		return msgs, rec, errors.New("compact history: no model client")
	}
	if strings.TrimSpace(c.Prompt) == "" {
		return msgs, rec, errors.New("compact history: empty summary prompt")
	}
	if len(msgs) < 2 || msgs[0].Role != model.RoleSystem || msgs[1].Role != model.RoleUser {
		return msgs, rec, fmt.Errorf("compact history: want a system and a task message first, have %s", roles(msgs, 2))
	}
	if len(msgs) == 2 {
		return msgs, rec, ErrNothingToCompact
	}
	tok := c.Tokenizer
	if tok == nil {
		tok = NewTokenizer("")
	}
	rec.TokensBefore = CountMessages(tok, msgs)

	req := make([]model.Message, 0, len(msgs)+1)
	for _, m := range msgs {
		if m.Role != model.RoleExit { // never sent to a model
			req = append(req, m)
		}
	}
	req = append(req, model.Message{Role: model.RoleUser, Content: c.Prompt})

	reply, err := c.Client.Complete(ctx, req)
	if err != nil {
		return msgs, rec, fmt.Errorf("compact history at step %d: ask for summary: %w", step, err)
	}
	rec.Usage = reply.Usage
	rec.FinishReason = reply.FinishReason
	if reply.FinishReason == "content_filter" {
		return msgs, rec, fmt.Errorf("compact history at step %d: summary withheld by the endpoint's content filter", step)
	}
	summary, err := summaryText(reply.Content)
	if err != nil {
		return msgs, rec, fmt.Errorf("compact history at step %d: %w", step, err)
	}
	rec.Summary = summary

	format := c.Format
	if format == nil {
		format = SummaryContent
	}
	summaryMsg := model.Message{
		Role:    model.RoleUser,
		Content: format(step, summary),
		Meta: &model.Meta{
			InterruptType: InterruptHistoryCompaction,
			Step:          step,
			TokensBefore:  rec.TokensBefore,
		},
	}
	out := []model.Message{msgs[0], msgs[1], summaryMsg}
	rec.TokensAfter = CountMessages(tok, out)
	summaryMsg.Meta.TokensAfter = rec.TokensAfter
	return out, rec, nil
}

func roles(msgs []model.Message, n int) string {
	if len(msgs) == 0 {
		return "an empty history"
	}
	rs := make([]string, 0, n)
	for i := 0; i < len(msgs) && i < n; i++ {
		rs = append(rs, fmt.Sprintf("%q", msgs[i].Role))
	}
	return "roles " + strings.Join(rs, ", ")
}

var thinkBlock = regexp.MustCompile(`(?s)^\s*<think(?:ing)?>.*?</think(?:ing)?>`)

// summaryText digs the summary out of a reply. Models trained on the action
// protocol (or held to its JSON schema by the endpoint) often answer in it,
// and reasoning models may lead with a think block; either wrapper goes, the
// text inside stays.
func summaryText(reply string) (string, error) {
	text := strings.TrimSpace(thinkBlock.ReplaceAllString(reply, ""))
	text = stripOuterFence(text)
	if strings.HasPrefix(text, "{") && strings.HasSuffix(text, "}") {
		var obj map[string]any
		if json.Unmarshal([]byte(text), &obj) == nil {
			return summaryFromObject(obj)
		}
	}
	if text == "" {
		return "", errors.New("the model's summary is empty")
	}
	return text, nil
}

// summaryFromObject takes the prose fields of a JSON reply: an explicit
// "summary" if there is one, else the action's thought and final_response.
// Code the model may have put in an action field is not a summary.
func summaryFromObject(obj map[string]any) (string, error) {
	if s, ok := obj["summary"].(string); ok && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s), nil
	}
	var parts []string
	for _, key := range []string{"thought", "final_response"} {
		s, _ := obj[key].(string)
		s = strings.TrimSpace(s)
		if s != "" && (len(parts) == 0 || parts[0] != s) {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "", errors.New("the model answered with an action that holds no summary text")
	}
	return strings.Join(parts, "\n\n"), nil
}

// stripOuterFence removes a code fence wrapped around the whole text (with
// or without a language tag); fences inside the summary stay.
func stripOuterFence(text string) string {
	if !strings.HasPrefix(text, "```") || !strings.HasSuffix(text, "```") || len(text) < 6 {
		return text
	}
	nl := strings.IndexByte(text, '\n')
	if nl < 0 {
		return text
	}
	inner := text[nl+1 : len(text)-3]
	return strings.TrimSpace(inner)
}
