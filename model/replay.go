package model

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Replay answers from a recorded list of replies, in order: demos, tests and
// regression runs without an endpoint. Calls made at once (the judge scores
// screenshots in parallel) arrive in no set order, so a reply recorded with
// "match" goes to the request it was recorded for: the first unused such
// reply whose text occurs in the request (a message's text, or the file
// name of an image it sends). Replies without "match" are handed out in
// order to the requests no matched reply answers.
type Replay struct {
	path    string
	replies []Reply
	matches []string // per reply; "" answers any request, in order

	mu   sync.Mutex
	used []bool
}

// NewReplay loads a replay file: one reply per line, each either
//
//	"a JSON string: the reply content"
//	{"content": "...", "finish_reason": "stop", "usage": {"prompt_tokens": 1, ...}, "match": "home.png"}
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
		reply, match, err := parseReplayLine(line)
		if err != nil {
			return nil, fmt.Errorf("replay: %s line %d: %w", path, n, err)
		}
		r.replies = append(r.replies, reply)
		r.matches = append(r.matches, match)
	}
	r.used = make([]bool, len(r.replies))
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: read %s: %w", path, err)
	}
	return r, nil
}

func parseReplayLine(line []byte) (Reply, string, error) {
	raw := bytes.Clone(line)
	switch line[0] {
	case '"':
		var s string
		if err := json.Unmarshal(line, &s); err != nil {
			return Reply{}, "", fmt.Errorf("not a JSON string: %w", err)
		}
		return Reply{Content: s, FinishReason: "stop", Raw: raw}, "", nil
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil {
			return Reply{}, "", fmt.Errorf("not a JSON object: %w", err)
		}
		if _, ok := obj["thought"]; ok {
			return Reply{Content: string(raw), FinishReason: "stop", Raw: raw}, "", nil
		}
		var rec struct {
			Content      *string `json:"content"`
			FinishReason string  `json:"finish_reason"`
			Usage        Usage   `json:"usage"`
			Match        string  `json:"match"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return Reply{}, "", fmt.Errorf("bad recorded reply: %w", err)
		}
		if rec.Content == nil {
			return Reply{}, "", fmt.Errorf(`an object needs "content" (a recorded reply) or "thought" (an action)`)
		}
		if _, ok := obj["match"]; ok && strings.TrimSpace(rec.Match) == "" {
			return Reply{}, "", fmt.Errorf(`"match" is empty: give the text (or image file name) of the request this reply answers, or leave it out`)
		}
		if rec.FinishReason == "" {
			rec.FinishReason = "stop"
		}
		if rec.Usage.TotalTokens == 0 {
			rec.Usage.TotalTokens = rec.Usage.PromptTokens + rec.Usage.CompletionTokens
		}
		return Reply{Content: *rec.Content, FinishReason: rec.FinishReason, Usage: rec.Usage, Raw: raw}, rec.Match, nil
	}
	return Reply{}, "", fmt.Errorf("expected a JSON string or object")
}

// Len is the number of recorded replies.
func (r *Replay) Len() int { return len(r.replies) }

// Complete returns the recorded reply for msgs: the first unused one whose
// match the request holds, else the next unused one without a match.
func (r *Replay) Complete(ctx context.Context, msgs []Message) (Reply, error) {
	if err := ctx.Err(); err != nil {
		return Reply{}, fmt.Errorf("replay: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pick := -1
	for i, m := range r.matches {
		if !r.used[i] && m != "" && requestHolds(msgs, m) {
			pick = i
			break
		}
	}
	if pick < 0 {
		for i, m := range r.matches {
			if !r.used[i] && m == "" {
				pick = i
				break
			}
		}
	}
	if pick < 0 {
		return Reply{}, fmt.Errorf("replay: no more replies after %d (%s)", len(r.replies), r.path)
	}
	r.used[pick] = true
	reply := r.replies[pick]
	reply.Raw = bytes.Clone(reply.Raw)
	return reply, nil
}

// requestHolds reports whether text occurs in a message of msgs, or is the
// file name of an image one sends.
func requestHolds(msgs []Message, text string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Content, text) {
			return true
		}
		for _, img := range m.Images {
			if filepath.Base(img) == text || strings.Contains(img, text) {
				return true
			}
		}
	}
	return false
}
