package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
)

// Replay answers from a recorded list of replies, in order: demos, tests and
// regression runs without an endpoint. It is meant for one goroutine at a
// time: calls are serialised, but from several goroutines the order in which
// they receive the replies is not defined.
type Replay struct {
	path    string
	replies []Reply

	mu   sync.Mutex
	next int
}

// NewReplay loads a replay file: one reply per line, each either
//
//	"a JSON string: the reply content"
//	{"content": "...", "finish_reason": "stop", "usage": {"prompt_tokens": 1, ...}}
//	{"thought": "...", "bash_command": "...", ...}   (an action, sent as its JSON text)
//
// Blank lines and lines starting with # are skipped. The whole file is
// checked here, so a bad line fails before the run starts.
func NewReplay(path string) (*Replay, error) {
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("replay: no file: use replay:<file.jsonl>")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	defer f.Close()
	r := &Replay{path: path}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		reply, err := parseReplayLine(line)
		if err != nil {
			return nil, fmt.Errorf("replay: %s line %d: %w", path, n, err)
		}
		r.replies = append(r.replies, reply)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: read %s: %w", path, err)
	}
	return r, nil
}

func parseReplayLine(line []byte) (Reply, error) {
	raw := bytes.Clone(line)
	switch line[0] {
	case '"':
		var s string
		if err := json.Unmarshal(line, &s); err != nil {
			return Reply{}, fmt.Errorf("not a JSON string: %w", err)
		}
		return Reply{Content: s, FinishReason: "stop", Raw: raw}, nil
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil {
			return Reply{}, fmt.Errorf("not a JSON object: %w", err)
		}
		if _, ok := obj["thought"]; ok {
			return Reply{Content: string(raw), FinishReason: "stop", Raw: raw}, nil
		}
		var rec struct {
			Content      *string `json:"content"`
			FinishReason string  `json:"finish_reason"`
			Usage        Usage   `json:"usage"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return Reply{}, fmt.Errorf("bad recorded reply: %w", err)
		}
		if rec.Content == nil {
			return Reply{}, fmt.Errorf(`an object needs "content" (a recorded reply) or "thought" (an action)`)
		}
		if rec.FinishReason == "" {
			rec.FinishReason = "stop"
		}
		if rec.Usage.TotalTokens == 0 {
			rec.Usage.TotalTokens = rec.Usage.PromptTokens + rec.Usage.CompletionTokens
		}
		return Reply{Content: *rec.Content, FinishReason: rec.FinishReason, Usage: rec.Usage, Raw: raw}, nil
	}
	return Reply{}, fmt.Errorf("expected a JSON string or object")
}

// Len is the number of recorded replies.
func (r *Replay) Len() int { return len(r.replies) }

// Complete returns the next recorded reply; the messages are ignored.
func (r *Replay) Complete(ctx context.Context, _ []Message) (Reply, error) {
	if err := ctx.Err(); err != nil {
		return Reply{}, fmt.Errorf("replay: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next >= len(r.replies) {
		return Reply{}, fmt.Errorf("replay: no more replies after %d (%s)", len(r.replies), r.path)
	}
	reply := r.replies[r.next]
	r.next++
	reply.Raw = bytes.Clone(reply.Raw)
	return reply, nil
}
