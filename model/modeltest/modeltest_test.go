package modeltest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"wright/model"
	"wright/model/modeltest"
)

type completion struct {
	Choices []struct {
		Message      struct{ Role, Content string }
		FinishReason string `json:"finish_reason"`
	}
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	}
}

func post(t *testing.T, url, body string) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func TestScriptIsServedInOrderOnBothPaths(t *testing.T) {
	srv := modeltest.New(t,
		modeltest.Reply("first").WithUsage(7, 3).WithFinishReason("length"),
		modeltest.Error(429, "slow down").WithHeader("Retry-After", "2"),
		modeltest.Bash("look", "ls -la"),
	)
	resp, body := post(t, srv.URL+"/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	var c completion
	if err := json.Unmarshal(body, &c); err != nil || resp.StatusCode != 200 {
		t.Fatalf("status %d, body %s", resp.StatusCode, body)
	}
	if c.Choices[0].Message.Content != "first" || c.Choices[0].Message.Role != "assistant" || c.Choices[0].FinishReason != "length" {
		t.Errorf("choice = %+v", c.Choices[0])
	}
	if c.Usage.PromptTokens != 7 || c.Usage.CompletionTokens != 3 || c.Usage.TotalTokens != 10 {
		t.Errorf("usage = %+v", c.Usage)
	}

	resp, body = post(t, srv.URL+"/chat/completions", `{}`)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || !strings.Contains(string(body), `"message":"slow down"`) {
		t.Errorf("429: status %d, Retry-After %q, body %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}

	_, body = post(t, srv.URL+"/v1/chat/completions", `{}`)
	json.Unmarshal(body, &c)
	var action map[string]any
	if err := json.Unmarshal([]byte(c.Choices[0].Message.Content), &action); err != nil {
		t.Fatal(err)
	}
	if action["thought"] != "look" || action["bash_command"] != "ls -la" || action["done"] != false || action["final_response"] != "" || len(action) != 4 {
		t.Errorf("Bash action = %v", action)
	}
	if c.Usage.PromptTokens != modeltest.DefaultPromptTokens || c.Usage.CompletionTokens != modeltest.DefaultCompletionTokens {
		t.Errorf("default usage = %+v", c.Usage)
	}

	reqs := srv.Requests()
	if srv.Calls() != 3 || len(reqs) != 3 {
		t.Fatalf("calls = %d, requests = %d", srv.Calls(), len(reqs))
	}
	if reqs[0].Path != "/v1/chat/completions" || reqs[1].Path != "/chat/completions" {
		t.Errorf("paths = %s, %s", reqs[0].Path, reqs[1].Path)
	}
	chat := reqs[0].Chat()
	if chat.Model != "m" || len(chat.Messages) != 1 || chat.Messages[0].Text() != "hi" {
		t.Errorf("chat = %+v", chat)
	}
}

func TestActionHelpers(t *testing.T) {
	srv := modeltest.New(t,
		modeltest.Python("open", "page.goto(\"https://example.com\")"),
		modeltest.Done("python_code", "finished", "The title is \"Example\"."),
		modeltest.JSON(map[string]any{"answer": "yes"}),
	)
	var got []map[string]any
	for range 3 {
		_, body := post(t, srv.URL+"/v1/chat/completions", `{}`)
		var c completion
		json.Unmarshal(body, &c)
		var m map[string]any
		if err := json.Unmarshal([]byte(c.Choices[0].Message.Content), &m); err != nil {
			t.Fatalf("content %q: %v", c.Choices[0].Message.Content, err)
		}
		got = append(got, m)
	}
	if got[0]["python_code"] != `page.goto("https://example.com")` || got[0]["done"] != false {
		t.Errorf("Python = %v", got[0])
	}
	if got[1]["python_code"] != "" || got[1]["done"] != true || got[1]["final_response"] != `The title is "Example".` {
		t.Errorf("Done = %v", got[1])
	}
	if got[2]["answer"] != "yes" {
		t.Errorf("JSON = %v", got[2])
	}
}

func TestForeverAndAdd(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("once"))
	srv.Add(modeltest.Reply("again").Forever())
	for i, want := range []string{"once", "again", "again", "again"} {
		_, body := post(t, srv.URL+"/v1/chat/completions", `{}`)
		var c completion
		json.Unmarshal(body, &c)
		if c.Choices[0].Message.Content != want {
			t.Errorf("reply %d = %q, want %q", i, c.Choices[0].Message.Content, want)
		}
	}
}

func TestHangupDropsTheConnection(t *testing.T) {
	srv := modeltest.New(t, modeltest.Hangup(), modeltest.Reply("after"))
	_, err := http.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	if err == nil {
		t.Fatal("want a connection error")
	}
	_, body := post(t, srv.URL+"/v1/chat/completions", `{}`)
	if !strings.Contains(string(body), "after") || srv.Calls() != 2 {
		t.Errorf("body %s, calls %d", body, srv.Calls())
	}
}

func TestRawBodyAndImages(t *testing.T) {
	srv := modeltest.New(t, modeltest.Raw(200, "not json at all"))
	req := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`
	_, body := post(t, srv.URL+"/v1/chat/completions", req)
	if string(body) != "not json at all" {
		t.Errorf("body = %q", body)
	}
	m := srv.Last().Chat().Messages[0]
	if m.Text() != "see" || len(m.ImageURLs()) != 1 || m.ImageURLs()[0] != "data:image/png;base64,AAAA" {
		t.Errorf("text %q images %v", m.Text(), m.ImageURLs())
	}
}

// recordingTB keeps the errors the server reports instead of failing the
// test, so the failure paths themselves can be checked.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Helper() {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func TestExhaustedScriptFailsTheTest(t *testing.T) {
	tb := &recordingTB{TB: t}
	srv := modeltest.New(tb, modeltest.Reply("only"))
	post(t, srv.URL+"/v1/chat/completions", `{}`)
	resp, body := post(t, srv.URL+"/v1/chat/completions", `{}`)
	if resp.StatusCode != 400 || !strings.Contains(string(body), "script exhausted") {
		t.Errorf("status %d body %s", resp.StatusCode, body)
	}
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "all 1 scripted responses") {
		t.Errorf("reported errors = %q", tb.errs)
	}
}

func TestUnexpectedPathFailsTheTest(t *testing.T) {
	tb := &recordingTB{TB: t}
	srv := modeltest.New(tb, modeltest.Reply("unused"))
	resp, _ := post(t, srv.URL+"/v1/completions", `{}`)
	if resp.StatusCode != 404 || len(tb.errs) != 1 || srv.Calls() != 0 {
		t.Errorf("status %d, errors %q, calls %d", resp.StatusCode, tb.errs, srv.Calls())
	}
}

func TestClientTalksToTheServer(t *testing.T) {
	t.Setenv(modeltest.NoKeyEnv, "")
	srv := modeltest.New(t, modeltest.Status(503), modeltest.Bash("look", "ls"))
	c := srv.Client(t, func(cfg *model.Config) { cfg.ActionField = model.FieldBash })
	reply, err := c.Complete(context.Background(), []model.Message{{Role: model.RoleUser, Content: "go"}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := model.ParseAction(reply.Content, reply.FinishReason, model.FieldBash)
	if err != nil || a.Code != "ls" {
		t.Errorf("action %+v, err %v", a, err)
	}
	if srv.Calls() != 2 || srv.Last().Header.Get("Authorization") != "" {
		t.Errorf("calls %d, Authorization %q", srv.Calls(), srv.Last().Header.Get("Authorization"))
	}
}

func TestFuncAnswersFromTheRequest(t *testing.T) {
	srv := modeltest.New(t, modeltest.Func(func(r modeltest.Request) modeltest.Response {
		return modeltest.Reply("echo: "+r.Chat().Messages[0].Text()).WithUsage(1, 2)
	}).Forever())
	for _, word := range []string{"one", "two"} {
		_, body := post(t, srv.URL+"/v1/chat/completions", `{"messages":[{"role":"user","content":"`+word+`"}]}`)
		var c completion
		json.Unmarshal(body, &c)
		if c.Choices[0].Message.Content != "echo: "+word || c.Usage.TotalTokens != 3 {
			t.Errorf("reply = %+v", c)
		}
	}
}
