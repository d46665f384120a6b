package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"wright/internal/clip"
	"wright/model"
)

const imageQASystem = `You answer one question about one or more screenshots of web pages. Use only what is visible in the screenshots; never guess from general knowledge. If the screenshots do not show the answer, say so.

Reply with one JSON object and nothing else:
{"answer": "<the answer, as short as it can be while complete; empty if unknown>",
 "evidence": "<where in which screenshot you read it: the text, element or region>",
 "unknown": <true if the screenshots do not show the answer, else false>,
 "confidence": <a number from 0 to 1>}`

// ImageQAOptions is one question about some screenshots.
type ImageQAOptions struct {
	// Workspace resolves relative image paths; empty means the working
	// directory.
	Workspace string
	Images    []string
	Question  string
	// MaxParseRetries is how often an answer that is not the JSON object
	// asked for is asked again. Default 2; negative means no retry.
	MaxParseRetries int
}

// ImageAnswer is what `wright image-qa` prints.
type ImageAnswer struct {
	Answer     string  `json:"answer"`
	Evidence   string  `json:"evidence"`
	Unknown    bool    `json:"unknown"`
	Confidence float64 `json:"confidence"`
}

// ImageQA asks the model a question about screenshots. Bad input (no
// question, no image, a file that is not PNG or JPEG) is a *ConfigError
// before any call; an answer that stays unreadable after the retries is an
// error quoting it.
func ImageQA(ctx context.Context, client model.Client, opts ImageQAOptions) (*ImageAnswer, error) {
	if client == nil {
		return nil, errors.New("image-qa: no model client")
	}
	q := strings.TrimSpace(opts.Question)
	if q == "" {
		return nil, configErrorf("image-qa: no question: pass --question")
	}
	if len(opts.Images) == 0 {
		return nil, configErrorf("image-qa: no image: pass --image PATH (repeatable)")
	}
	ws := opts.Workspace
	if ws == "" {
		ws = "."
	}
	ws, err := filepath.Abs(ws)
	if err != nil {
		return nil, configErrorf("image-qa: workspace: %w", err)
	}
	retries := opts.MaxParseRetries
	if retries == 0 {
		retries = 2
	}
	retries = max(retries, 0)

	images := make([]string, len(opts.Images))
	var list strings.Builder
	for i, p := range opts.Images {
		images[i] = resolveIn(ws, p)
		if err := checkImage(images[i]); err != nil {
			return nil, &ConfigError{Err: fmt.Errorf("image-qa: %w", err)}
		}
		fmt.Fprintf(&list, "%d. %s\n", i+1, filepath.Base(images[i]))
	}
	user := fmt.Sprintf("Question: %s\n\nScreenshots attached, in this order:\n%s", q, list.String())
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: imageQASystem},
		{Role: model.RoleUser, Content: user, Images: images},
	}
	var lastErr error
	for attempt := 1; attempt <= 1+retries; attempt++ {
		reply, err := client.Complete(ctx, msgs)
		if err != nil {
			return nil, fmt.Errorf("image-qa: %w", err)
		}
		ans, perr := parseImageAnswer(reply.Content)
		if perr == nil {
			return ans, nil
		}
		lastErr = fmt.Errorf("%w; the answer was: %s", perr, clip.Thirds(strings.TrimSpace(reply.Content), 600))
		msgs = append(msgs[:2:2],
			model.Message{Role: model.RoleAssistant, Content: reply.Content},
			model.Message{Role: model.RoleUser, Content: "That could not be read (" + perr.Error() + "). Reply with only the JSON object with the keys answer, evidence, unknown and confidence."},
		)
	}
	return nil, fmt.Errorf("image-qa: the model's answer stayed unreadable after %d attempts: %w", 1+retries, lastErr)
}

// parseImageAnswer reads the JSON object out of a reply, tolerating code
// fences and prose around it, and checks its fields.
func parseImageAnswer(s string) (*ImageAnswer, error) {
	start, end := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if start < 0 || end < start {
		return nil, errors.New("no JSON object in the answer")
	}
	var raw struct {
		Answer     *json.RawMessage `json:"answer"`
		Evidence   json.RawMessage  `json:"evidence"`
		Unknown    *bool            `json:"unknown"`
		Confidence *float64         `json:"confidence"`
	}
	if err := json.Unmarshal([]byte(s[start:end+1]), &raw); err != nil {
		return nil, fmt.Errorf("the JSON object does not parse: %w", err)
	}
	if raw.Answer == nil {
		return nil, errors.New(`the object has no "answer"`)
	}
	if raw.Unknown == nil {
		return nil, errors.New(`the object has no boolean "unknown"`)
	}
	ans := &ImageAnswer{Unknown: *raw.Unknown}
	ans.Answer = textOf(*raw.Answer)
	ans.Evidence = textOf(raw.Evidence)
	if raw.Confidence != nil {
		c := *raw.Confidence
		if c > 1 && c <= 100 { // a percentage
			c /= 100
		}
		if c < 0 || c > 1 {
			return nil, fmt.Errorf("confidence %v is not between 0 and 1", *raw.Confidence)
		}
		ans.Confidence = c
	}
	return ans, nil
}

// textOf renders a JSON value as text: a string as itself, a list of
// strings one per line, anything else as its JSON.
func textOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, "\n")
	}
	return string(raw)
}
