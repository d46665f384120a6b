package modeltest

import (
	"encoding/json"
	"fmt"

	"wright/model"
)

func init() {
	RegisterWire(model.APIAnthropic, Wire{Reply: messagesAnswer, Error: anthropicError})
}

// anthropicError is an error body in Anthropic's shape.
func anthropicError(_ int, typ, message string) any {
	return map[string]any{"type": "error", "error": map[string]any{"message": message, "type": typ}}
}

// messagesAnswer is an Anthropic Messages API message. A request that
// forces a tool gets the content as that tool's input, as the API gives it.
func messagesAnswer(req Request, a Answer) any {
	body := req.JSON()
	stop := "end_turn"
	content := []any{map[string]any{"type": "text", "text": a.Content}}
	if choice, _ := body["tool_choice"].(map[string]any); choice["type"] == "tool" {
		var input any
		if json.Unmarshal([]byte(a.Content), &input) == nil {
			stop = "tool_use"
			content = []any{map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_modeltest_%d", a.Served), "name": choice["name"], "input": input}}
		}
	}
	if a.Refusal {
		stop = "refusal"
	}
	if a.FinishReason == "length" {
		stop = "max_tokens"
	}
	return map[string]any{
		"id": fmt.Sprintf("msg_modeltest_%d", a.Served), "type": "message", "role": "assistant",
		"model": body["model"], "content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{
			// Anthropic's input_tokens leaves out what the cache read or wrote.
			"input_tokens":                max(a.PromptTokens-a.CachedTokens-a.CacheWriteTokens, 0),
			"cache_read_input_tokens":     a.CachedTokens,
			"cache_creation_input_tokens": a.CacheWriteTokens,
			"output_tokens":               a.CompletionTokens,
			"output_tokens_details":       map[string]any{"thinking_tokens": a.ReasoningTokens},
		},
	}
}
