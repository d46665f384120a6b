// Package model talks to the language model: the chat message types shared by
// the whole program, the clients of the three wire APIs (OpenAI-compatible
// chat, OpenAI's Responses, Anthropic's Messages), the replay client, and
// the parser that turns a reply into one validated action.
package model

import "context"

// Roles of a message in the history. "exit" never reaches the model: it is the
// loop's only way out, and carries the exit status in Meta.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleExit      = "exit"
)

// Message is one entry of the conversation and of trajectory.json.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
	// Images are paths of image files (PNG or JPEG) sent with the message.
	// The client turns them into data URLs only when it builds a request, so
	// no image bytes ever reach trajectory.json.
	Images []string `json:"images,omitempty"`
	// Meta is what the loop records about the message, never sent to the
	// model; nil for none.
	Meta *Meta `json:"extra,omitempty"`
}

// Usage is what one model call cost. PromptTokens counts the whole prompt,
// cached or not, on every API (Anthropic reports cache reads and writes
// apart from input_tokens; they are added in); CachedTokens is the part the
// provider served from its prompt cache and CacheWriteTokens the part it
// wrote to it. ReasoningTokens are part of CompletionTokens.
type Usage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	TotalTokens      int     `json:"total_tokens"`
	CachedTokens     int     `json:"cached_tokens"`
	CacheWriteTokens int     `json:"cache_write_tokens,omitempty"`
	ReasoningTokens  int     `json:"reasoning_tokens,omitempty"`
	Cost             float64 `json:"cost"`
}

// Uncached is the part of the prompt the provider did not serve from its
// cache.
func (u Usage) Uncached() int { return max(u.PromptTokens-u.CachedTokens, 0) }

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + o.PromptTokens,
		CompletionTokens: u.CompletionTokens + o.CompletionTokens,
		TotalTokens:      u.TotalTokens + o.TotalTokens,
		CachedTokens:     u.CachedTokens + o.CachedTokens,
		CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
		ReasoningTokens:  u.ReasoningTokens + o.ReasoningTokens,
		Cost:             u.Cost + o.Cost,
	}
}

// Reply is the model's answer to one request.
type Reply struct {
	Content      string `json:"content"`
	FinishReason string `json:"finish_reason,omitempty"` // "stop", "length", ...
	Usage        Usage  `json:"usage"`
	// Raw is the endpoint's response body (or the replay line), kept for
	// raw_responses.jsonl.
	Raw []byte `json:"-"`
}

// Client asks a model for the next reply. Implementations retry transient
// failures themselves; an error they return is final for the run.
type Client interface {
	Complete(ctx context.Context, messages []Message) (Reply, error)
}

// Action is one validated turn of the action protocol.
type Action struct {
	Thought       string `json:"thought"`
	Code          string `json:"code"`  // the value of the action field (bash_command or python_code)
	Field         string `json:"field"` // the action field's name
	Done          bool   `json:"done"`
	FinalResponse string `json:"final_response"`
	// Demoted is set when the model said done with a non-empty action: the
	// action runs and done is ignored.
	Demoted bool `json:"demoted,omitempty"`
}
