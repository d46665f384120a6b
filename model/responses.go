package model

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// responsesClient speaks OpenAI's Responses API through the provider's Go
// SDK. The SDK builds and decodes the wire format; the transport keeps the
// retries (the SDK's own are off), the raw bodies and the headers.
type responsesClient struct {
	*transport
	api    responses.ResponseService
	format responses.ResponseFormatTextConfigUnionParam
	// cacheKey is the prompt_cache_key when the run's context carries
	// none: one per client, so calls of one client share a cache shard.
	cacheKey string
}

func newResponses(cfg Config, key string, warn func(string)) (*responsesClient, error) {
	c := &responsesClient{transport: newTransport(cfg, key, warn), cacheKey: randomKey()}
	if t := cfg.Temperature; t != nil && (*t < 0 || *t > 2) {
		return nil, fmt.Errorf("model: temperature %v is outside 0..2", *t)
	}
	schema, name, err := responseSchema(cfg)
	if err != nil {
		return nil, err
	}
	switch cfg.ResponseFormat {
	case FormatJSONSchema:
		c.format.OfJSONSchema = &responses.ResponseFormatTextJSONSchemaConfigParam{Name: name, Schema: schema, Strict: param.NewOpt(true)}
	case FormatJSONObject:
		c.format.OfJSONObject = &shared.ResponseFormatJSONObjectParam{}
	}
	// The Responses service alone, not the SDK's whole client: the
	// client would read OPENAI_* variables (organisation, project, extra
	// headers) behind the config's back, and holding every service of the
	// API triples the binary's size (templates' reflection keeps the
	// methods of every type that is reachable).
	c.api = responses.NewResponseService(
		option.WithBaseURL(strings.TrimRight(cfg.BaseURL, "/")+"/"),
		option.WithAPIKey(key),
		option.WithHTTPClient(&capturingDoer{t: c.transport}),
		option.WithMaxRetries(0),
	)
	return c, nil
}

// responseSchema is the JSON schema the reply must follow, decoded for the
// SDKs (which take a map): the caller's Schema, else the action schema.
func responseSchema(cfg Config) (map[string]any, string, error) {
	raw, name := []byte(ActionSchema(cfg.ActionField)), "action"
	if len(cfg.Schema) > 0 {
		raw, name = cfg.Schema, "response"
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, "", fmt.Errorf("model: the response schema is not a JSON object: %w", err)
	}
	return schema, name, nil
}

// randomKey is a fresh identifier for a prompt cache key.
func randomKey() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "wright-" + hex.EncodeToString(b)
}

type cacheKeyCtx struct{}

// WithCacheKey gives the calls made under ctx a prompt cache key (OpenAI's
// prompt_cache_key): the harness sets one per run, so that a run's calls,
// which share their prefix, are routed to the same cache.
func WithCacheKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, cacheKeyCtx{}, key)
}

func cacheKeyFrom(ctx context.Context) string {
	k, _ := ctx.Value(cacheKeyCtx{}).(string)
	return k
}

// Complete sends the conversation as one Responses request.
func (c *responsesClient) Complete(ctx context.Context, messages []Message) (Reply, error) {
	var (
		params responses.ResponseNewParams
		err    error
	)
	build := func() { params, err = c.buildParams(ctx, messages) }
	if build(); err != nil {
		return Reply{}, err
	}
	reply, err := c.retry(ctx, func(ctx context.Context) (Reply, error) {
		return c.attempt(ctx, params)
	}, func(e *APIError) bool {
		switch {
		case c.cfg.Temperature != nil && c.refuses(e, "model.temperature", "temperature"):
		case c.refuses(e, "model.api", "prompt_cache_key"):
		case c.format.OfJSONSchema != nil && c.refusesThen(e, "model.response_format", "text.format",
			"the reply's shape is asked for in the prompt alone from now on (set model.response_format: none to say so)"):
		default:
			return false
		}
		build()
		return err == nil
	})
	return reply, c.scrubErr(err)
}

func (c *responsesClient) buildParams(ctx context.Context, messages []Message) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{
		Model: shared.ResponsesModel(c.cfg.Name),
		// Nothing is kept server-side: each request carries the whole
		// history, as with chat, and the prompt cache does the rest.
		Store: param.NewOpt(false),
	}
	if !c.dropped("text.format") {
		p.Text = responses.ResponseTextConfigParam{Format: c.format}
	}
	if c.cfg.MaxTokens > 0 {
		p.MaxOutputTokens = param.NewOpt(int64(c.cfg.MaxTokens))
	}
	if t := c.cfg.Temperature; t != nil && !c.dropped("temperature") {
		p.Temperature = param.NewOpt(*t)
	}
	if e := c.cfg.ReasoningEffort; e != "" {
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(e)}
	}
	if !c.dropped("prompt_cache_key") {
		key := cacheKeyFrom(ctx)
		if key == "" {
			key = c.cacheKey
		}
		p.PromptCacheKey = param.NewOpt(key)
	}
	var items responses.ResponseInputParam
	for i, m := range messages {
		var role responses.EasyInputMessageRole
		switch m.Role {
		case RoleExit:
			continue
		case RoleSystem:
			role = responses.EasyInputMessageRoleSystem
		case RoleUser:
			role = responses.EasyInputMessageRoleUser
		case RoleAssistant:
			role = responses.EasyInputMessageRoleAssistant
		default:
			return p, fmt.Errorf("model: message %d has role %q: only system, user and assistant can be sent", i, m.Role)
		}
		msg := responses.EasyInputMessageParam{Role: role}
		if len(m.Images) == 0 {
			msg.Content.OfString = param.NewOpt(m.Content)
		} else {
			var parts responses.ResponseInputMessageContentListParam
			if m.Content != "" {
				parts = append(parts, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: m.Content}})
			}
			for _, path := range m.Images {
				u, err := dataURL(path)
				if err != nil {
					return p, fmt.Errorf("model: message %d: %w", i, err)
				}
				parts = append(parts, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
					ImageURL: param.NewOpt(u), Detail: responses.ResponseInputImageDetailAuto,
				}})
			}
			msg.Content.OfInputItemContentList = parts
		}
		items = append(items, responses.ResponseInputItemUnionParam{OfMessage: &msg})
	}
	if len(items) == 0 {
		return p, fmt.Errorf("model: nothing to send: the conversation has no system, user or assistant message")
	}
	p.Input.OfInputItemList = items
	return p, nil
}

func (c *responsesClient) attempt(ctx context.Context, params responses.ResponseNewParams) (Reply, error) {
	actx, cancel := context.WithTimeout(ctx, seconds(c.cfg.TimeoutSeconds))
	defer cancel()
	ex := &exchange{}
	resp, err := c.api.New(context.WithValue(actx, exchangeKey{}, ex), params)
	if err != nil {
		return Reply{}, c.classifyHTTP(ctx, actx, err, ex)
	}
	if resp.Status == responses.ResponseStatusFailed {
		// A 200 that failed upstream (server_error, rate_limit_exceeded):
		// worth another attempt, like a 5xx.
		return Reply{}, &transientError{err: fmt.Errorf("the response failed: %s: %s", resp.Error.Code, c.scrub(resp.Error.Message))}
	}
	var text, refusal strings.Builder
	for _, item := range resp.Output {
		if item.Type != "message" {
			continue // reasoning items carry no answer
		}
		for _, part := range item.Content {
			switch part.Type {
			case "output_text":
				text.WriteString(part.Text)
			case "refusal":
				refusal.WriteString(part.Refusal)
			}
		}
	}
	content := text.String()
	if content == "" && refusal.Len() > 0 {
		// As with chat: show the refusal to the parser (and so to the
		// model) rather than an unexplained empty reply.
		content = refusal.String()
	}
	finish := "stop"
	switch {
	case refusal.Len() > 0 && text.Len() == 0:
		finish = "refusal"
	case resp.Status == responses.ResponseStatusIncomplete && resp.IncompleteDetails.Reason == "max_output_tokens":
		finish = "length"
	case resp.Status == responses.ResponseStatusIncomplete:
		finish = string(resp.IncompleteDetails.Reason)
	}
	u := Usage{
		PromptTokens:     int(resp.Usage.InputTokens),
		CompletionTokens: int(resp.Usage.OutputTokens),
		TotalTokens:      int(resp.Usage.TotalTokens),
		CachedTokens:     int(resp.Usage.InputTokensDetails.CachedTokens),
		ReasoningTokens:  int(resp.Usage.OutputTokensDetails.ReasoningTokens),
	}
	c.account(&u)
	return Reply{Content: content, FinishReason: finish, Usage: u, Raw: c.rawJSON(ex.body)}, nil
}

// scrubErr hides the key in an error's text, keeping its chain.
func (c *transport) scrubErr(err error) error {
	if err != nil && c.key != "" && strings.Contains(err.Error(), c.key) {
		return &scrubbedError{msg: strings.ReplaceAll(err.Error(), c.key, "[redacted]"), err: err}
	}
	return err
}
