package modeltest

import (
	"fmt"
	"time"

	"wright/model"
)

func init() {
	RegisterWire(model.APIResponses, Wire{Reply: responsesAnswer, Error: openAIError})
}

// responsesAnswer is a Responses API response object.
func responsesAnswer(req Request, a Answer) any {
	part := map[string]any{"type": "output_text", "text": a.Content, "annotations": []any{}}
	if a.Refusal {
		part = map[string]any{"type": "refusal", "refusal": a.Content}
	}
	out := map[string]any{
		"id": fmt.Sprintf("resp-modeltest-%d", a.Served), "object": "response", "created_at": time.Now().Unix(),
		"status": "completed", "model": req.JSON()["model"], "error": nil, "incomplete_details": nil,
		"output": []any{
			map[string]any{"type": "reasoning", "id": "rs-modeltest", "summary": []any{}},
			map[string]any{"type": "message", "id": fmt.Sprintf("msg-modeltest-%d", a.Served), "status": "completed", "role": "assistant", "content": []any{part}},
		},
		"usage": map[string]any{
			"input_tokens":          a.PromptTokens,
			"input_tokens_details":  map[string]any{"cached_tokens": a.CachedTokens},
			"output_tokens":         a.CompletionTokens,
			"output_tokens_details": map[string]any{"reasoning_tokens": a.ReasoningTokens},
			"total_tokens":          a.PromptTokens + a.CompletionTokens,
		},
	}
	if a.FinishReason == "length" {
		out["status"] = "incomplete"
		out["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	return out
}
