package model_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"wright/model"
	"wright/model/modeltest"
)

const testKey = "sk-test-5ecret-do-not-leak"

// newClient builds an OpenAI-compatible client against srv with a real key
// in a test variable and retry delays small enough not to slow the tests.
func newClient(t *testing.T, srv *modeltest.Server, edit func(*model.Config)) (model.Client, *warnings) {
	t.Helper()
	t.Setenv("WRIGHT_TEST_MODEL_KEY", testKey)
	cfg := model.Config{
		Name:      "test-model",
		BaseURL:   srv.URL + "/v1",
		APIKeyEnv: "WRIGHT_TEST_MODEL_KEY",
		Retry:     model.Retry{Attempts: 4, InitialDelaySeconds: 0.001, MaxDelaySeconds: 0.005},
	}
	if edit != nil {
		edit(&cfg)
	}
	w := &warnings{}
	c, err := model.New(cfg, w.add)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return c, w
}

type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) add(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, s)
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.list...)
}

func conversation() []model.Message {
	return []model.Message{
		{Role: model.RoleSystem, Content: "You are a test."},
		{Role: model.RoleUser, Content: "Do the thing."},
	}
}

func TestCompleteSuccessUsageAndCost(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("hello there").WithUsage(1000, 500).WithFinishReason("stop"))
	c, w := newClient(t, srv, func(cfg *model.Config) {
		cfg.Price = model.Price{Input: 2, Output: 10}
		cfg.Headers = map[string]string{"X-Title": "wright"}
		cfg.MaxTokens = 321
	})
	reply, err := c.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if reply.Content != "hello there" || reply.FinishReason != "stop" {
		t.Errorf("reply = %q (%q), want hello there (stop)", reply.Content, reply.FinishReason)
	}
	want := model.Usage{PromptTokens: 1000, CompletionTokens: 500, TotalTokens: 1500, Cost: (1000*2 + 500*10) / 1e6}
	if reply.Usage != want {
		t.Errorf("usage = %+v, want %+v", reply.Usage, want)
	}
	if len(w.all()) != 0 {
		t.Errorf("unexpected warnings with a known price: %v", w.all())
	}
	// Raw is the body as one line of JSON, for raw_responses.jsonl.
	var raw map[string]any
	if err := json.Unmarshal(reply.Raw, &raw); err != nil || bytes.ContainsRune(reply.Raw, '\n') {
		t.Errorf("Raw is not one line of JSON: %v %q", err, reply.Raw)
	}
	if !strings.Contains(string(reply.Raw), "hello there") {
		t.Errorf("Raw lacks the content: %s", reply.Raw)
	}

	req := srv.Last()
	if req.Path != "/v1/chat/completions" {
		t.Errorf("path = %s", req.Path)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
	if got := req.Header.Get("X-Title"); got != "wright" {
		t.Errorf("extra header X-Title = %q", got)
	}
	chat := req.Chat()
	if chat.Model != "test-model" || chat.MaxTokens != 321 || chat.Temperature != nil {
		t.Errorf("request model/max_tokens/temperature = %q/%d/%v", chat.Model, chat.MaxTokens, chat.Temperature)
	}
	if len(chat.Messages) != 2 || chat.Messages[0].Role != "system" || chat.Messages[1].Text() != "Do the thing." {
		t.Errorf("messages = %+v", chat.Messages)
	}
}

func TestTransientFailuresAreRetried(t *testing.T) {
	ok := modeltest.Reply("finally")
	tests := []struct {
		name   string
		script []modeltest.Response
	}{
		{"500 then success", []modeltest.Response{modeltest.Status(500), ok}},
		{"502 503 then success", []modeltest.Response{modeltest.Status(502), modeltest.Status(503), ok}},
		{"429 then success", []modeltest.Response{modeltest.Status(429), ok}},
		{"non-JSON 500", []modeltest.Response{modeltest.Raw(500, "<html>upstream down</html>"), ok}},
		{"connection reset", []modeltest.Response{modeltest.Hangup(), ok}},
		{"200 without choices", []modeltest.Response{modeltest.Raw(200, `{"error":{"message":"upstream overloaded","code":502}}`), ok}},
		{"200 with a body that is not JSON", []modeltest.Response{modeltest.Raw(200, `<html>`), ok}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.New(t, tt.script...)
			c, _ := newClient(t, srv, nil)
			reply, err := c.Complete(context.Background(), conversation())
			if err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if reply.Content != "finally" {
				t.Errorf("content = %q", reply.Content)
			}
			if got := srv.Calls(); got != len(tt.script) {
				t.Errorf("calls = %d, want %d", got, len(tt.script))
			}
		})
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name     string
		header   [2]string
		min, max time.Duration
	}{
		{"seconds", [2]string{"Retry-After", "7"}, 7 * time.Second, 7 * time.Second},
		{"HTTP date", [2]string{"Retry-After", date}, 80 * time.Second, 91 * time.Second},
		{"milliseconds", [2]string{"Retry-After-Ms", "1500"}, 1500 * time.Millisecond, 1500 * time.Millisecond},
		{"capped by max delay", [2]string{"Retry-After", "100000"}, 120 * time.Second, 120 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.New(t, modeltest.Status(429).WithHeader(tt.header[0], tt.header[1]), modeltest.Reply("ok"))
			c, _ := newClient(t, srv, func(cfg *model.Config) { cfg.Retry.MaxDelaySeconds = 120 })
			var waits []time.Duration
			model.SetSleep(c, func(_ context.Context, d time.Duration) error {
				waits = append(waits, d)
				return nil
			})
			if _, err := c.Complete(context.Background(), conversation()); err != nil {
				t.Fatalf("Complete: %v", err)
			}
			if len(waits) != 1 || waits[0] < tt.min || waits[0] > tt.max {
				t.Errorf("waits = %v, want one in [%v, %v]", waits, tt.min, tt.max)
			}
		})
	}
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	srv := modeltest.New(t, modeltest.Status(500).Forever())
	c, _ := newClient(t, srv, func(cfg *model.Config) {
		cfg.Retry = model.Retry{Attempts: 6, InitialDelaySeconds: 1, MaxDelaySeconds: 5}
	})
	var waits []time.Duration
	model.SetSleep(c, func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	})
	_, err := c.Complete(context.Background(), conversation())
	if err == nil {
		t.Fatal("want an error after the attempts ran out")
	}
	// Attempt n waits within [d/2, d] of d = min(1s * 2^(n-1), 5s).
	bounds := []time.Duration{1, 2, 4, 5, 5}
	if len(waits) != len(bounds) {
		t.Fatalf("waits = %v, want %d", waits, len(bounds))
	}
	for i, b := range bounds {
		hi := b * time.Second
		if waits[i] < hi/2 || waits[i] > hi {
			t.Errorf("wait %d = %v, want within [%v, %v]", i+1, waits[i], hi/2, hi)
		}
	}
}

func TestFinalErrorCarriesEndpointMessage(t *testing.T) {
	srv := modeltest.New(t, modeltest.Error(401, "Incorrect API key provided: "+testKey+". Find yours on the dashboard."))
	c, _ := newClient(t, srv, nil)
	_, err := c.Complete(context.Background(), conversation())
	var apiErr *model.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v (%T), want *model.APIError", err, err)
	}
	if apiErr.Status != 401 || !strings.Contains(apiErr.Message, "Incorrect API key provided") {
		t.Errorf("APIError = %+v", apiErr)
	}
	if strings.Contains(err.Error(), testKey) || strings.Contains(apiErr.Message, testKey) {
		t.Errorf("the API key leaked into the error: %v", err)
	}
	if srv.Calls() != 1 {
		t.Errorf("a 401 was retried: %d calls", srv.Calls())
	}
}

func TestOtherClientErrorsAreFinal(t *testing.T) {
	for _, status := range []int{400, 403, 404, 422} {
		srv := modeltest.New(t, modeltest.Raw(status, "plain text complaint"))
		c, _ := newClient(t, srv, nil)
		_, err := c.Complete(context.Background(), conversation())
		var apiErr *model.APIError
		if !errors.As(err, &apiErr) || apiErr.Status != status || apiErr.Message != "plain text complaint" {
			t.Errorf("status %d: err = %v", status, err)
		}
		if srv.Calls() != 1 {
			t.Errorf("status %d was retried", status)
		}
	}
}

func TestRetriesExhausted(t *testing.T) {
	srv := modeltest.New(t, modeltest.Error(503, "overloaded, key "+testKey).Forever())
	c, _ := newClient(t, srv, func(cfg *model.Config) { cfg.Retry.Attempts = 3 })
	_, err := c.Complete(context.Background(), conversation())
	var retryErr *model.RetryError
	if !errors.As(err, &retryErr) || retryErr.Attempts != 3 {
		t.Fatalf("err = %v, want a RetryError after 3 attempts", err)
	}
	var apiErr *model.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 503 || !strings.Contains(apiErr.Message, "overloaded") {
		t.Errorf("last error = %v, want the 503 with its message", err)
	}
	if strings.Contains(err.Error(), testKey) {
		t.Errorf("the API key leaked into the error: %v", err)
	}
	if srv.Calls() != 3 {
		t.Errorf("calls = %d, want 3", srv.Calls())
	}
}

func TestCancelDuringBackoffReturnsAtOnce(t *testing.T) {
	srv := modeltest.New(t, modeltest.Status(500).Forever())
	// An hour between attempts: only cancellation can end this call.
	c, _ := newClient(t, srv, func(cfg *model.Config) {
		cfg.Retry = model.Retry{Attempts: 5, InitialDelaySeconds: 3600, MaxDelaySeconds: 3600}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Complete(ctx, conversation())
		done <- err
	}()
	for srv.Calls() == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Complete kept waiting after the context was cancelled")
	}
	if srv.Calls() != 1 {
		t.Errorf("calls = %d, want 1", srv.Calls())
	}
}

func TestCancelledContextStopsSlowRequest(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("late").After(time.Hour))
	c, _ := newClient(t, srv, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Calls() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	_, err := c.Complete(ctx, conversation())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestRequestTimeoutIsRetried(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("too late").After(time.Hour), modeltest.Reply("in time"))
	c, _ := newClient(t, srv, func(cfg *model.Config) { cfg.TimeoutSeconds = 0.2 })
	reply, err := c.Complete(context.Background(), conversation())
	if err != nil || reply.Content != "in time" {
		t.Fatalf("reply = %q, err = %v", reply.Content, err)
	}
	if srv.Calls() != 2 {
		t.Errorf("calls = %d, want 2", srv.Calls())
	}
}

func TestResponseFormatInRequest(t *testing.T) {
	tests := []struct {
		format string
		check  func(t *testing.T, rf map[string]any)
	}{
		{model.FormatJSONSchema, func(t *testing.T, rf map[string]any) {
			if rf["type"] != "json_schema" {
				t.Fatalf("type = %v", rf["type"])
			}
			js := rf["json_schema"].(map[string]any)
			if js["strict"] != true || js["name"] == "" {
				t.Errorf("json_schema = %v", js)
			}
			schema := js["schema"].(map[string]any)
			if schema["additionalProperties"] != false || schema["type"] != "object" {
				t.Errorf("schema = %v", schema)
			}
			props := schema["properties"].(map[string]any)
			wantTypes := map[string]string{"thought": "string", "python_code": "string", "done": "boolean", "final_response": "string"}
			if len(props) != len(wantTypes) {
				t.Errorf("properties = %v", props)
			}
			for k, typ := range wantTypes {
				p, _ := props[k].(map[string]any)
				if p["type"] != typ {
					t.Errorf("property %s = %v, want type %s", k, props[k], typ)
				}
			}
			req := schema["required"].([]any)
			if len(req) != 4 {
				t.Errorf("required = %v", req)
			}
		}},
		{model.FormatJSONObject, func(t *testing.T, rf map[string]any) {
			if rf["type"] != "json_object" || rf["json_schema"] != nil {
				t.Errorf("response_format = %v", rf)
			}
		}},
		{model.FormatNone, func(t *testing.T, rf map[string]any) {
			if rf != nil {
				t.Errorf("response_format sent for none: %v", rf)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			srv := modeltest.New(t, modeltest.Python("look", "print(page.title())"))
			c, _ := newClient(t, srv, func(cfg *model.Config) {
				cfg.ResponseFormat = tt.format
				cfg.ActionField = model.FieldPython
			})
			if _, err := c.Complete(context.Background(), conversation()); err != nil {
				t.Fatal(err)
			}
			rf, _ := srv.Last().JSON()["response_format"].(map[string]any)
			tt.check(t, rf)
		})
	}
}

func TestCustomSchema(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply(`{"answer":"yes"}`))
	schema := `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}`
	c, _ := newClient(t, srv, func(cfg *model.Config) { cfg.Schema = []byte(schema) })
	if _, err := c.Complete(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
	var body struct {
		ResponseFormat struct {
			JSONSchema struct {
				Schema json.RawMessage `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(srv.Last().Body, &body); err != nil {
		t.Fatal(err)
	}
	if got := string(body.ResponseFormat.JSONSchema.Schema); got != schema {
		t.Errorf("schema = %s", got)
	}
}

func TestTemperatureAndTokenLimit(t *testing.T) {
	zero, warm := 0.0, 0.7
	tests := []struct {
		name      string
		model     string
		temp      *float64
		wantTemp  *float64
		wantField string
	}{
		{"temperature 0 is sent", "test-model", &zero, &zero, "max_tokens"},
		{"temperature 0.7", "test-model", &warm, &warm, "max_tokens"},
		{"unset temperature is left out", "test-model", nil, nil, "max_tokens"},
		{"reasoning models get max_completion_tokens", "gpt-5-mini", nil, nil, "max_completion_tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := modeltest.New(t, modeltest.Reply("x"))
			c, _ := newClient(t, srv, func(cfg *model.Config) {
				cfg.Name, cfg.Temperature, cfg.MaxTokens = tt.model, tt.temp, 100
			})
			if _, err := c.Complete(context.Background(), conversation()); err != nil {
				t.Fatal(err)
			}
			body := srv.Last().JSON()
			got, present := body["temperature"].(float64)
			switch {
			case tt.wantTemp == nil && present:
				t.Errorf("temperature sent: %v", got)
			case tt.wantTemp != nil && (!present || float32(got) != float32(*tt.wantTemp)):
				t.Errorf("temperature = %v (present %v), want %v", got, present, *tt.wantTemp)
			}
			if body[tt.wantField] != 100.0 {
				t.Errorf("%s = %v in %s", tt.wantField, body[tt.wantField], srv.Last().Body)
			}
		})
	}
}

func TestImagesAreSentAsDataURLs(t *testing.T) {
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var pngBuf, jpgBuf bytes.Buffer
	if err := png.Encode(&pngBuf, img); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&jpgBuf, img, nil); err != nil {
		t.Fatal(err)
	}
	// The names lie on purpose: the type comes from the content.
	pngPath := filepath.Join(dir, "shot.jpg")
	jpgPath := filepath.Join(dir, "photo.png")
	os.WriteFile(pngPath, pngBuf.Bytes(), 0o644)
	os.WriteFile(jpgPath, jpgBuf.Bytes(), 0o644)

	srv := modeltest.New(t, modeltest.Reply("seen"))
	c, _ := newClient(t, srv, nil)
	msgs := append(conversation(), model.Message{Role: model.RoleUser, Content: "What do you see?", Images: []string{pngPath, jpgPath}})
	if _, err := c.Complete(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	last := srv.Last().Chat().Messages[2]
	if last.Text() != "What do you see?" {
		t.Errorf("text = %q", last.Text())
	}
	urls := last.ImageURLs()
	want := []struct {
		prefix string
		data   []byte
	}{{"data:image/png;base64,", pngBuf.Bytes()}, {"data:image/jpeg;base64,", jpgBuf.Bytes()}}
	if len(urls) != len(want) {
		t.Fatalf("image urls = %d, want %d", len(urls), len(want))
	}
	for i, w := range want {
		b64, ok := strings.CutPrefix(urls[i], w.prefix)
		if !ok {
			t.Errorf("url %d starts %.40q, want %s", i, urls[i], w.prefix)
			continue
		}
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || !bytes.Equal(data, w.data) {
			t.Errorf("url %d does not carry the file's bytes (%v)", i, err)
		}
	}
}

func TestBadImagesFailBeforeSending(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.png")
	os.WriteFile(text, []byte("just text"), 0o644)
	srv := modeltest.New(t)
	c, _ := newClient(t, srv, nil)
	for _, path := range []string{text, filepath.Join(dir, "missing.png")} {
		msgs := []model.Message{{Role: model.RoleUser, Content: "look", Images: []string{path}}}
		_, err := c.Complete(context.Background(), msgs)
		if err == nil || !strings.Contains(err.Error(), filepath.Base(path)) {
			t.Errorf("%s: err = %v, want one naming the file", filepath.Base(path), err)
		}
	}
	if srv.Calls() != 0 {
		t.Errorf("a request was sent despite a bad image")
	}
}

func TestExitMessagesAreNotSent(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("x"))
	c, _ := newClient(t, srv, nil)
	msgs := append(conversation(),
		model.Message{Role: model.RoleAssistant, Content: "previous answer"},
		model.Message{Role: model.RoleExit, Content: "Submitted", Meta: &model.Meta{ExitStatus: "Submitted"}},
		model.Message{Role: model.RoleUser, Content: "and again"},
	)
	if _, err := c.Complete(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range srv.Last().Chat().Messages {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,user" {
		t.Errorf("roles sent = %s", got)
	}
	if strings.Contains(string(srv.Last().Body), "Submitted") || strings.Contains(string(srv.Last().Body), "exit_status") {
		t.Errorf("exit message or Meta reached the request: %s", srv.Last().Body)
	}
}

func TestEmptyContentIsSentExplicitly(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("x"))
	c, _ := newClient(t, srv, nil)
	msgs := append(conversation(), model.Message{Role: model.RoleAssistant, Content: ""}, model.Message{Role: model.RoleUser, Content: "go on"})
	if _, err := c.Complete(context.Background(), msgs); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	json.Unmarshal(srv.Last().Body, &body)
	if content, ok := body.Messages[2]["content"]; !ok || content != "" {
		t.Errorf("empty assistant message sent as %v", body.Messages[2])
	}
}

func TestUnknownRoleAndEmptyConversation(t *testing.T) {
	srv := modeltest.New(t)
	c, _ := newClient(t, srv, nil)
	if _, err := c.Complete(context.Background(), []model.Message{{Role: "tool", Content: "x"}}); err == nil || !strings.Contains(err.Error(), `"tool"`) {
		t.Errorf("unknown role: err = %v", err)
	}
	if _, err := c.Complete(context.Background(), []model.Message{{Role: model.RoleExit}}); err == nil {
		t.Errorf("empty conversation: no error")
	}
}

func TestUnknownPriceWarnsOnce(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("a").WithUsage(10, 5).Forever())
	c, w := newClient(t, srv, nil)
	for range 3 {
		reply, err := c.Complete(context.Background(), conversation())
		if err != nil {
			t.Fatal(err)
		}
		if reply.Usage.Cost != 0 || reply.Usage.TotalTokens != 15 {
			t.Errorf("usage = %+v, want 15 tokens at cost 0", reply.Usage)
		}
	}
	got := w.all()
	if len(got) != 1 || !strings.Contains(got[0], "no price for model test-model") || !strings.Contains(got[0], "cost counted as 0") {
		t.Errorf("warnings = %q, want one about the missing price", got)
	}
}

func TestMissingUsageWarnsOnce(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("a").WithUsage(0, 0).Forever())
	c, w := newClient(t, srv, func(cfg *model.Config) { cfg.Price = model.Price{Input: 1, Output: 1} })
	for range 2 {
		if _, err := c.Complete(context.Background(), conversation()); err != nil {
			t.Fatal(err)
		}
	}
	if got := w.all(); len(got) != 1 || !strings.Contains(got[0], "no token usage") {
		t.Errorf("warnings = %q", got)
	}
}

func TestConcurrentCompletes(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("same").Forever())
	c, w := newClient(t, srv, nil)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if reply, err := c.Complete(context.Background(), conversation()); err != nil || reply.Content != "same" {
				t.Errorf("reply %q, err %v", reply.Content, err)
			}
		})
	}
	wg.Wait()
	if srv.Calls() != 8 || len(w.all()) != 1 {
		t.Errorf("calls = %d, warnings = %d", srv.Calls(), len(w.all()))
	}
}

// countingTransport stands in for a caller's own transport (the judge's
// Unix-socket proxy): it marks the requests it carries.
type countingTransport struct {
	mu    sync.Mutex
	count int
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.count++
	c.mu.Unlock()
	r = r.Clone(r.Context())
	r.Header.Set("X-Via-Proxy", "yes")
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPClientIsHonoured(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("via proxy"))
	tr := &countingTransport{}
	t.Setenv("WRIGHT_TEST_NO_KEY", "")
	// No key at all: a caller-supplied transport may add credentials itself.
	c, err := model.New(model.Config{
		Name: "m", BaseURL: srv.URL, APIKeyEnv: "WRIGHT_TEST_NO_KEY",
		HTTPClient: &http.Client{Transport: tr},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := c.Complete(context.Background(), conversation())
	if err != nil || reply.Content != "via proxy" {
		t.Fatalf("reply %q, err %v", reply.Content, err)
	}
	if tr.count != 1 || srv.Last().Header.Get("X-Via-Proxy") != "yes" {
		t.Errorf("the request did not go through the configured client")
	}
	if srv.Last().Header.Get("Authorization") != "" {
		t.Errorf("an Authorization header was sent without a key")
	}
}

func TestNewValidatesConfig(t *testing.T) {
	t.Setenv("WRIGHT_TEST_UNSET_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	hot := 3.0
	tests := []struct {
		name    string
		cfg     model.Config
		wantErr string // "" = no error
	}{
		{"missing key names the variable", model.Config{Name: "m", BaseURL: "https://api.example.com/v1", APIKeyEnv: "WRIGHT_TEST_UNSET_KEY"}, "set WRIGHT_TEST_UNSET_KEY"},
		{"default endpoint needs a key", model.Config{Name: "m", APIKeyEnv: "WRIGHT_TEST_UNSET_KEY"}, "set WRIGHT_TEST_UNSET_KEY"},
		{"localhost needs none", model.Config{Name: "m", BaseURL: "http://localhost:11434/v1", APIKeyEnv: "WRIGHT_TEST_UNSET_KEY"}, ""},
		{"127.0.0.1 needs none", model.Config{Name: "m", BaseURL: "http://127.0.0.1:8000/v1", APIKeyEnv: "WRIGHT_TEST_UNSET_KEY"}, ""},
		{"::1 needs none", model.Config{Name: "m", BaseURL: "http://[::1]:8000/v1", APIKeyEnv: "WRIGHT_TEST_UNSET_KEY"}, ""},
		{"no name", model.Config{BaseURL: "http://localhost/v1"}, "model.name"},
		{"bad action field", model.Config{Name: "m", BaseURL: "http://localhost/v1", ActionField: "the code"}, "action_field"},
		{"bad response format", model.Config{Name: "m", BaseURL: "http://localhost/v1", ResponseFormat: "yaml"}, "response_format"},
		{"bad base url", model.Config{Name: "m", BaseURL: "localhost:8000"}, "base_url"},
		{"temperature out of range", model.Config{Name: "m", BaseURL: "http://localhost/v1", Temperature: &hot}, "temperature"},
		{"negative retry", model.Config{Name: "m", BaseURL: "http://localhost/v1", Retry: model.Retry{Attempts: -1}}, "negative"},
		{"missing replay file", model.Config{Name: "replay:" + filepath.Join(t.TempDir(), "nope.jsonl")}, "nope.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := model.New(tt.cfg, nil)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v", err)
			case tt.wantErr == "" && c == nil:
				t.Errorf("no client")
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("err = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewTakesBaseURLFromEnvironment(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("from env"))
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("WRIGHT_TEST_UNSET_KEY", "")
	c, err := model.New(model.Config{Name: "m", APIKeyEnv: "WRIGHT_TEST_UNSET_KEY"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if reply, err := c.Complete(context.Background(), conversation()); err != nil || reply.Content != "from env" {
		t.Errorf("reply %q, err %v", reply.Content, err)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		header http.Header
		want   time.Duration
	}{
		{nil, 0},
		{http.Header{"Retry-After": {"3"}}, 3 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond},
		{http.Header{"Retry-After": {now.Add(10 * time.Second).Format(http.TimeFormat)}}, 10 * time.Second},
		{http.Header{"Retry-After": {now.Add(-10 * time.Second).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
		{http.Header{"Retry-After": {"-4"}}, 0},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := model.RetryAfter(tt.header, now); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// A refused connection before the endpoint ever answered is a wrong address:
// it fails at once, naming it; once the endpoint has answered, a refusal is
// a restart and is retried.
func TestConnectionRefused(t *testing.T) {
	t.Setenv("WRIGHT_TEST_MODEL_KEY", testKey)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	base := srv.URL + "/v1"
	newC := func() (model.Client, *int) {
		c, err := model.New(model.Config{Name: "m", BaseURL: base, APIKeyEnv: "WRIGHT_TEST_MODEL_KEY",
			Retry: model.Retry{Attempts: 3, InitialDelaySeconds: 0.001, MaxDelaySeconds: 0.002}}, func(string) {})
		if err != nil {
			t.Fatal(err)
		}
		waits := new(int)
		model.SetSleep(c, func(context.Context, time.Duration) error { *waits++; return nil })
		return c, waits
	}
	reached, reachedWaits := newC()
	if _, err := reached.Complete(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
	srv.Close()

	never, neverWaits := newC()
	_, err := never.Complete(context.Background(), conversation())
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), base) || *neverWaits != 0 {
		t.Errorf("never reached: err %v after %d waits; want connection refused naming %s, no retry", err, *neverWaits, base)
	}
	_, err = reached.Complete(context.Background(), conversation())
	var re *model.RetryError
	if !errors.As(err, &re) || re.Attempts != 3 || *reachedWaits != 2 {
		t.Errorf("reached before: err %v after %d waits; want 3 attempts", err, *reachedWaits)
	}
}
