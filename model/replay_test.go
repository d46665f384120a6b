package model

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// Replies recorded with "match" go to their own request however the
// concurrent calls arrive; the others are handed out in order.
func TestReplayMatchesConcurrentRequests(t *testing.T) {
	path := filepath.Join(t.TempDir(), "judge.jsonl")
	lines := `{"content": "Score: 5\nReasoning: the home page", "match": "final_execution_1_home.png"}
{"content": "Score: 5\nReasoning: the results", "match": "final_execution_2_results.png"}
{"content": "Score: 4\nReasoning: the book page", "match": "final_execution_3_book.png", "usage": {"prompt_tokens": 10, "completion_tokens": 2}}
"Status: success"
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := NewReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"final_execution_1_home.png": "the home page", "final_execution_2_results.png": "the results", "final_execution_3_book.png": "the book page"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := map[string]string{}
	for _, name := range []string{"final_execution_3_book.png", "final_execution_1_home.png", "final_execution_2_results.png"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reply, err := r.Complete(context.Background(), []Message{{Role: RoleUser, Content: "Score this screenshot", Images: []string{"/ws/final_runs/run_1/screenshots/" + name}}})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got[name] = reply.Content
			mu.Unlock()
		}()
	}
	wg.Wait()
	for name, w := range want {
		if !strings.Contains(got[name], w) {
			t.Errorf("%s got %q, want the reply recorded for it (%q)", name, got[name], w)
		}
	}
	final, err := r.Complete(context.Background(), []Message{{Role: RoleUser, Content: "All screenshots"}})
	if err != nil || final.Content != "Status: success" {
		t.Errorf("the unmatched reply: %q, %v", final.Content, err)
	}
	if _, err := r.Complete(context.Background(), nil); err == nil {
		t.Error("a reply after the recording ended")
	}
	os.WriteFile(path, []byte(`{"content": "x", "match": ""}`+"\n"), 0o644)
	if _, err := NewReplay(path); err == nil || !strings.Contains(err.Error(), `"match" is empty`) {
		t.Errorf("an empty match: %v", err)
	}
}
