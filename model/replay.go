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
//
// A recorded judge must judge what it is shown, so a reply may instead be
// keyed to the images it describes ("images": their ImageHash values): it
// answers every request that sends those images, in that order, and a
// request whose images no such reply knows gets the "unrecorded_images"
// reply (or an error) rather than a reply recorded for other screenshots.
type Replay struct {
	path    string
	replies []Reply
	matches []string   // per reply; "" answers any request, in order
	images  [][]string // per reply; the image hashes it answers, or nil
	// unrecorded is the reply for images no keyed reply knows; -1 none.
	unrecorded int

	mu   sync.Mutex
	used []bool
}

// NewReplay loads a replay file: one reply per line, each either
//
//	"a JSON string: the reply content"
//	{"content": "...", "finish_reason": "stop", "usage": {"prompt_tokens": 1, ...}, "match": "home.png"}
//	{"thought": "...", "bash_command": "...", ...}   (an action, sent as its JSON text)
//	{"content": "Score: 5 ...", "images": ["<ImageHash>", ...]}   (keyed to the screenshots it describes)
//	{"content": "... {images} ... Status: failure", "unrecorded_images": true}
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
	r := &Replay{path: path, unrecorded: -1}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 64*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		reply, key, err := parseReplayLine(line)
		if err != nil {
			return nil, fmt.Errorf("replay: %s line %d: %w", path, n, err)
		}
		if key.unrecorded {
			if r.unrecorded >= 0 {
				return nil, fmt.Errorf("replay: %s line %d: a second \"unrecorded_images\" reply", path, n)
			}
			r.unrecorded = len(r.replies)
		}
		r.replies = append(r.replies, reply)
		r.matches = append(r.matches, key.match)
		r.images = append(r.images, key.images)
	}
	r.used = make([]bool, len(r.replies))
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("replay: read %s: %w", path, err)
	}
	return r, nil
}

// replayKey is what a recorded reply answers: a request holding a text,
// one sending given images, or one whose images nothing else answers. The
// zero key answers any request, in order.
type replayKey struct {
	match      string
	images     []string
	unrecorded bool
}

func (k replayKey) inOrder() bool { return k.match == "" && k.images == nil && !k.unrecorded }

func parseReplayLine(line []byte) (Reply, replayKey, error) {
	raw := bytes.Clone(line)
	switch line[0] {
	case '"':
		var s string
		if err := json.Unmarshal(line, &s); err != nil {
			return Reply{}, replayKey{}, fmt.Errorf("not a JSON string: %w", err)
		}
		return Reply{Content: s, FinishReason: "stop", Raw: raw}, replayKey{}, nil
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil {
			return Reply{}, replayKey{}, fmt.Errorf("not a JSON object: %w", err)
		}
		if _, ok := obj["thought"]; ok {
			return Reply{Content: string(raw), FinishReason: "stop", Raw: raw}, replayKey{}, nil
		}
		var rec struct {
			Content      *string  `json:"content"`
			FinishReason string   `json:"finish_reason"`
			Usage        Usage    `json:"usage"`
			Match        string   `json:"match"`
			Images       []string `json:"images"`
			Unrecorded   bool     `json:"unrecorded_images"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return Reply{}, replayKey{}, fmt.Errorf("bad recorded reply: %w", err)
		}
		if rec.Content == nil {
			return Reply{}, replayKey{}, fmt.Errorf(`an object needs "content" (a recorded reply) or "thought" (an action)`)
		}
		if _, ok := obj["match"]; ok && strings.TrimSpace(rec.Match) == "" {
			return Reply{}, replayKey{}, fmt.Errorf(`"match" is empty: give the text (or image file name) of the request this reply answers, or leave it out`)
		}
		key := replayKey{match: rec.Match, images: rec.Images, unrecorded: rec.Unrecorded}
		if err := key.check(obj); err != nil {
			return Reply{}, replayKey{}, err
		}
		if rec.FinishReason == "" {
			rec.FinishReason = "stop"
		}
		if rec.Usage.TotalTokens == 0 {
			rec.Usage.TotalTokens = rec.Usage.PromptTokens + rec.Usage.CompletionTokens
		}
		return Reply{Content: *rec.Content, FinishReason: rec.FinishReason, Usage: rec.Usage, Raw: raw}, key, nil
	}
	return Reply{}, replayKey{}, fmt.Errorf("expected a JSON string or object")
}

// check refuses keys that say two things at once, and image keys that are
// not hashes.
func (k replayKey) check(obj map[string]json.RawMessage) error {
	if _, ok := obj["images"]; ok && len(k.images) == 0 {
		return fmt.Errorf(`"images" is empty: list the ImageHash of each image the request sends, or leave it out`)
	}
	set := 0
	for _, on := range []bool{k.match != "", k.images != nil, k.unrecorded} {
		if on {
			set++
		}
	}
	if set > 1 {
		return fmt.Errorf(`a reply answers by one of "match", "images" or "unrecorded_images", not several`)
	}
	for _, h := range k.images {
		if _, err := decodeHash(h); err != nil {
			return fmt.Errorf(`"images": %w`, err)
		}
	}
	return nil
}

// Len is the number of recorded replies.
func (r *Replay) Len() int { return len(r.replies) }

// Complete returns the recorded reply for msgs. A request that sends
// images, to a recording keyed to images, gets the reply recorded for
// those images (or the unrecorded_images reply); any other request gets
// the first unused reply whose match it holds, else the next unused one
// without a key.
func (r *Replay) Complete(ctx context.Context, msgs []Message) (Reply, error) {
	if err := ctx.Err(); err != nil {
		return Reply{}, fmt.Errorf("replay: %w", err)
	}
	if imgs := requestImages(msgs); len(imgs) > 0 && r.keyedToImages() {
		return r.forImages(imgs)
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
		for i := range r.replies {
			if !r.used[i] && r.key(i).inOrder() {
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

func (r *Replay) key(i int) replayKey {
	return replayKey{match: r.matches[i], images: r.images[i], unrecorded: i == r.unrecorded}
}

func (r *Replay) keyedToImages() bool {
	for _, h := range r.images {
		if h != nil {
			return true
		}
	}
	return r.unrecorded >= 0
}

// forImages answers a request that sends imgs from the replies keyed to
// images. They are not used up: a judge shown the same screenshots again
// says the same again.
func (r *Replay) forImages(imgs []string) (Reply, error) {
	hashes := make([]string, len(imgs))
	for i, img := range imgs {
		h, err := ImageHash(img)
		if err != nil {
			return Reply{}, fmt.Errorf("replay: %w", err)
		}
		hashes[i] = h
	}
	known := make([]bool, len(imgs))
	for i, want := range r.images {
		if want == nil {
			continue
		}
		for j, h := range hashes {
			for _, w := range want {
				known[j] = known[j] || sameImage(h, w)
			}
		}
		if sameImages(hashes, want) {
			reply := r.replies[i]
			reply.Raw = bytes.Clone(reply.Raw)
			return reply, nil
		}
	}
	// Name the images no recording shows; when each is recorded but not
	// together, all of them.
	var unknown []string
	for j, img := range imgs {
		if !known[j] {
			unknown = append(unknown, filepath.Base(img))
		}
	}
	if len(unknown) == 0 {
		for _, img := range imgs {
			unknown = append(unknown, filepath.Base(img))
		}
	}
	names := strings.Join(unknown, ", ")
	if r.unrecorded < 0 {
		return Reply{}, fmt.Errorf("replay: no reply in %s was recorded for %s (image hashes %s)", r.path, names, strings.Join(hashes, " "))
	}
	reply := r.replies[r.unrecorded]
	reply.Content = strings.ReplaceAll(reply.Content, "{images}", names)
	reply.Raw = bytes.Clone(reply.Raw)
	return reply, nil
}

func sameImages(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !sameImage(got[i], want[i]) {
			return false
		}
	}
	return true
}

func sameImage(a, b string) bool {
	d, err := HashDistance(a, b)
	return err == nil && d <= ImageHashTolerance
}

// requestImages are the images msgs send, in order.
func requestImages(msgs []Message) []string {
	var imgs []string
	for _, m := range msgs {
		imgs = append(imgs, m.Images...)
	}
	return imgs
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
