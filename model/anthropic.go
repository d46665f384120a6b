package model

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// toolName is the forced tool that carries the reply when the model has no
// structured output: its input is the action object.
const toolName = "answer"

// anthropicClient speaks Anthropic's Messages API through the provider's Go
// SDK, with the transport's retries (the SDK's are off), raw bodies and
// headers. The system prompt and the newest turns carry cache breakpoints,
// so that each call reads the previous call's prompt from the cache.
type anthropicClient struct {
	*transport
	api    anthropic.MessageService
	schema map[string]any
}

func newAnthropic(cfg Config, key string, warn func(string)) (*anthropicClient, error) {
	c := &anthropicClient{transport: newTransport(cfg, key, warn)}
	if t := cfg.Temperature; t != nil && (*t < 0 || *t > 1) {
		return nil, fmt.Errorf("model: temperature %v is outside 0..1 (the Anthropic API's range)", *t)
	}
	if cfg.ResponseFormat == FormatJSONSchema {
		schema, _, err := responseSchema(cfg)
		if err != nil {
			return nil, err
		}
		c.schema = schema
	}
	if c.cfg.MaxTokens == 0 {
		c.cfg.MaxTokens = DefaultAnthropicMaxTokens
	}
	opts := []option.RequestOption{
		// The key comes from model.api_key_env alone, never from the SDK's
		// own reading of the environment.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(apiRoot(cfg.BaseURL) + "/"),
		option.WithHTTPClient(&capturingDoer{t: c.transport}),
		option.WithMaxRetries(0),
	}
	if key != "" {
		opts = append(opts, option.WithHeader("x-api-key", key))
	}
	// The Messages service alone, not the SDK's whole client, whose every
	// service (files, skills, organisations, ...) would stay in the binary.
	c.api = anthropic.NewMessageService(opts...)
	return c, nil
}

// Complete sends the conversation as one Messages request.
func (c *anthropicClient) Complete(ctx context.Context, messages []Message) (Reply, error) {
	var (
		params anthropic.MessageNewParams
		err    error
	)
	build := func() { params, err = c.buildParams(messages) }
	if build(); err != nil {
		return Reply{}, err
	}
	reply, err := c.retry(ctx, func(ctx context.Context) (Reply, error) {
		return c.attempt(ctx, params)
	}, func(e *APIError) bool {
		switch {
		case c.cfg.Temperature != nil && c.refuses(e, "model.temperature", "temperature"):
		case c.schema != nil && c.refusesThen(e, "model.response_format", "output_config.format",
			"the reply's schema goes as a forced tool from now on (model.response_format: none asks for neither)"):
			// A model without structured output: the forced tool carries
			// the schema instead.
		default:
			return false
		}
		build()
		return err == nil
	})
	return reply, c.scrubErr(err)
}

func (c *anthropicClient) buildParams(messages []Message) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(c.cfg.Name),
		MaxTokens: int64(c.cfg.MaxTokens),
	}
	c.setOutput(&p)

	var turns []anthropic.MessageParam
	var roles []string
	for i, m := range messages {
		switch m.Role {
		case RoleExit:
			continue
		case RoleSystem:
			if len(turns) == 0 {
				p.System = append(p.System, anthropic.TextBlockParam{Text: m.Content})
				continue
			}
			// A system note inside the history stays where it is, as a
			// user turn: the API has one system prompt, at the top.
		case RoleUser, RoleAssistant:
		default:
			return p, fmt.Errorf("model: message %d has role %q: only system, user and assistant can be sent", i, m.Role)
		}
		role := m.Role
		if role == RoleSystem {
			role = RoleUser
		}
		blocks, err := contentBlocks(m)
		if err != nil {
			return p, fmt.Errorf("model: message %d: %w", i, err)
		}
		// The API wants turns to alternate: consecutive messages of one
		// role (an observation and a notice) become one turn.
		if n := len(turns); n > 0 && roles[n-1] == role {
			appendBlocks(&turns[n-1], blocks)
			continue
		}
		turn := anthropic.NewUserMessage(blocks...)
		if role == RoleAssistant {
			turn = anthropic.NewAssistantMessage(blocks...)
		}
		turns = append(turns, turn)
		roles = append(roles, role)
	}
	if len(turns) == 0 {
		if len(p.System) == 0 {
			return p, fmt.Errorf("model: nothing to send: the conversation has no system, user or assistant message")
		}
		return p, fmt.Errorf("model: nothing to send but a system prompt: the Messages API needs a user turn")
	}
	markCache(p.System, turns, roles)
	p.Messages = turns
	return p, nil
}

// setOutput asks for the configured thinking and effort, and for the
// reply's schema: as the output format, or as a tool once the model has
// refused that.
func (c *anthropicClient) setOutput(p *anthropic.MessageNewParams) {
	thinking := c.cfg.Thinking == ThinkingAdaptive
	if thinking {
		p.Thinking.OfAdaptive = &anthropic.ThinkingConfigAdaptiveParam{}
	}
	if e := c.cfg.ReasoningEffort; e != "" {
		p.OutputConfig.Effort = anthropicEffort(e)
	}
	if c.schema != nil {
		if !c.dropped("output_config.format") {
			p.OutputConfig.Format = anthropic.JSONOutputFormatParam{Schema: c.schema}
		} else {
			p.Tools = []anthropic.ToolUnionParam{{OfTool: toolFor(c.schema)}}
			// Thinking allows no forced tool: then the model is asked to
			// use it, and a text answer is parsed as it is.
			if thinking {
				p.ToolChoice.OfAuto = &anthropic.ToolChoiceAutoParam{}
			} else {
				p.ToolChoice = anthropic.ToolChoiceParamOfTool(toolName)
			}
		}
	}
}

// markCache sets the cache breakpoints: the system prompt, which never
// changes in a run; the newest turn, which the next call extends (a write
// now, a read then); and the user turn before it, which the next call
// still finds if the newest one is edited (an observation pruned). roles
// are the turns' roles.
func markCache(system []anthropic.TextBlockParam, turns []anthropic.MessageParam, roles []string) {
	if n := len(system); n > 0 {
		system[n-1].CacheControl = anthropic.NewCacheControlEphemeralParam()
	}
	marked := 0
	for i := len(turns) - 1; i >= 0 && marked < 2; i-- {
		if roles[i] == RoleUser && markLast(&turns[i]) {
			marked++
		}
	}
}

// toolFor is the forced tool whose input schema is the reply's.
func toolFor(schema map[string]any) *anthropic.ToolParam {
	in := anthropic.ToolInputSchemaParam{Properties: schema["properties"], ExtraFields: map[string]any{}}
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				in.Required = append(in.Required, s)
			}
		}
	}
	for k, v := range schema {
		if k != "properties" && k != "required" && k != "type" {
			in.ExtraFields[k] = v
		}
	}
	t := &anthropic.ToolParam{Name: toolName, InputSchema: in}
	t.Description = anthropic.String("Give your whole reply as this tool's input.")
	return t
}

// anthropicEffort maps model.reasoning_effort onto the API's effort levels,
// which start at low: none and minimal ask for as little as there is.
func anthropicEffort(e string) anthropic.OutputConfigEffort {
	switch e {
	case "none", "minimal":
		return anthropic.OutputConfigEffortLow
	}
	return anthropic.OutputConfigEffort(e)
}

// contentBlocks is a message's text and images as content blocks. The API
// refuses an empty text block, so an empty message says so in words.
func contentBlocks(m Message) ([]anthropic.ContentBlockParamUnion, error) {
	var blocks []anthropic.ContentBlockParamUnion
	if strings.TrimSpace(m.Content) != "" {
		blocks = append(blocks, anthropic.NewTextBlock(m.Content))
	}
	for _, path := range m.Images {
		mime, data, err := imageData(path)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, anthropic.NewImageBlockBase64(mime, data))
	}
	if len(blocks) == 0 {
		blocks = append(blocks, anthropic.NewTextBlock("(empty)"))
	}
	return blocks, nil
}

func appendBlocks(turn *anthropic.MessageParam, blocks []anthropic.ContentBlockParamUnion) {
	if turn.OfUser != nil {
		turn.OfUser.Content = append(turn.OfUser.Content, blocks...)
	} else if turn.OfAssistant != nil {
		turn.OfAssistant.Content = append(turn.OfAssistant.Content, blocks...)
	}
}

// markLast puts a cache breakpoint on a user turn's last block.
func markLast(turn *anthropic.MessageParam) bool {
	if turn.OfUser == nil || len(turn.OfUser.Content) == 0 {
		return false
	}
	b := &turn.OfUser.Content[len(turn.OfUser.Content)-1]
	switch {
	case b.OfText != nil:
		b.OfText.CacheControl = anthropic.NewCacheControlEphemeralParam()
	case b.OfImage != nil:
		b.OfImage.CacheControl = anthropic.NewCacheControlEphemeralParam()
	default:
		return false
	}
	return true
}

// imageData reads an image for a base64 block, its type from its content.
func imageData(path string) (string, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("read image: %w", err)
	}
	mime := http.DetectContentType(data)
	switch mime {
	case "image/png", "image/jpeg", "image/webp", "image/gif":
	default:
		return "", "", fmt.Errorf("image %s is %s, not PNG or JPEG", path, mime)
	}
	return mime, base64.StdEncoding.EncodeToString(data), nil
}

func (c *anthropicClient) attempt(ctx context.Context, params anthropic.MessageNewParams) (Reply, error) {
	timeout := seconds(c.cfg.TimeoutSeconds)
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ex := &exchange{}
	var opts []option.RequestOption
	// The SDK refuses long non-streaming requests unless a timeout is
	// given; ours is per attempt anyway.
	opts = append(opts, option.WithRequestTimeout(timeout))
	if t := c.cfg.Temperature; t != nil && !c.dropped("temperature") && params.Thinking.OfAdaptive == nil {
		// The SDK has no sampling fields any more; the API still takes
		// temperature from models that accept it.
		opts = append(opts, option.WithJSONSet("temperature", *t))
	}
	resp, err := c.api.New(context.WithValue(actx, exchangeKey{}, ex), params, opts...)
	if err != nil {
		return Reply{}, c.classifyHTTP(ctx, actx, err, ex)
	}
	var text strings.Builder
	for _, b := range resp.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			if text.Len() == 0 && len(b.Input) > 0 {
				text.Write(b.Input)
			}
		}
	}
	content := text.String()
	finish := string(resp.StopReason)
	switch resp.StopReason {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonToolUse, anthropic.StopReasonStopSequence:
		finish = "stop"
	case anthropic.StopReasonMaxTokens:
		finish = "length"
	case anthropic.StopReasonRefusal:
		if strings.TrimSpace(content) == "" {
			content = "The model declined to answer (stop_reason: refusal)."
		}
	}
	u := Usage{
		PromptTokens:     int(resp.Usage.InputTokens + resp.Usage.CacheReadInputTokens + resp.Usage.CacheCreationInputTokens),
		CompletionTokens: int(resp.Usage.OutputTokens),
		CachedTokens:     int(resp.Usage.CacheReadInputTokens),
		CacheWriteTokens: int(resp.Usage.CacheCreationInputTokens),
		ReasoningTokens:  int(resp.Usage.OutputTokensDetails.ThinkingTokens),
	}
	c.account(&u)
	return Reply{Content: content, FinishReason: finish, Usage: u, Raw: c.rawJSON(ex.body)}, nil
}
