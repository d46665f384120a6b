package harness_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/model"
	"wright/model/modeltest"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/harness"
)

// onePixelPNG is a 1x1 PNG, for the judge's image question.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// TestRunSpeaksEachAPI runs a workspace task end to end against a stand-in
// of each wire API: the agent's calls, the judge reached from the model's
// shell through the key proxy (`wright image-qa`), the prompt cache key or
// breakpoints, and the cached tokens in result.json and steps.md.
func TestRunSpeaksEachAPI(t *testing.T) {
	for _, api := range []string{model.APIResponses, model.APIAnthropic} {
		t.Run(api, func(t *testing.T) {
			keyEnv := "OPENAI_API_KEY"
			if api == model.APIAnthropic {
				keyEnv = "ANTHROPIC_API_KEY"
			}
			t.Setenv(keyEnv, testKey)
			judgeSrv := modeltest.New(t, modeltest.Reply(`{"answer":"a white pixel","evidence":"the image","unknown":false,"confidence":0.9}`).WithUsage(300, 20).WithCache(100, 0))
			agentSrv := modeltest.New(t,
				modeltest.Bash("ask the judge", `echo `+onePixelPNG+` | base64 -d > px.png && wright image-qa --image px.png --question "what is it?" --max-attempts 1`).WithUsage(1000, 50).WithCache(0, 900),
				modeltest.Done(model.FieldBash, "done", "a white pixel").WithUsage(1400, 40).WithCache(900, 400),
			)
			cfg, err := config.Load([]string{
				"agent.require_self_reflection_success=false",
				"model.api=" + api,
				"model.price_per_mtok={input: 2, output: 10, cached_input: 0.2, cache_write: 2.5}",
				"model.retry={attempts: 1}",
				"gate.model={name: judge-model, base_url: " + judgeSrv.URL + "}",
			}, map[string]any{"model.name": "agent-model", "model.base_url": agentSrv.URL})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "run")
			var ended []agent.Event // one run, so no lock: events come from its goroutine
			h, err := harness.Build(cfg, harness.Options{RunDir: dir, Executable: wrightBin,
				Observer: agent.ObserverFunc(func(e agent.Event) {
					if e.Kind == agent.StepEnded {
						ended = append(ended, e)
					}
				})})
			if err != nil {
				t.Fatal(err)
			}
			res, err := h.Run(context.Background(), harness.Task{Text: "Describe the pixel"})
			if err != nil || res.ExitStatus != agent.Submitted || res.FinalResponse != "a white pixel" {
				t.Fatalf("%v %+v", err, res)
			}

			// The judge answered the shell through the proxy, in the API's
			// own shape and with the key only the proxy holds.
			log, _ := os.ReadFile(filepath.Join(dir, "workspace", "logs", "step_0001.log"))
			if !strings.Contains(string(log), "a white pixel") || judgeSrv.Calls() != 1 {
				t.Fatalf("image-qa through the proxy (%d judge calls):\n%s", judgeSrv.Calls(), log)
			}
			jr := judgeSrv.Last()
			if jr.API() != api {
				t.Errorf("the judge was asked over %s (%s), want %s", jr.API(), jr.Path, api)
			}
			if api == model.APIAnthropic && jr.Header.Get("X-Api-Key") != testKey ||
				api == model.APIResponses && jr.Header.Get("Authorization") != "Bearer "+testKey {
				t.Errorf("the judge's request lacks the key in the API's header: %v", jr.Header)
			}

			reqs := agentSrv.Requests()
			if len(reqs) != 2 || reqs[0].API() != api {
				t.Fatalf("%d agent requests over %s", len(reqs), reqs[0].API())
			}
			if api == model.APIResponses {
				k1, _ := reqs[0].JSON()["prompt_cache_key"].(string)
				k2, _ := reqs[1].JSON()["prompt_cache_key"].(string)
				if !strings.HasPrefix(k1, "wright-run-") || k1 != k2 {
					t.Errorf("prompt_cache_key %q then %q: want one key for the run", k1, k2)
				}
			} else {
				if !strings.Contains(string(reqs[1].Body), `"cache_control":{"type":"ephemeral"}`) {
					t.Errorf("no cache breakpoint in %s", reqs[1].Body)
				}
			}
			// The second prompt extends the first (nothing was pruned yet).
			if !strings.Contains(string(reqs[1].Body), "ask the judge") {
				t.Errorf("the second call lacks the first reply")
			}

			var result struct {
				Usage model.Usage `json:"usage"`
			}
			b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
			if err := json.Unmarshal(b, &result); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), `"cached_tokens": 900`) {
				t.Errorf("result.json usage lacks the run's cached tokens:\n%s", b)
			}
			// The step's own usage reaches the terminal line.
			if len(ended) != 1 || ended[0].Step != 1 || ended[0].StepUsage.PromptTokens != 1000 || ended[0].StepUsage.CompletionTokens != 50 {
				t.Errorf("StepEnded events %+v: want step 1 with its own usage", ended)
			}
			steps, _ := os.ReadFile(filepath.Join(dir, "debug", "steps.md"))
			if !strings.Contains(string(steps), "900 cached") || !strings.Contains(string(steps), "500 uncached") {
				t.Errorf("steps.md lacks cached and uncached prompt tokens:\n%s", steps)
			}
		})
	}
}
