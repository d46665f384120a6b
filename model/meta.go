package model

import "wright/env"

// ExitStatus is how a run ended: Submitted, LimitsExceeded, ... (the loop's
// constants, package agent).
type ExitStatus string

// Meta is what the loop records about a message for people and tools; it
// is never sent to the model. In trajectory.json it is the message's
// "extra" object, with the same keys as ever. The fields are in the order
// of their keys, as a map's keys were written.
type Meta struct {
	// ExitStatus is set on the exit message only.
	ExitStatus ExitStatus `json:"exit_status,omitempty"`
	// FinalResponse is the answer, on a Submitted exit message.
	FinalResponse string `json:"final_response,omitempty"`
	// FinishReason is the endpoint's, on an assistant message.
	FinishReason string `json:"finish_reason,omitempty"`
	// InterruptType names a message the loop added in place of an
	// observation: FormatError, SelfReflectionGate, SystemNotice,
	// HistoryCompaction.
	InterruptType string `json:"interrupt_type,omitempty"`
	// Observation is set on an observation message.
	Observation *env.Observation `json:"observation,omitempty"`
	// PromptTokens is the prompt size of the call that produced an
	// assistant message.
	PromptTokens int `json:"prompt_tokens,omitempty"`
	// Pruned marks an observation whose bulky parts were replaced.
	Pruned bool `json:"pruned,omitempty"`
	// Step is the model call the message belongs to.
	Step int `json:"step,omitempty"`
	// Task marks the message that states the task.
	Task bool `json:"task,omitempty"`
	// TokensAfter and TokensBefore are a compaction's history sizes, on
	// its summary message.
	TokensAfter  int `json:"tokens_after,omitempty"`
	TokensBefore int `json:"tokens_before,omitempty"`
	// Usage is the cost of the call that produced an assistant message.
	Usage *Usage `json:"usage,omitempty"`
}

// IsZero reports a message with nothing recorded (no "extra" in JSON).
func (m *Meta) IsZero() bool { return m == nil || *m == Meta{} }
