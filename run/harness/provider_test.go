package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/model"
	"wright/model/modeltest"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/harness"
)

// plainwire is a wire API of this test's own, added the way any provider
// is: one entry in model's table, here with its client beside it, and one
// Wire so that the stand-in speaks it. Nothing else in the program is told
// about it; TestRunSpeaksANewAPI runs a whole task over it.
//
// Its wire: POST {base}/generate {"model", "turns": [{"role", "text"}]}
// answered {"text", "stop", "tokens": {"in", "cached", "out"}}, the key in
// "X-Plainwire-Key: key=<key>" and a required Plainwire-Version header.
const (
	plainAPI    = "plainwire"
	plainKeyEnv = "WRIGHT_PLAINWIRE_KEY"
)

var plainProvider = model.Provider{
	Name:       plainAPI,
	New:        newPlainClient,
	KeyEnv:     plainKeyEnv,
	BaseURLEnv: "WRIGHT_PLAINWIRE_BASE_URL",
	BaseURL:    "https://plainwire.invalid/v1",
	AuthHeader: "X-Plainwire-Key",
	AuthPrefix: "key=",
	Headers:    map[string]string{"Plainwire-Version": "1"},
	Path:       "/generate",
	ProbePath:  "/models",
	ParseUsage: plainUsage,
	TraceName:  plainAPI,
}

func init() {
	model.Register(plainProvider)
	modeltest.RegisterWire(plainAPI, modeltest.Wire{Reply: plainReply, Error: plainError})
}

type plainTurn struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

type plainAnswer struct {
	Text   string `json:"text"`
	Stop   string `json:"stop"`
	Tokens struct {
		In     int `json:"in"` // the whole prompt, cached part included
		Cached int `json:"cached"`
		Out    int `json:"out"`
	} `json:"tokens"`
}

func plainUsage(body []byte) model.Usage {
	var a plainAnswer
	if json.Unmarshal(body, &a) != nil {
		return model.Usage{}
	}
	return model.Usage{PromptTokens: a.Tokens.In, CachedTokens: a.Tokens.Cached, CompletionTokens: a.Tokens.Out}
}

// plainClient makes one attempt per call: retries are no part of what
// this test shows.
type plainClient struct {
	cfg  model.Config
	key  string
	http *http.Client
}

func newPlainClient(cfg model.Config, key string, _ func(string)) (model.Client, error) {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: time.Duration(cfg.TimeoutSeconds * float64(time.Second))}
	}
	return &plainClient{cfg: cfg, key: key, http: hc}, nil
}

func (c *plainClient) Complete(ctx context.Context, messages []model.Message) (model.Reply, error) {
	var turns []plainTurn
	for _, m := range messages {
		if m.Role != model.RoleExit {
			turns = append(turns, plainTurn{Role: m.Role, Text: m.Content})
		}
	}
	body, err := json.Marshal(map[string]any{"model": c.cfg.Name, "turns": turns})
	if err != nil {
		return model.Reply{}, fmt.Errorf("plainwire: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimRight(c.cfg.BaseURL, "/")+plainProvider.Path, bytes.NewReader(body))
	if err != nil {
		return model.Reply{}, fmt.Errorf("plainwire: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	plainProvider.Authorize(req.Header, c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		return model.Reply{}, fmt.Errorf("plainwire: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return model.Reply{}, fmt.Errorf("plainwire: read the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return model.Reply{}, &model.APIError{Status: resp.StatusCode, Message: string(raw)}
	}
	var a plainAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		return model.Reply{}, fmt.Errorf("plainwire: the answer is not one: %w", err)
	}
	u := plainUsage(raw)
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	u.Cost = c.cfg.Price.Cost(u)
	finish := "stop"
	if a.Stop == "limit" {
		finish = "length"
	}
	return model.Reply{Content: a.Text, FinishReason: finish, Usage: u, Raw: raw}, nil
}

func plainReply(_ modeltest.Request, a modeltest.Answer) any {
	stop := "done"
	if a.FinishReason == "length" {
		stop = "limit"
	}
	return map[string]any{"text": a.Content, "stop": stop,
		"tokens": map[string]any{"in": a.PromptTokens, "cached": a.CachedTokens, "out": a.CompletionTokens}}
}

func plainError(_ int, typ, message string) any {
	return map[string]any{"problem": typ + ": " + message}
}

// TestRunSpeaksANewAPI runs a workspace task over plainwire, an API no
// file outside provider_test.go knows: config takes model.api plainwire
// and hides its key variable from the shell, the agent's calls carry the
// key in plainwire's header, and the key proxy started for the judge
// forwards plainwire's route alone, with the key and the required header
// put in and the answer's usage metered into judge_usage.
func TestRunSpeaksANewAPI(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl for the shell's call through the key proxy")
	}
	if _, err := config.Load([]string{"model.api=gemini"}, nil); err == nil || !strings.Contains(err.Error(), "use chat, responses, anthropic or plainwire") {
		t.Errorf("an unknown model.api: %v, want the registered APIs listed", err)
	}

	t.Setenv(plainKeyEnv, testKey)
	judgeSrv := modeltest.New(t, modeltest.Reply("a judged answer").WithUsage(300, 20).WithCache(100, 0))
	// The shell sends a key of its own, which the proxy must replace, and
	// then tries another API's route, which it must refuse.
	call := `echo "key:${` + plainKeyEnv + `:-hidden}"; ` +
		`curl -sS --unix-socket "$WRIGHT_MODEL_SOCKET" -H 'X-Plainwire-Key: key=forged' ` +
		`-d '{"model":"'"$WRIGHT_MODEL"'","turns":[{"role":"user","text":"judge this"}]}' http://wright-model-proxy/v1/generate; echo; ` +
		`curl -s -o /dev/null -w 'other:%{http_code}\n' --unix-socket "$WRIGHT_MODEL_SOCKET" -d '{}' http://wright-model-proxy/v1/chat/completions`
	agentSrv := modeltest.New(t,
		modeltest.Bash("ask the judge's endpoint", call),
		modeltest.Done(model.FieldBash, "done", "judged"),
	)
	cfg, err := config.Load([]string{
		"agent.require_self_reflection_success=false",
		"model.api=" + plainAPI,
		"model.price_per_mtok={input: 2, output: 10}",
		"gate.model={name: judge-model, base_url: " + judgeSrv.URL + "}",
	}, map[string]any{"model.name": "agent-model", "model.base_url": agentSrv.URL})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	h, err := harness.Build(cfg, harness.Options{RunDir: dir, Executable: wrightBin})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Run(context.Background(), harness.Task{Text: "Ask the judge"})
	if err != nil || res.ExitStatus != agent.Submitted || res.FinalResponse != "judged" {
		t.Fatalf("%v %+v", err, res)
	}

	reqs := agentSrv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d agent requests, want 2", len(reqs))
	}
	for _, r := range reqs {
		if r.API() != plainAPI || r.Path != "/v1/generate" || r.Header.Get("X-Plainwire-Key") != "key="+testKey || r.Header.Get("Plainwire-Version") != "1" {
			t.Errorf("agent request over %s to %s with headers %v", r.API(), r.Path, r.Header)
		}
	}
	if !strings.Contains(string(reqs[1].Body), "ask the judge") {
		t.Errorf("the second call lacks the first reply: %s", reqs[1].Body)
	}

	log, _ := os.ReadFile(filepath.Join(dir, "workspace", "logs", "step_0001.log"))
	for _, want := range []string{"key:hidden", "a judged answer", "other:404"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the shell's step lacks %q:\n%s", want, log)
		}
	}
	if judgeSrv.Calls() != 1 {
		t.Fatalf("%d judge calls through the proxy, want 1", judgeSrv.Calls())
	}
	jr := judgeSrv.Last()
	if jr.API() != plainAPI || jr.Header.Get("X-Plainwire-Key") != "key="+testKey || jr.Header.Get("Plainwire-Version") != "1" {
		t.Errorf("the proxied call over %s lacks plainwire's key or header: %v", jr.API(), jr.Header)
	}

	var result struct {
		Usage      model.Usage  `json:"usage"`
		JudgeUsage *model.Usage `json:"judge_usage"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
	if err := json.Unmarshal(b, &result); err != nil {
		t.Fatal(err)
	}
	if result.Usage.PromptTokens != 2*modeltest.DefaultPromptTokens || result.Usage.Cost == 0 {
		t.Errorf("the run's usage %+v: want both agent calls, priced", result.Usage)
	}
	if u := result.JudgeUsage; u == nil || u.PromptTokens != 300 || u.CachedTokens != 100 || u.CompletionTokens != 20 {
		t.Errorf("judge_usage %+v: want the proxied answer's 300 (100 cached) + 20", u)
	}
}
