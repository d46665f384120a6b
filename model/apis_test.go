package model_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"wright/model"
	"wright/model/modeltest"
)

// apiClient is newClient for one wire API, the key in a test variable and
// the base URL given without /v1 (both forms must work).
func apiClient(t *testing.T, srv *modeltest.Server, api string, edit func(*model.Config)) (model.Client, *warnings) {
	t.Helper()
	return newClient(t, srv, func(cfg *model.Config) {
		cfg.API = api
		cfg.BaseURL = srv.URL
		if edit != nil {
			edit(cfg)
		}
	})
}

// pngFile writes a one-pixel PNG and returns its path.
func pngFile(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "shot.png")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// history is a run's shape: system, task, a reply, an observation with a
// screenshot and a notice right after it (two user messages in a row).
func history(t *testing.T) []model.Message {
	return []model.Message{
		{Role: model.RoleSystem, Content: "You are a test."},
		{Role: model.RoleUser, Content: "Do the thing."},
		{Role: model.RoleAssistant, Content: `{"thought":"look","bash_command":"ls","done":false,"final_response":""}`},
		{Role: model.RoleUser, Content: "observation", Images: []string{pngFile(t)}},
		{Role: model.RoleUser, Content: "notice"},
		{Role: model.RoleExit, Content: "never sent"},
	}
}

func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

func TestResponsesRequestFieldByField(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply(`{"ok":true}`).WithUsage(1000, 300).WithCache(800, 0).WithReasoning(120))
	temp := 0.2
	c, w := apiClient(t, srv, model.APIResponses, func(cfg *model.Config) {
		cfg.ReasoningEffort = "high"
		cfg.MaxTokens = 777
		cfg.Temperature = &temp
		cfg.Price = model.Price{Input: 2, Output: 8, CachedInput: 0.5}
	})
	ctx := model.WithCacheKey(context.Background(), "run-42")
	reply, err := c.Complete(ctx, history(t))
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	if reply.Content != `{"ok":true}` || reply.FinishReason != "stop" {
		t.Errorf("reply %q (%s)", reply.Content, reply.FinishReason)
	}
	want := model.Usage{PromptTokens: 1000, CompletionTokens: 300, TotalTokens: 1300, CachedTokens: 800, ReasoningTokens: 120,
		Cost: (200*2 + 800*0.5 + 300*8) / 1e6}
	if reply.Usage != want {
		t.Errorf("usage %+v, want %+v", reply.Usage, want)
	}
	if len(w.all()) != 0 {
		t.Errorf("warnings: %v", w.all())
	}
	if !json.Valid(reply.Raw) || !strings.Contains(string(reply.Raw), `"object":"response"`) {
		t.Errorf("raw %s", reply.Raw)
	}

	req := srv.Last()
	if req.Path != "/v1/responses" || req.Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("path %s, Authorization %q", req.Path, req.Header.Get("Authorization"))
	}
	body := req.JSON()
	checks := map[string][2]any{
		"model":              {body["model"], "test-model"},
		"store":              {body["store"], false},
		"prompt_cache_key":   {body["prompt_cache_key"], "run-42"},
		"max_output_tokens":  {body["max_output_tokens"], 777.0},
		"temperature":        {body["temperature"], 0.2},
		"reasoning.effort":   {get(body, "reasoning", "effort"), "high"},
		"text.format.type":   {get(body, "text", "format", "type"), "json_schema"},
		"text.format.name":   {get(body, "text", "format", "name"), "action"},
		"text.format.strict": {get(body, "text", "format", "strict"), true},
		"schema required 1":  {get(body, "text", "format", "schema", "required", 1), "bash_command"},
		"schema closed":      {get(body, "text", "format", "schema", "additionalProperties"), false},
		"input[0].role":      {get(body, "input", 0, "role"), "system"},
		"input[0].content":   {get(body, "input", 0, "content"), "You are a test."},
		"input[2].role":      {get(body, "input", 2, "role"), "assistant"},
		"input[3] text":      {get(body, "input", 3, "content", 0, "type"), "input_text"},
		"input[3] image":     {get(body, "input", 3, "content", 1, "type"), "input_image"},
		"input[4].content":   {get(body, "input", 4, "content"), "notice"},
		"no exit message":    {len(body["input"].([]any)), 5},
	}
	for name, c := range checks {
		if !reflect.DeepEqual(c[0], c[1]) {
			t.Errorf("%s = %#v, want %#v", name, c[0], c[1])
		}
	}
	if u, _ := get(body, "input", 3, "content", 1, "image_url").(string); !strings.HasPrefix(u, "data:image/png;base64,") {
		t.Errorf("image_url = %.40q", u)
	}
}

func TestResponsesCacheKeyIsStableWithoutARunKey(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("a"), modeltest.Reply("b"))
	c, _ := apiClient(t, srv, model.APIResponses, nil)
	for range 2 {
		if _, err := c.Complete(context.Background(), conversation()); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	k1, _ := reqs[0].JSON()["prompt_cache_key"].(string)
	k2, _ := reqs[1].JSON()["prompt_cache_key"].(string)
	if k1 == "" || k1 != k2 {
		t.Errorf("prompt_cache_key %q then %q: want one non-empty key per client", k1, k2)
	}
}

func TestAnthropicRequestFieldByField(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("hi").WithUsage(1000, 50).WithCache(600, 300).WithReasoning(10))
	c, _ := apiClient(t, srv, model.APIAnthropic, func(cfg *model.Config) {
		cfg.ReasoningEffort = "medium"
		cfg.Thinking = model.ThinkingAdaptive
		cfg.MaxTokens = 0
		cfg.Price = model.Price{Input: 5, Output: 25, CachedInput: 0.5, CacheWrite: 6.25}
		t1 := 0.3
		cfg.Temperature = &t1 // never sent with thinking
	})
	reply, err := c.Complete(context.Background(), history(t))
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := model.Usage{PromptTokens: 1000, CompletionTokens: 50, TotalTokens: 1050, CachedTokens: 600, CacheWriteTokens: 300, ReasoningTokens: 10,
		Cost: (100*5 + 600*0.5 + 300*6.25 + 50*25) / 1e6}
	if reply.Content != "hi" || reply.FinishReason != "stop" || reply.Usage != want {
		t.Errorf("reply %q (%s) usage %+v, want %+v", reply.Content, reply.FinishReason, reply.Usage, want)
	}
	req := srv.Last()
	if req.Path != "/v1/messages" || req.Header.Get("X-Api-Key") != testKey || req.Header.Get("Anthropic-Version") == "" {
		t.Errorf("path %s, x-api-key %q, anthropic-version %q", req.Path, req.Header.Get("X-Api-Key"), req.Header.Get("Anthropic-Version"))
	}
	if req.Header.Get("Authorization") != "" {
		t.Errorf("the key also went as Authorization")
	}
	body := req.JSON()
	eph := map[string]any{"type": "ephemeral"}
	checks := map[string][2]any{
		"model":                     {body["model"], "test-model"},
		"max_tokens default":        {body["max_tokens"], float64(model.DefaultAnthropicMaxTokens)},
		"no temperature (thinking)": {body["temperature"], nil},
		"thinking":                  {get(body, "thinking", "type"), "adaptive"},
		"effort":                    {get(body, "output_config", "effort"), "medium"},
		"format":                    {get(body, "output_config", "format", "type"), "json_schema"},
		"format schema":             {get(body, "output_config", "format", "schema", "required", 1), "bash_command"},
		"system text":               {get(body, "system", 0, "text"), "You are a test."},
		"system breakpoint":         {get(body, "system", 0, "cache_control"), eph},
		"turns alternate":           {len(body["messages"].([]any)), 3},
		"task turn":                 {get(body, "messages", 0, "content", 0, "text"), "Do the thing."},
		"task breakpoint":           {get(body, "messages", 0, "content", 0, "cache_control"), eph},
		"assistant":                 {get(body, "messages", 1, "role"), "assistant"},
		"no breakpoint on reply":    {get(body, "messages", 1, "content", 0, "cache_control"), nil},
		"observation text":          {get(body, "messages", 2, "content", 0, "text"), "observation"},
		"image":                     {get(body, "messages", 2, "content", 1, "type"), "image"},
		"image media type":          {get(body, "messages", 2, "content", 1, "source", "media_type"), "image/png"},
		"no breakpoint mid-turn":    {get(body, "messages", 2, "content", 1, "cache_control"), nil},
		"notice merged":             {get(body, "messages", 2, "content", 2, "text"), "notice"},
		"newest breakpoint":         {get(body, "messages", 2, "content", 2, "cache_control"), eph},
	}
	for name, c := range checks {
		if !reflect.DeepEqual(c[0], c[1]) {
			t.Errorf("%s = %#v, want %#v", name, c[0], c[1])
		}
	}
	data, _ := get(body, "messages", 2, "content", 1, "source", "data").(string)
	if _, err := base64.StdEncoding.DecodeString(data); err != nil || data == "" {
		t.Errorf("image data is not base64: %v", err)
	}
}

func TestAnthropicFallsBackToAForcedTool(t *testing.T) {
	action := `{"thought":"t","bash_command":"ls","done":false,"final_response":""}`
	srv := modeltest.New(t,
		modeltest.Error(400, "output_config.format: structured outputs are not supported by this model"),
		modeltest.Reply(action), modeltest.Reply(action))
	c, w := apiClient(t, srv, model.APIAnthropic, nil)
	for range 2 {
		reply, err := c.Complete(context.Background(), conversation())
		if err != nil {
			t.Fatalf("Complete: %v", err)
		}
		var got, want map[string]any
		_ = json.Unmarshal([]byte(reply.Content), &got)
		_ = json.Unmarshal([]byte(action), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("content %q, want the tool's input", reply.Content)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (one refused, two with the tool)", len(reqs))
	}
	if get(reqs[0].JSON(), "output_config", "format", "type") != "json_schema" {
		t.Errorf("first request had no structured output")
	}
	for _, r := range reqs[1:] {
		b := r.JSON()
		if get(b, "output_config", "format") != nil || get(b, "tool_choice", "type") != "tool" ||
			get(b, "tools", 0, "name") != get(b, "tool_choice", "name") ||
			get(b, "tools", 0, "input_schema", "required", 1) != "bash_command" ||
			get(b, "tools", 0, "input_schema", "additionalProperties") != false {
			t.Errorf("fallback request: tools %v, tool_choice %v, output_config %v", b["tools"], b["tool_choice"], b["output_config"])
		}
	}
	said := 0
	for _, m := range w.all() {
		if strings.Contains(m, "forced tool") {
			said++
		}
	}
	if said != 1 {
		t.Errorf("warnings %v: want the fallback said once", w.all())
	}
}

// A model that refuses temperature gets none from then on, on every API,
// and the user hears it once.
func TestTemperatureDroppedAfterRefusal(t *testing.T) {
	for _, api := range []string{model.APIChat, model.APIResponses, model.APIAnthropic} {
		t.Run(api, func(t *testing.T) {
			srv := modeltest.New(t,
				modeltest.Error(400, "Unsupported parameter: 'temperature' is not supported with this model."),
				modeltest.Reply("one"), modeltest.Reply("two"))
			temp := 0.5
			c, w := apiClient(t, srv, api, func(cfg *model.Config) { cfg.Temperature = &temp })
			for _, want := range []string{"one", "two"} {
				reply, err := c.Complete(context.Background(), conversation())
				if err != nil || reply.Content != want {
					t.Fatalf("reply %q, err %v", reply.Content, err)
				}
			}
			reqs := srv.Requests()
			if reqs[0].JSON()["temperature"] != 0.5 {
				t.Errorf("first request temperature %v", reqs[0].JSON()["temperature"])
			}
			for i, r := range reqs[1:] {
				if _, ok := r.JSON()["temperature"]; ok {
					t.Errorf("request %d still sent temperature", i+2)
				}
			}
			said := 0
			for _, m := range w.all() {
				if strings.Contains(m, "temperature") && strings.Contains(m, "model.temperature") {
					said++
				}
			}
			if said != 1 {
				t.Errorf("warnings %v: want the drop said once", w.all())
			}
		})
	}
}

func TestRefusedParameterNamesTheSetting(t *testing.T) {
	for _, api := range []string{model.APIResponses, model.APIAnthropic} {
		srv := modeltest.New(t, modeltest.Error(400, "reasoning.effort: 'max' is not supported with this model"))
		c, _ := apiClient(t, srv, api, func(cfg *model.Config) { cfg.ReasoningEffort = "max" })
		_, err := c.Complete(context.Background(), conversation())
		var apiErr *model.APIError
		if !errors.As(err, &apiErr) || apiErr.Status != 400 || !strings.Contains(err.Error(), "model.reasoning_effort") {
			t.Errorf("%s: err %v, want a 400 naming model.reasoning_effort", api, err)
		}
		if srv.Calls() != 1 {
			t.Errorf("%s: %d calls: a final error is not retried", api, srv.Calls())
		}
	}
}

func TestRefusalsReachTheParser(t *testing.T) {
	for _, api := range []string{model.APIChat, model.APIResponses, model.APIAnthropic} {
		srv := modeltest.New(t, modeltest.Refusal("I cannot help with that."))
		c, _ := apiClient(t, srv, api, nil)
		reply, err := c.Complete(context.Background(), conversation())
		if err != nil || reply.Content != "I cannot help with that." {
			t.Errorf("%s: reply %q, err %v", api, reply.Content, err)
		}
		if api != model.APIChat && reply.FinishReason != "refusal" {
			t.Errorf("%s: finish reason %q, want refusal", api, reply.FinishReason)
		}
	}
}

// Anthropic's 529 overloaded_error is retried with backoff; a 429 waits
// for its retry-after; both count as attempts.
func TestOverloadAndRateLimitAreRetried(t *testing.T) {
	for _, api := range []string{model.APIResponses, model.APIAnthropic} {
		t.Run(api, func(t *testing.T) {
			srv := modeltest.New(t,
				modeltest.Overloaded(),
				modeltest.Error(429, "rate limited").WithHeader("Retry-After", "7"),
				modeltest.Reply("finally"))
			c, _ := apiClient(t, srv, api, func(cfg *model.Config) { cfg.Retry.MaxDelaySeconds = 30 })
			var waits []time.Duration
			model.SetSleep(c, func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil })
			reply, err := c.Complete(context.Background(), conversation())
			if err != nil || reply.Content != "finally" {
				t.Fatalf("reply %q, err %v", reply.Content, err)
			}
			if len(waits) != 2 || waits[0] > 5*time.Millisecond || waits[1] != 7*time.Second {
				t.Errorf("waits %v, want a short backoff then the 7s retry-after", waits)
			}
		})
	}
	srv := modeltest.New(t, modeltest.Overloaded().Forever())
	c, _ := apiClient(t, srv, model.APIAnthropic, nil)
	model.SetSleep(c, func(context.Context, time.Duration) error { return nil })
	_, err := c.Complete(context.Background(), conversation())
	var re *model.RetryError
	if !errors.As(err, &re) || re.Attempts != 4 || !strings.Contains(err.Error(), "overloaded_error") {
		t.Errorf("err %v, want a RetryError after 4 attempts naming overloaded_error", err)
	}
}

func TestNewAPIsTimeOut(t *testing.T) {
	for _, api := range []string{model.APIResponses, model.APIAnthropic} {
		srv := modeltest.New(t, modeltest.Reply("late").After(2*time.Second), modeltest.Reply("on time"))
		c, _ := apiClient(t, srv, api, func(cfg *model.Config) { cfg.TimeoutSeconds = 0.2 })
		reply, err := c.Complete(context.Background(), conversation())
		if err != nil || reply.Content != "on time" || srv.Calls() != 2 {
			t.Errorf("%s: reply %q after %d calls, err %v: want the slow answer abandoned and retried", api, reply.Content, srv.Calls(), err)
		}
	}
}

func TestChatCountsCachedTokens(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("x").WithUsage(1000, 10).WithCache(900, 0).WithReasoning(4))
	c, _ := newClient(t, srv, func(cfg *model.Config) { cfg.Price = model.Price{Input: 1, Output: 1, CachedInput: 0.1} })
	reply, err := c.Complete(context.Background(), conversation())
	if err != nil {
		t.Fatal(err)
	}
	if u := reply.Usage; u.CachedTokens != 900 || u.ReasoningTokens != 4 || u.Uncached() != 100 || u.Cost != (100+90+10)/1e6 {
		t.Errorf("usage %+v", u)
	}
}

func TestAPISettingsAreChecked(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	tests := []struct {
		cfg  model.Config
		want string
	}{
		{model.Config{Name: "m", API: "gemini", BaseURL: "http://localhost"}, "use chat, responses or anthropic"},
		{model.Config{Name: "m", API: "anthropic"}, "set ANTHROPIC_API_KEY"},
		{model.Config{Name: "m", API: "responses", BaseURL: "https://api.example.com", APIKeyEnv: "WRIGHT_TEST_UNSET_KEY"}, "set WRIGHT_TEST_UNSET_KEY"},
		{model.Config{Name: "m", Thinking: "adaptive", BaseURL: "http://localhost"}, "model.api: anthropic"},
		{model.Config{Name: "m", API: "anthropic", Thinking: "deep", BaseURL: "http://localhost"}, "use off or adaptive"},
		{model.Config{Name: "m", ReasoningEffort: "huge", BaseURL: "http://localhost"}, "reasoning_effort"},
		{model.Config{Name: "m", Price: model.Price{CachedInput: -1}, BaseURL: "http://localhost"}, "negative"},
	}
	for _, tt := range tests {
		_, err := model.New(tt.cfg, nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%+v) = %v, want an error with %q", tt.cfg, err, tt.want)
		}
	}
}

func TestResolveBaseURL(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	tests := []struct{ api, in, want string }{
		{"chat", "", model.DefaultBaseURL},
		{"responses", "", model.DefaultBaseURL},
		{"anthropic", "", "https://api.anthropic.com/v1"},
		{"anthropic", "https://api.anthropic.com", "https://api.anthropic.com/v1"},
		{"anthropic", "https://api.anthropic.com/v1/", "https://api.anthropic.com/v1"},
		{"chat", "http://127.0.0.1:8000", "http://127.0.0.1:8000/v1"},
		{"chat", "https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1"},
		{"chat", "https://gw.example/v1beta/openai/", "https://gw.example/v1beta/openai"},
	}
	for _, tt := range tests {
		if got := model.ResolveBaseURL(tt.api, tt.in); got != tt.want {
			t.Errorf("ResolveBaseURL(%s, %q) = %q, want %q", tt.api, tt.in, got, tt.want)
		}
	}
}

func TestChatSendsReasoningEffort(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("x"))
	c, _ := newClient(t, srv, func(cfg *model.Config) { cfg.ReasoningEffort = "low" })
	if _, err := c.Complete(context.Background(), conversation()); err != nil {
		t.Fatal(err)
	}
	if got := srv.Last().JSON()["reasoning_effort"]; got != "low" {
		t.Errorf("reasoning_effort = %v, want low", got)
	}
}

func TestResponsesFallsBackWithoutStructuredOutput(t *testing.T) {
	srv := modeltest.New(t, modeltest.Error(400, "Invalid parameter: 'text.format' of type 'json_schema' is not supported with this model."),
		modeltest.Reply(`{"a":1}`))
	c, w := apiClient(t, srv, model.APIResponses, nil)
	reply, err := c.Complete(context.Background(), conversation())
	if err != nil || reply.Content != `{"a":1}` {
		t.Fatalf("reply %q, err %v", reply.Content, err)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || get(reqs[0].JSON(), "text", "format", "type") != "json_schema" || reqs[1].JSON()["text"] != nil {
		t.Errorf("want the schema first, then no text.format: %s / %s", reqs[0].Body, reqs[1].Body)
	}
	if len(w.all()) == 0 || !strings.Contains(strings.Join(w.all(), "\n"), "text.format") {
		t.Errorf("warnings %v", w.all())
	}
}

// A refusal that names a parameter wright did not send is not "fixed" by
// leaving it out: one call, and the error names the setting.
func TestRefusalOfAnUnsentParameterIsFinal(t *testing.T) {
	for _, api := range []string{model.APIChat, model.APIResponses, model.APIAnthropic} {
		srv := modeltest.New(t, modeltest.Error(400, "temperature: this model requires temperature 1"))
		c, _ := apiClient(t, srv, api, nil)
		_, err := c.Complete(context.Background(), conversation())
		if err == nil || !strings.Contains(err.Error(), "model.temperature") || srv.Calls() != 1 {
			t.Errorf("%s: %d calls, err %v", api, srv.Calls(), err)
		}
	}
}
