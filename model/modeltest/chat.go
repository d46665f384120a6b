package modeltest

import (
	"fmt"
	"time"

	"wright/model"
)

func init() {
	RegisterWire(model.APIChat, Wire{Reply: chatAnswer, Error: openAIError})
}

// openAIError is an error body in OpenAI's shape, which chat and
// responses share.
func openAIError(_ int, typ, message string) any {
	return map[string]any{"error": map[string]any{"message": message, "type": typ, "code": nil}}
}

// chatAnswer is a chat.completion.
func chatAnswer(req Request, a Answer) any {
	finish := a.FinishReason
	if finish == "" {
		finish = "stop"
	}
	msg := map[string]any{"role": "assistant", "content": a.Content}
	if a.Refusal {
		msg = map[string]any{"role": "assistant", "content": nil, "refusal": a.Content}
	}
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-modeltest-%d", a.Served),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   req.Chat().Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{
			"prompt_tokens":             a.PromptTokens,
			"completion_tokens":         a.CompletionTokens,
			"total_tokens":              a.PromptTokens + a.CompletionTokens,
			"prompt_tokens_details":     map[string]any{"cached_tokens": a.CachedTokens},
			"completion_tokens_details": map[string]any{"reasoning_tokens": a.ReasoningTokens},
		},
	}
}
