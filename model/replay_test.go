package model

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReplayLineForms(t *testing.T) {
	c, err := New(Config{Name: "replay:" + filepath.Join("testdata", "replay_demo.jsonl")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want := []struct {
		thought string
		code    string
		done    bool
		usage   Usage
	}{
		{"See what is in the workspace.", "ls -la", false, Usage{}},
		{"Read the task.", "cat task.json", false, Usage{}},
		{"Finished.", "", true, Usage{PromptTokens: 1200, CompletionTokens: 40, TotalTokens: 1240, Cost: 0.0031}},
	}
	for i, w := range want {
		reply, err := c.Complete(ctx, nil)
		if err != nil {
			t.Fatalf("reply %d: %v", i+1, err)
		}
		if reply.FinishReason != "stop" || reply.Usage != w.usage || len(reply.Raw) == 0 {
			t.Errorf("reply %d: finish %q usage %+v raw %q", i+1, reply.FinishReason, reply.Usage, reply.Raw)
		}
		a, err := ParseAction(reply.Content, reply.FinishReason, FieldBash)
		if err != nil {
			t.Fatalf("reply %d does not parse: %v\n%s", i+1, err, reply.Content)
		}
		if a.Thought != w.thought || a.Code != w.code || a.Done != w.done {
			t.Errorf("reply %d: %+v", i+1, a)
		}
	}
	_, err = c.Complete(ctx, nil)
	if err == nil || !strings.Contains(err.Error(), "no more replies after 3") {
		t.Errorf("after the last reply: err = %v", err)
	}
}

func TestReplayRecordedFinishReason(t *testing.T) {
	path := writeReplay(t, `{"content": "{\"thought\": \"long", "finish_reason": "length"}`+"\n"+`"plain text"`)
	r, err := NewReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := r.Complete(context.Background(), nil)
	second, _ := r.Complete(context.Background(), nil)
	if first.FinishReason != "length" || first.Content != `{"thought": "long` {
		t.Errorf("first = %+v", first)
	}
	if second.Content != "plain text" || string(second.Raw) != `"plain text"` {
		t.Errorf("second = %+v raw %s", second, second.Raw)
	}
}

func TestReplayBadFiles(t *testing.T) {
	tests := []struct {
		name, text, wantErr string
	}{
		{"not JSON", "# ok\nhello\n", "line 2: expected a JSON string or object"},
		{"broken object", `{"content": "x"`, "line 1: not a JSON object"},
		{"broken string", `"abc`, "line 1: not a JSON string"},
		{"object without content or thought", `{"reply": "x"}`, `line 1: an object needs "content"`},
		{"content of the wrong type", `{"content": 5}`, "line 1: bad recorded reply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReplay(writeReplay(t, tt.text))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
	if _, err := NewReplay(""); err == nil {
		t.Errorf("empty path accepted")
	}
	_, err := NewReplay(filepath.Join(t.TempDir(), "absent.jsonl"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

func TestReplayEmptyFileRunsOutAtOnce(t *testing.T) {
	r, err := NewReplay(writeReplay(t, "# nothing recorded\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Complete(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "no more replies after 0") {
		t.Errorf("err = %v", err)
	}
}

func TestReplayHonoursCancelledContext(t *testing.T) {
	r, err := NewReplay(writeReplay(t, `"one"`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Complete(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	// The cancelled call did not use up the reply.
	if reply, err := r.Complete(context.Background(), nil); err != nil || reply.Content != "one" {
		t.Errorf("reply %q, err %v", reply.Content, err)
	}
}

func writeReplay(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "replay.jsonl")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
