package model

import "encoding/json"

// APIChat is OpenAI-compatible Chat Completions: OpenAI, OpenRouter, vLLM,
// Ollama, LM Studio and most other servers.
const APIChat = "chat"

// DefaultAPI is the API of a config that names none.
const DefaultAPI = APIChat

// The OpenAI defaults, shared by chat and responses.
const (
	DefaultBaseURL   = "https://api.openai.com/v1"
	DefaultAPIKeyEnv = "OPENAI_API_KEY"
)

var chatProvider = Provider{
	Name: APIChat,
	New: func(cfg Config, key string, warn func(string)) (Client, error) {
		return newOpenAI(cfg, key, warn)
	},
	KeyEnv:     DefaultAPIKeyEnv,
	BaseURLEnv: "OPENAI_BASE_URL",
	BaseURL:    DefaultBaseURL,
	AuthHeader: "Authorization",
	AuthPrefix: "Bearer ",
	Path:       "/chat/completions",
	ProbePath:  "/models",
	ParseUsage: chatUsage,
	TraceName:  "openai",
}

// chatUsage reads a chat completion's usage, whose prompt_tokens already
// holds the cached part.
func chatUsage(body []byte) Usage {
	var answer struct {
		Usage struct {
			PromptTokens        int `json:"prompt_tokens"`
			CompletionTokens    int `json:"completion_tokens"`
			PromptTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"prompt_tokens_details"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &answer) != nil {
		return Usage{}
	}
	a := answer.Usage
	return Usage{PromptTokens: a.PromptTokens, CompletionTokens: a.CompletionTokens, CachedTokens: a.PromptTokensDetails.CachedTokens}
}
