package model

import "encoding/json"

// APIAnthropic is Anthropic's Messages API.
const APIAnthropic = "anthropic"

// Anthropic's defaults.
const (
	DefaultAnthropicBaseURL   = "https://api.anthropic.com/v1"
	DefaultAnthropicAPIKeyEnv = "ANTHROPIC_API_KEY"
)

// anthropicVersion is sent by callers of their own (the key proxy,
// doctor) when the request has none: the API refuses a request without
// it. The SDK sends its own.
const anthropicVersion = "2023-06-01"

var anthropicProvider = Provider{
	Name: APIAnthropic,
	New: func(cfg Config, key string, warn func(string)) (Client, error) {
		return newAnthropic(cfg, key, warn)
	},
	KeyEnv:     DefaultAnthropicAPIKeyEnv,
	BaseURLEnv: "ANTHROPIC_BASE_URL",
	BaseURL:    DefaultAnthropicBaseURL,
	AuthHeader: "X-Api-Key",
	Headers:    map[string]string{"Anthropic-Version": anthropicVersion},
	Path:       "/messages",
	ProbePath:  "/models",
	ParseUsage: anthropicUsage,
	TraceName:  "anthropic",
	Thinking:   true,
}

// anthropicUsage reads a message's usage. Its input_tokens leaves out
// what the cache read and wrote, so the whole prompt is the sum of the
// three.
func anthropicUsage(body []byte) Usage {
	var answer struct {
		Usage struct {
			InputTokens              int `json:"input_tokens"`
			OutputTokens             int `json:"output_tokens"`
			CacheReadInputTokens     int `json:"cache_read_input_tokens"`
			CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &answer) != nil {
		return Usage{}
	}
	a := answer.Usage
	return Usage{PromptTokens: a.InputTokens + a.CacheReadInputTokens + a.CacheCreationInputTokens,
		CachedTokens: a.CacheReadInputTokens, CacheWriteTokens: a.CacheCreationInputTokens, CompletionTokens: a.OutputTokens}
}
