package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// openAIClient talks to any OpenAI-compatible chat endpoint. It is safe for
// concurrent use (the judge scores screenshots in parallel): after
// construction only the sync.Once fields change.
type openAIClient struct {
	*transport
	api    *openai.Client
	format *openai.ChatCompletionResponseFormat
	// useMaxCompletionTokens: reasoning models (o1, o3, gpt-5, ...) reject
	// max_tokens; go-openai knows which ones.
	useMaxCompletionTokens bool
	// bodyFields are request fields go-openai cannot express, merged into
	// the JSON body (temperature 0 is dropped by its omitempty).
	bodyFields map[string]any
}

func newOpenAI(cfg Config, key string, warn func(string)) (*openAIClient, error) {
	c := &openAIClient{transport: newTransport(cfg, key, warn)}
	oc := openai.DefaultConfig(key)
	oc.BaseURL = cfg.BaseURL
	oc.HTTPClient = &capturingDoer{t: c.transport}
	c.api = openai.NewClientWithConfig(oc)

	switch cfg.ResponseFormat {
	case FormatJSONSchema:
		schema := json.RawMessage(ActionSchema(cfg.ActionField))
		name := "action"
		if len(cfg.Schema) > 0 {
			if !json.Valid(cfg.Schema) {
				return nil, fmt.Errorf("model: the response schema is not valid JSON")
			}
			schema, name = json.RawMessage(cfg.Schema), "response"
		}
		c.format = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: name, Schema: schema, Strict: true},
		}
	case FormatJSONObject:
		c.format = &openai.ChatCompletionResponseFormat{Type: openai.ChatCompletionResponseFormatTypeJSONObject}
	}

	// Ask go-openai's own validator now, so a model that rejects a setting
	// fails at start rather than on the first call.
	probe := openai.ChatCompletionRequest{Model: cfg.Name, MaxTokens: cfg.MaxTokens}
	if err := openai.NewReasoningValidator().Validate(probe); errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) {
		c.useMaxCompletionTokens = true
	}
	if t := cfg.Temperature; t != nil {
		if *t < 0 || *t > 2 {
			return nil, fmt.Errorf("model: temperature %v is outside 0..2", *t)
		}
		probe := c.baseRequest()
		if err := openai.NewReasoningValidator().Validate(probe); err != nil {
			return nil, fmt.Errorf("model: %s does not accept temperature %v (%v): remove model.temperature", cfg.Name, *t, err)
		}
		if *t == 0 {
			c.bodyFields = map[string]any{"temperature": 0}
		}
	}
	return c, nil
}

// ActionSchema is the strict JSON schema of one action turn with the given
// action field.
func ActionSchema(field string) string {
	if field == "" {
		field = FieldBash
	}
	f, _ := json.Marshal(field)
	return `{"type":"object","properties":{` +
		`"thought":{"type":"string"},` +
		string(f) + `:{"type":"string"},` +
		`"done":{"type":"boolean"},` +
		`"final_response":{"type":"string"}},` +
		`"required":["thought",` + string(f) + `,"done","final_response"],` +
		`"additionalProperties":false}`
}

func (c *openAIClient) baseRequest() openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: c.cfg.Name, ResponseFormat: c.format, ReasoningEffort: c.cfg.ReasoningEffort}
	if c.useMaxCompletionTokens {
		req.MaxCompletionTokens = c.cfg.MaxTokens
	} else {
		req.MaxTokens = c.cfg.MaxTokens
	}
	if t := c.cfg.Temperature; t != nil && !c.dropped("temperature") {
		req.Temperature = float32(*t)
	}
	return req
}

// Complete sends the conversation and returns the first choice, retrying
// transient failures with capped exponential backoff and jitter.
func (c *openAIClient) Complete(ctx context.Context, messages []Message) (Reply, error) {
	req, patch, err := c.buildRequest(messages)
	if err != nil {
		return Reply{}, err
	}
	reply, err := c.retry(ctx, func(ctx context.Context) (Reply, error) {
		return c.attempt(ctx, req, patch)
	}, func(e *APIError) bool {
		if c.cfg.Temperature == nil || !c.refuses(e, "model.temperature", "temperature") {
			return false
		}
		req, patch, err = c.buildRequest(messages)
		return err == nil
	})
	if err != nil && c.key != "" && strings.Contains(err.Error(), c.key) {
		err = &scrubbedError{msg: strings.ReplaceAll(err.Error(), c.key, "[redacted]"), err: err}
	}
	return reply, err
}

// attempt makes one request under the per-request timeout.
func (c *openAIClient) attempt(ctx context.Context, req openai.ChatCompletionRequest, patch bodyPatch) (Reply, error) {
	timeout := seconds(c.cfg.TimeoutSeconds)
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ex := &exchange{patch: patch}
	resp, err := c.api.CreateChatCompletion(context.WithValue(actx, exchangeKey{}, ex), req)
	if err != nil {
		return Reply{}, c.classify(ctx, actx, err, ex)
	}
	if len(resp.Choices) == 0 {
		// OpenRouter and some proxies report upstream failures as a 200
		// with an error object and no choices.
		return Reply{}, &transientError{err: fmt.Errorf("endpoint answered without a choice: %s", c.snippet(ex.body))}
	}
	choice := resp.Choices[0]
	u := Usage{
		PromptTokens:     resp.Usage.PromptTokens,
		CompletionTokens: resp.Usage.CompletionTokens,
		TotalTokens:      resp.Usage.TotalTokens,
	}
	if d := resp.Usage.PromptTokensDetails; d != nil {
		u.CachedTokens = d.CachedTokens
	}
	if d := resp.Usage.CompletionTokensDetails; d != nil {
		u.ReasoningTokens = d.ReasoningTokens
	}
	c.account(&u)
	content := choice.Message.Content
	if content == "" && choice.Message.Refusal != "" {
		// A structured-output refusal: show it to the parser (and so to the
		// model) rather than an unexplained empty reply.
		content = choice.Message.Refusal
	}
	return Reply{
		Content:      content,
		FinishReason: string(choice.FinishReason),
		Usage:        u,
		Raw:          c.rawJSON(ex.body),
	}, nil
}

// classify turns a failed attempt into a final *APIError, a transientError,
// or the caller's own cancellation.
func (c *openAIClient) classify(ctx, actx context.Context, err error, ex *exchange) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	status, msg := 0, ""
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode > 0:
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr) && reqErr.HTTPStatusCode > 0:
		status, msg = reqErr.HTTPStatusCode, c.snippet(reqErr.Body)
	}
	if status != 0 {
		e := &APIError{Status: status, Message: c.scrub(strings.TrimSpace(msg))}
		e.Setting = refusedSetting(status, e.Message)
		if retryableStatus(status) {
			return &transientError{err: e, retryAfter: retryAfter(ex.header, time.Now())}
		}
		return e
	}
	if actx.Err() != nil {
		return &transientError{err: fmt.Errorf("no answer within %gs (model.timeout_seconds)", c.cfg.TimeoutSeconds)}
	}
	if ex.status >= 200 && ex.status < 300 {
		return &transientError{err: fmt.Errorf("endpoint sent a body that is not a chat completion (%v): %s", err, c.snippet(ex.body))}
	}
	if !c.reached.Load() && unreachable(err) {
		return fmt.Errorf("model: cannot reach %s: %w (is the server running? check --base-url or model.base_url)", c.cfg.BaseURL, err)
	}
	if isNetworkError(err) {
		return &transientError{err: fmt.Errorf("connection failed: %w", err)}
	}
	return fmt.Errorf("model: %w", err)
}

// buildRequest turns the history into a chat request. Exit messages are the
// loop's own and never sent; images become data URLs here, so only the
// request (never the history) holds their bytes.
func (c *openAIClient) buildRequest(messages []Message) (openai.ChatCompletionRequest, bodyPatch, error) {
	req := c.baseRequest()
	var emptyAt []int
	for i, m := range messages {
		switch m.Role {
		case RoleExit:
			continue
		case RoleSystem, RoleUser, RoleAssistant:
		default:
			return req, nil, fmt.Errorf("model: message %d has role %q: only system, user and assistant can be sent", i, m.Role)
		}
		msg := openai.ChatCompletionMessage{Role: m.Role}
		if len(m.Images) == 0 {
			msg.Content = m.Content
			if m.Content == "" {
				emptyAt = append(emptyAt, len(req.Messages))
			}
		} else {
			if m.Content != "" {
				msg.MultiContent = append(msg.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: m.Content})
			}
			for _, path := range m.Images {
				u, err := dataURL(path)
				if err != nil {
					return req, nil, fmt.Errorf("model: message %d: %w", i, err)
				}
				msg.MultiContent = append(msg.MultiContent, openai.ChatMessagePart{
					Type:     openai.ChatMessagePartTypeImageURL,
					ImageURL: &openai.ChatMessageImageURL{URL: u},
				})
			}
		}
		req.Messages = append(req.Messages, msg)
	}
	if len(req.Messages) == 0 {
		return req, nil, fmt.Errorf("model: nothing to send: the conversation has no system, user or assistant message")
	}
	fields := c.bodyFields
	if c.dropped("temperature") {
		fields = nil
	}
	var patch bodyPatch
	if len(fields) > 0 || len(emptyAt) > 0 {
		patch = func(body []byte) ([]byte, error) { return patchBody(body, fields, emptyAt) }
	}
	return req, patch, nil
}

// bodyPatch rewrites a request body before it is sent.
type bodyPatch func([]byte) ([]byte, error)

// patchBody merges fields into the request object and gives every message at
// emptyAt an explicit "content": "" (go-openai omits empty content, and
// several servers reject a message without one).
func patchBody(body []byte, fields map[string]any, emptyAt []int) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("patch request body: %w", err)
	}
	for k, v := range fields {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("patch request body: %w", err)
		}
		obj[k] = b
	}
	if len(emptyAt) > 0 {
		var msgs []map[string]json.RawMessage
		if err := json.Unmarshal(obj["messages"], &msgs); err != nil {
			return nil, fmt.Errorf("patch request body: %w", err)
		}
		for _, i := range emptyAt {
			if i < len(msgs) {
				if _, ok := msgs[i]["content"]; !ok {
					msgs[i]["content"] = json.RawMessage(`""`)
				}
			}
		}
		b, err := json.Marshal(msgs)
		if err != nil {
			return nil, fmt.Errorf("patch request body: %w", err)
		}
		obj["messages"] = b
	}
	return json.Marshal(obj)
}
