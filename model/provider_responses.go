package model

import "encoding/json"

// APIResponses is OpenAI's Responses API.
const APIResponses = "responses"

// responsesProvider takes OpenAI's key, variables and endpoint, as chat does.
var responsesProvider = Provider{
	Name: APIResponses,
	New: func(cfg Config, key string, warn func(string)) (Client, error) {
		return newResponses(cfg, key, warn)
	},
	KeyEnv:     DefaultAPIKeyEnv,
	BaseURLEnv: "OPENAI_BASE_URL",
	BaseURL:    DefaultBaseURL,
	AuthHeader: "Authorization",
	AuthPrefix: "Bearer ",
	Path:       "/responses",
	ProbePath:  "/models",
	ParseUsage: responsesUsage,
	TraceName:  "openai",
}

// responsesUsage reads a response's usage, whose input_tokens already
// holds the cached part.
func responsesUsage(body []byte) Usage {
	var answer struct {
		Usage struct {
			InputTokens        int `json:"input_tokens"`
			OutputTokens       int `json:"output_tokens"`
			InputTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
		} `json:"usage"`
	}
	if json.Unmarshal(body, &answer) != nil {
		return Usage{}
	}
	a := answer.Usage
	return Usage{PromptTokens: a.InputTokens, CompletionTokens: a.OutputTokens, CachedTokens: a.InputTokensDetails.CachedTokens}
}
