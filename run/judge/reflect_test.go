package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"wright/model"
	"wright/model/modeltest"
	"wright/run/gate"
)

// judgeClient is the real OpenAI-compatible client pointed at a test
// server, with retry waits short enough for tests.
func judgeClient(t testing.TB, baseURL string) model.Client {
	t.Helper()
	c, err := model.New(model.Config{
		Name:           "judge-model",
		BaseURL:        baseURL + "/v1",
		ResponseFormat: model.FormatNone,
		Retry:          model.Retry{Attempts: 3, InitialDelaySeconds: 0.001, MaxDelaySeconds: 0.01},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// judgedWorkspace is a workspace with task.json and one run holding the
// named screenshots and a log.
func judgedWorkspace(t *testing.T, shots ...string) string {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "task.json"), []byte(`{"task": "Find the cheapest red kettle"}`))
	dir := makeRun(t, ws, "run_1", shots...)
	writeFile(t, filepath.Join(dir, gate.FinalLogName), []byte("opened shop\nRESULT: kettle 19.99\n"))
	return ws
}

func TestReflectTwoStage(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_2_result.png", "final_execution_1_home.png")
	srv := modeltest.New(t,
		modeltest.Reply("Score: 4\nReasoning: The shop's home page is open."),
		modeltest.Reply("**Score:** 5\n**Reasoning:** The kettle at 19.99 is shown."),
		modeltest.Reply("Both screenshots support the answer.\n\n**Status:** \"success\""),
	)
	out := filepath.Join(ws, "out", "verdict.json")
	res, err := Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{
		Workspace: ws, Concurrency: 1, Model: "judge-model", Endpoint: srv.URL, Output: out,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success() || res.PredictedLabel == nil || *res.PredictedLabel != 1 {
		t.Fatalf("label %v", deref(res.PredictedLabel))
	}
	wantPaths := []string{"final_runs/run_1/screenshots/final_execution_1_home.png", "final_runs/run_1/screenshots/final_execution_2_result.png"}
	if !reflect.DeepEqual(res.ImagePaths, wantPaths) {
		t.Errorf("image_paths %v", res.ImagePaths)
	}
	if r := res.ImageRecords[0]; r.Score != 4 || r.Reasoning != "The shop's home page is open." || r.Attempts != 1 || r.ParseFailed || r.ImagePath != wantPaths[0] {
		t.Errorf("record 0: %+v", r)
	}
	if r := res.ImageRecords[1]; r.Score != 5 || !strings.Contains(r.Response, "19.99") {
		t.Errorf("record 1: %+v", r)
	}
	if res.RunDir != "final_runs/run_1" || res.Model != "judge-model" || res.Usage.TotalTokens != 3*(modeltest.DefaultPromptTokens+modeltest.DefaultCompletionTokens) {
		t.Errorf("run_dir %q model %q usage %+v", res.RunDir, res.Model, res.Usage)
	}

	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	s1 := reqs[0].Chat()
	if s1.Model != "judge-model" || len(s1.Messages) != 2 || s1.Messages[0].Role != "system" {
		t.Fatalf("stage 1 request: %+v", s1)
	}
	if u := s1.Messages[1]; len(u.ImageURLs()) != 1 || !strings.HasPrefix(u.ImageURLs()[0], "data:image/png;base64,") ||
		!strings.Contains(u.Text(), "Find the cheapest red kettle") || !strings.Contains(u.Text(), "screenshot 1 of 2 (final_execution_1_home.png)") {
		t.Errorf("stage 1 user message: %q, %d images", u.Text(), len(u.ImageURLs()))
	}
	if len(reqs[0].Chat().ResponseFormat) != 0 {
		t.Errorf("the judge must not ask for the action schema: %s", reqs[0].Chat().ResponseFormat)
	}
	s2 := reqs[2].Chat().Messages
	if len(s2[1].ImageURLs()) != 2 {
		t.Errorf("stage 2 carries %d images, want 2", len(s2[1].ImageURLs()))
	}
	text := s2[1].Text()
	for _, want := range []string{"RESULT: kettle 19.99", "Screenshot 1 (final_execution_1_home.png): score 4/5\nThe shop's home page is open.", "Screenshot 2 (final_execution_2_result.png): score 5/5", "Find the cheapest red kettle", "Status: success"} {
		if !strings.Contains(text, want) {
			t.Errorf("stage 2 text lacks %q:\n%s", want, text)
		}
	}
	if text != res.FinalUserText || s2[0].Text() != res.FinalSystemMsg {
		t.Error("final_user_text / final_system_msg are not what was sent")
	}

	// The file holds the documented fields under their documented names.
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"model", "endpoint", "predicted_label", "final_response", "final_user_text", "final_system_msg", "image_paths", "image_records"} {
		if _, ok := m[k]; !ok {
			t.Errorf("output lacks %q", k)
		}
	}
	rec := m["image_records"].([]any)[0].(map[string]any)
	for _, k := range []string{"image_path", "Score", "Reasoning", "Response", "Attempts", "ParseFailed"} {
		if _, ok := rec[k]; !ok {
			t.Errorf("image record lacks %q", k)
		}
	}
	if m["predicted_label"] != 1.0 {
		t.Errorf("predicted_label %v", m["predicted_label"])
	}
}

func TestReflectParseFailures(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png", "final_execution_2_b.png")
	srv := modeltest.New(t,
		// image 1: never readable: 1 try + 3 retries
		modeltest.Reply("It looks fine to me."),
		modeltest.Reply("Really, it is fine."),
		modeltest.Reply("Score: 9\nReasoning: very fine"),
		modeltest.Reply("Fine!"),
		// image 2: readable on the second try
		modeltest.Reply("The search results."),
		modeltest.Reply("Score: 3\nReasoning: results shown but not sorted"),
		modeltest.Reply("Status: failure"),
	)
	res, err := Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{Workspace: ws, Concurrency: 1, MaxParseRetries: 3})
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := res.ImageRecords[0], res.ImageRecords[1]
	if !r0.ParseFailed || r0.Score != 0 || r0.Attempts != 4 || r0.Response != "Fine!" {
		t.Errorf("record 0: %+v", r0)
	}
	if r1.ParseFailed || r1.Score != 3 || r1.Attempts != 2 || r1.Reasoning != "results shown but not sorted" {
		t.Errorf("record 1: %+v", r1)
	}
	if res.PredictedLabel == nil || *res.PredictedLabel != 0 {
		t.Errorf("label %v", deref(res.PredictedLabel))
	}
	reqs := srv.Requests()
	retry := reqs[1].Chat().Messages
	if len(retry) != 4 || retry[2].Role != "assistant" || retry[2].Text() != "It looks fine to me." ||
		!strings.Contains(retry[3].Text(), "could not be read") || !strings.Contains(retry[3].Text(), "Score:") {
		t.Errorf("a retry must show the judge its answer and what was wrong: %+v", retry)
	}
	if len(retry[1].ImageURLs()) != 1 {
		t.Error("a retry must still carry the screenshot")
	}
	final := reqs[6].Chat().Messages[1].Text()
	if !strings.Contains(final, "Screenshot 1 (final_execution_1_a.png): score 0 - the reviewer's answer could not be read after 4 attempts") {
		t.Errorf("stage 2 text does not flag the unreadable note:\n%s", final)
	}
}

func TestReflectNoRetryWhenDisabled(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png")
	srv := modeltest.New(t, modeltest.Reply("no score here"), modeltest.Reply("Status: success"))
	res, err := Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{Workspace: ws, MaxParseRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.ImageRecords[0]; !r.ParseFailed || r.Attempts != 1 {
		t.Errorf("record: %+v", r)
	}
}

func TestReflectRetriesHTTP500(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png")
	srv := modeltest.New(t,
		modeltest.Status(500),
		modeltest.Status(503),
		modeltest.Reply("Score: 5\nReasoning: done"),
		modeltest.Status(500),
		modeltest.Reply("Status: success"),
	)
	res, err := Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Success() || res.ImageRecords[0].Attempts != 1 || srv.Calls() != 5 {
		t.Errorf("success %v, attempts %d, calls %d", res.Success(), res.ImageRecords[0].Attempts, srv.Calls())
	}
}

// A judge that stays unreachable is an error, and no verdict is written.
func TestReflectModelErrorWritesNothing(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png", "final_execution_2_b.png")
	srv := modeltest.New(t, modeltest.Error(401, "bad key").Forever())
	out := filepath.Join(ws, "verdict.json")
	_, err := Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{Workspace: ws, Output: out})
	var apiErr *model.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 401 || !strings.Contains(err.Error(), "final_execution_") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed judge wrote %s", out)
	}
}

func TestReflectMissingStatus(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png")
	srv := modeltest.New(t,
		modeltest.Reply("Score: 4\nReasoning: fine"),
		modeltest.Reply("I would say it mostly worked."),
	)
	res, err := Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if res.PredictedLabel != nil || res.Success() {
		t.Errorf("label %v, want null", deref(res.PredictedLabel))
	}
	data, _ := json.Marshal(res)
	if !strings.Contains(string(data), `"predicted_label":null`) {
		t.Errorf("null label not written as null: %s", data)
	}
}

func TestReflectBracesAndConfigFiles(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png")
	cfgDir := filepath.Join(ws, "judge")
	writeFile(t, filepath.Join(cfgDir, "final_user.txt"), []byte("Log:\n{action_history_log}\nNotes:\n{image_reasonings}\nAnswer like {{\"status\": \"...\"}} then Status: success|failure"))
	cfgJSON := `{
		"image_judge_user_prompt": "Rate {image_name} for {{the task}}: {task}. Score: N, Reasoning: ...",
		"final_verdict_user_prompt_file": "final_user.txt"
	}`
	writeFile(t, filepath.Join(cfgDir, "cfg.json"), []byte(cfgJSON))
	cfg, err := LoadReflectConfig(filepath.Join(cfgDir, "cfg.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ImageJudgeSystem != DefaultPrompts().ImageJudgeSystem {
		t.Error("an omitted prompt must be the built-in one")
	}
	srv := modeltest.New(t, modeltest.Reply("Score: 2\nReasoning: meh"), modeltest.Reply("Status: failure"))
	res, err := Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{Workspace: ws, Prompts: cfg.Prompts})
	if err != nil {
		t.Fatal(err)
	}
	s1 := srv.Requests()[0].Chat().Messages[1].Text()
	if !strings.HasPrefix(s1, "Rate final_execution_1_a.png for {the task}: {\n  \"task\": \"Find the cheapest red kettle\"\n}. Score: N") {
		t.Errorf("stage 1 text: %q", s1)
	}
	want := "Log:\nopened shop\nRESULT: kettle 19.99\n\nNotes:\nScreenshot 1 (final_execution_1_a.png): score 2/5\nmeh\nAnswer like {\"status\": \"...\"} then Status: success|failure"
	if res.FinalUserText != want {
		t.Errorf("final user text\n got %q\nwant %q", res.FinalUserText, want)
	}
}

func TestReflectUnknownPlaceholder(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png")
	writeFile(t, filepath.Join(ws, "cfg.json"), []byte(`{"final_verdict_user_prompt": "Log: {action_log}"}`))
	_, err := LoadReflectConfig(filepath.Join(ws, "cfg.json"))
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "final_verdict_user_prompt: unknown placeholder {action_log}") ||
		!strings.Contains(err.Error(), "{action_history_log}") {
		t.Errorf("err = %v", err)
	}
	// The same through the API, before any model call.
	srv := modeltest.New(t)
	_, err = Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{Workspace: ws, Prompts: Prompts{ImageJudgeUser: "{image_reasonings}"}})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "image_judge_user_prompt: unknown placeholder {image_reasonings}") {
		t.Errorf("err = %v", err)
	}
	if srv.Calls() != 0 {
		t.Errorf("%d model calls on a bad config", srv.Calls())
	}
}

func TestLoadReflectConfigErrors(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		`{"image_judge_prompt": "x"}`: `unknown key "image_judge_prompt"`,
		`{"final_verdict_user_prompt": "a", "final_verdict_user_prompt_file": "b.txt"}`: "not both",
		`{"final_verdict_user_prompt_file": "missing.txt"}`:                             "final_verdict_user_prompt_file: lstat",
		`{"image_judge_user_prompt": 5}`:                                                "must be a string",
		`{"images": "a.png"}`:                                                           "images must be a list",
		`[1, 2]`:                                                                        "not a JSON object",
		`{"image_judge_system_prompt": "{ oops", "final_verdict_system_prompt": "x } y"}`: "unmatched '}'",
	}
	for body, want := range cases {
		p := filepath.Join(dir, "c.json")
		writeFile(t, p, []byte(body))
		_, err := LoadReflectConfig(p)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", body, err, want)
		}
	}
	if _, err := LoadReflectConfig(filepath.Join(dir, "nope.json")); err == nil {
		t.Error("a missing config must be an error")
	}
	writeFile(t, filepath.Join(dir, "ok.json"), []byte(`{"images": ["shots/a.png"], "image_judge_system_prompt": ""}`))
	cfg, err := LoadReflectConfig(filepath.Join(dir, "ok.json"))
	if err != nil || !reflect.DeepEqual(cfg.Images, []string{"shots/a.png"}) || cfg.ImageJudgeSystem != DefaultPrompts().ImageJudgeSystem {
		t.Errorf("cfg %+v, err %v", cfg, err)
	}
	// The built-in config round-trips.
	writeFile(t, filepath.Join(dir, "default.json"), DefaultReflectConfigJSON())
	cfg, err = LoadReflectConfig(filepath.Join(dir, "default.json"))
	if err != nil || cfg.Prompts != DefaultPrompts() {
		t.Errorf("default config: %v", err)
	}
}

// Without images in the config, the judge takes the newest run that has
// screenshots, and says so when that is not the newest run.
func TestReflectImageSelection(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png")
	makeRun(t, ws, "run_2") // no screenshots
	srv := modeltest.New(t, modeltest.Reply("Score: 4\nReasoning: ok"), modeltest.Reply("Status: success"))
	var notes []string
	res, err := Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{Workspace: ws, Warn: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.RunDir != "final_runs/run_1" || len(notes) != 1 || !strings.Contains(notes[0], "the newest run run_2 has no screenshots; judging run_1") {
		t.Errorf("run %q notes %v", res.RunDir, notes)
	}

	// Images from the config, relative to the workspace; the log comes from
	// the newest run.
	writeFile(t, filepath.Join(ws, "extra", "x.png"), pngBytes(t, 1))
	writeFile(t, filepath.Join(ws, gate.FinalRunsDir, "run_2", gate.FinalLogName), []byte("run two log"))
	srv = modeltest.New(t, modeltest.Reply("Score: 4\nReasoning: ok"), modeltest.Reply("Status: success"))
	res, err = Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{Workspace: ws, ConfigImages: []string{"extra/x.png"}})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.ImagePaths, []string{"extra/x.png"}) || !strings.Contains(res.FinalUserText, "run two log") {
		t.Errorf("paths %v, text %q", res.ImagePaths, res.FinalUserText)
	}
}

func TestReflectNothingToJudge(t *testing.T) {
	srv := modeltest.New(t)
	client := judgeClient(t, srv.URL)
	cases := map[string]func(ws string) ReflectOptions{
		"final_runs does not exist": func(ws string) ReflectOptions { return ReflectOptions{Workspace: ws} },
		"no run folder under final_runs holds screenshots": func(ws string) ReflectOptions {
			makeRun(t, ws, "run_1")
			return ReflectOptions{Workspace: ws}
		},
		"final_runs/run_1 holds no screenshots": func(ws string) ReflectOptions {
			makeRun(t, ws, "run_1")
			return ReflectOptions{Workspace: ws, RunDir: "final_runs/run_1"}
		},
		"is not a PNG or JPEG file": func(ws string) ReflectOptions {
			writeFile(t, filepath.Join(ws, "fake.png"), []byte("<html>not an image</html>"))
			return ReflectOptions{Workspace: ws, Images: []string{"fake.png"}}
		},
		"no such file": func(ws string) ReflectOptions {
			return ReflectOptions{Workspace: ws, Images: []string{"gone.png"}}
		},
	}
	for want, opts := range cases {
		_, err := Reflect(context.Background(), client, opts(t.TempDir()))
		if !errors.Is(err, ErrNothingToJudge) || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
	var ce *ConfigError
	if _, err := Reflect(context.Background(), client, ReflectOptions{Workspace: filepath.Join(t.TempDir(), "gone")}); !errors.As(err, &ce) {
		t.Errorf("missing workspace: %v", err)
	}
	if srv.Calls() != 0 {
		t.Errorf("%d model calls with nothing to judge", srv.Calls())
	}
}

// Stage 1 really runs in parallel, never above the bound, and each answer
// lands on its own screenshot. The server holds each request until the
// bound is reached, so a serial judge would never get past the first.
func TestReflectConcurrency(t *testing.T) {
	const limit, images = 3, 7
	var shots []string
	for i := 1; i <= images; i++ {
		shots = append(shots, fmt.Sprintf("final_execution_%d_s.png", i))
	}
	ws := judgedWorkspace(t, shots...)
	var (
		mu                 sync.Mutex
		inflight, maxSeen  int
		reached            = make(chan struct{})
		reachedOnce        sync.Once
		stage1, stage2Seen int
	)
	nameRE := regexp.MustCompile(`screenshot (\d+) of`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		text := string(body)
		content := "Status: success"
		if m := nameRE.FindStringSubmatch(text); m != nil {
			mu.Lock()
			inflight++
			stage1++
			maxSeen = max(maxSeen, inflight)
			if inflight == limit {
				reachedOnce.Do(func() { close(reached) })
			}
			mu.Unlock()
			select {
			case <-reached:
			case <-time.After(10 * time.Second): // a serial judge ends up here and fails below
			}
			mu.Lock()
			inflight--
			mu.Unlock()
			content = fmt.Sprintf("Score: %d\nReasoning: this is screenshot %s", 1+len(m[1])%5, m[1])
		} else {
			mu.Lock()
			stage2Seen++
			mu.Unlock()
		}
		resp, _ := json.Marshal(map[string]any{
			"id": "x", "object": "chat.completion", "model": "judge-model",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
			"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
		})
		w.Header().Set("Content-Type", "application/json")
		w.Write(resp)
	}))
	defer srv.Close()
	res, err := Reflect(context.Background(), judgeClient(t, srv.URL), ReflectOptions{Workspace: ws, Concurrency: limit})
	if err != nil {
		t.Fatal(err)
	}
	if maxSeen != limit || stage1 != images || stage2Seen != 1 {
		t.Errorf("max in flight %d (want %d), stage-1 calls %d, stage-2 calls %d", maxSeen, limit, stage1, stage2Seen)
	}
	for i, r := range res.ImageRecords {
		if want := fmt.Sprintf("this is screenshot %d", i+1); r.Reasoning != want {
			t.Errorf("record %d has %q", i, r.Reasoning)
		}
	}
}

func TestReflectCancelled(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png", "final_execution_2_b.png")
	srv := modeltest.New(t, modeltest.Reply("Score: 4\nReasoning: x").After(time.Minute).Forever())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Calls() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	if _, err := Reflect(ctx, judgeClient(t, srv.URL), ReflectOptions{Workspace: ws}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}
