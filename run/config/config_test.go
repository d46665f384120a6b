package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBaseDefaults(t *testing.T) {
	c, err := Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.StepLimit != 100 || c.Agent.Mode != "workspace" || c.Model.ActionField != "" ||
		!c.Agent.RequireSelfReflectionSuccess || c.Env.CommandTimeoutSeconds != 240 || c.Gate.Mode != "file" {
		t.Errorf("unexpected defaults: %+v", c)
	}
	if c.Agent.SystemTemplate != "builtin:workspace_system.j2" {
		t.Errorf("system template %q", c.Agent.SystemTemplate)
	}
	if c.Env.AriaSnapshot != "changes" || c.Agent.PruneBlock != 5 {
		t.Errorf("env.aria_snapshot %q, agent.prune_block %d", c.Env.AriaSnapshot, c.Agent.PruneBlock)
	}
}

func TestLayering(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.yaml")
	os.WriteFile(file, []byte("agent:\n  step_limit: 30\n  cost_limit: 2.5\nenv:\n  env:\n    MixedCase_Var: kept\n    DROP: x\n"), 0o644)
	later := filepath.Join(dir, "later.yaml")
	os.WriteFile(later, []byte("env:\n  env:\n    DROP: null\n"), 0o644)

	t.Setenv("WRIGHT_MODEL_NAME", "from-env")
	t.Setenv("WRIGHT_AGENT_COST_LIMIT", "9")
	c, err := Load([]string{"local_browser", file, later, "agent.step_limit=12", "model.price_per_mtok={input: 1.5, output: 6}"},
		map[string]any{"agent.cost_limit": 3.0})
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.ActionField != "" || c.Agent.Mode != "browser" {
		t.Errorf("built-in layer not applied: %+v", c.Agent)
	}
	if c.Agent.StepLimit != 12 {
		t.Errorf("inline layer should beat the file before it: step_limit %d", c.Agent.StepLimit)
	}
	if c.Model.Name != "from-env" {
		t.Errorf("env var should beat files: model %q", c.Model.Name)
	}
	if c.Agent.CostLimit != 3 {
		t.Errorf("flags should beat env: cost_limit %v", c.Agent.CostLimit)
	}
	if c.Model.Price.Input != 1.5 || c.Model.Price.Output != 6 {
		t.Errorf("inline YAML value: %+v", c.Model.Price)
	}
	if c.Env.Vars["MixedCase_Var"] != "kept" {
		t.Errorf("env.env lost its case: %v", c.Env.Vars)
	}
	if _, ok := c.Env.Vars["DROP"]; ok {
		t.Error("a null in a later layer should remove the variable")
	}
}

func TestErrorsAreClear(t *testing.T) {
	cases := map[string][]string{
		"no such built-in": {"nonsense"},
		"no such file":     {"missing/file.yaml"},
		"gate.mode":        {"gate.mode=maybe"},
		"response_format":  {"model.response_format=xml"},
		"env.aria_snapshot is \"diff\": use full or changes": {"env.aria_snapshot=diff"},
		"agent.prune_block must be 0 or more":                {"agent.prune_block=-2"},
		"value is not YAML":                                  {"agent.step_limit=[1"},
	}
	for want, layers := range cases {
		_, err := Load(layers, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: error %v, want it to mention %q", layers, err, want)
		}
	}
}

func TestRedacted(t *testing.T) {
	c, err := Load([]string{"model.headers={Authorization: Bearer sk-abc123, X-Title: wright}", "env.env={TOKEN: t0k3n, NOTE: uses sk-abc123}", "model.api_key_env=OPENAI_API_KEY"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := c.Redacted("sk-abc123")
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, bad := range []string{"sk-abc123", "t0k3n"} {
		if strings.Contains(s, bad) {
			t.Errorf("config.yaml holds %q:\n%s", bad, s)
		}
	}
	for _, good := range []string{"X-Title", "api_key_env: OPENAI_API_KEY", "step_limit: 100"} {
		if !strings.Contains(strings.ToLower(s), strings.ToLower(good)) {
			t.Errorf("config.yaml lacks %q:\n%s", good, s)
		}
	}
}

func TestKeyNamesAndJudge(t *testing.T) {
	c, err := Load([]string{"model.api_key_env=MY_KEY", "env.hide_env=[AWS_SECRET]", "gate.model={name: judge-1, api_key_env: JUDGE_KEY}"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(c.KeyNames(), ",")
	if got != "ANTHROPIC_API_KEY,AWS_SECRET,JUDGE_KEY,MY_KEY,OPENAI_API_KEY" {
		t.Errorf("KeyNames = %s", got)
	}
	jm, err := c.JudgeModel()
	if err != nil || jm.Name != "judge-1" || jm.ActionField != "" {
		t.Errorf("JudgeModel = %+v, %v", jm, err)
	}
}

// A typo used to be ignored and the run went ahead with the default.
func TestUnknownKeysAreRefused(t *testing.T) {
	for _, tc := range []struct {
		layer, want string
	}{
		{"agent.step_limt=1", "unknown key agent.step_limt (did you mean agent.step_limit?)"},
		{"model.step_limit=1", "(did you mean agent.step_limit?)"},
		{"gate.mdoe=rerun", "(did you mean gate.mode?)"},
		{"browser.viewport.widht=3", "(did you mean browser.viewport.width?)"},
		{"nonsense.entirely.different_thing=1", "unknown key nonsense.entirely.different_thing"},
		{"agent.output_shema=s.json", "(did you mean agent.output_schema?)"},
	} {
		_, err := Load([]string{tc.layer}, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.layer, err, tc.want)
		}
	}
	// Free-form maps take any key; an empty section is fine.
	for _, layer := range []string{"env.env={MY_VAR: x}", "gate.model={name: judge-1, whatever: 2}",
		"model.headers={X-Title: wright}", "browser.viewport={}", "agent.output_schema=s.json",
		"agent.output_schema={type: object, properties: {unitPrice: {type: number}}}"} {
		if _, err := Load([]string{layer}, nil); err != nil {
			t.Errorf("%s: %v", layer, err)
		}
	}
}

func TestOutputSchemaKeepsItsCase(t *testing.T) {
	c, err := Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Agent.OutputSchema != "" {
		t.Errorf("default output_schema %#v", c.Agent.OutputSchema)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "schema.yaml")
	os.WriteFile(file, []byte("agent:\n  output_schema:\n    type: object\n    required: [unitPrice]\n    properties:\n      unitPrice: {type: number}\n"), 0o644)
	c, err = Load([]string{file}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := c.Agent.OutputSchema.(map[string]any)
	if !ok || m["properties"].(map[string]any)["unitPrice"] == nil {
		t.Fatalf("inline schema lost its case: %#v", c.Agent.OutputSchema)
	}
	if out, _ := c.Redacted(); !strings.Contains(string(out), "unitPrice") {
		t.Errorf("config.yaml should show the schema as used:\n%s", out)
	}
	// A path given later (a flag) wins over the mapping.
	c, err = Load([]string{file}, map[string]any{"agent.output_schema": "s.json"})
	if err != nil || c.Agent.OutputSchema != "s.json" {
		t.Fatalf("flag path: %#v %v", c.Agent.OutputSchema, err)
	}
	c, err = Load([]string{file, "agent.output_schema=other.json"}, nil)
	if err != nil || c.Agent.OutputSchema != "other.json" {
		t.Fatalf("inline path: %#v %v", c.Agent.OutputSchema, err)
	}
}

func TestModelAPIIsChecked(t *testing.T) {
	_, err := Load([]string{"model.api=gemini"}, nil)
	if err == nil || !strings.Contains(err.Error(), "model.api") || !strings.Contains(err.Error(), "chat, responses or anthropic") {
		t.Errorf("unknown model.api: %v", err)
	}
	c, err := Load([]string{"model.api=anthropic", "model.reasoning_effort=high", "model.thinking=adaptive", "model.price_per_mtok.cached_input=0.5", "model.price_per_mtok.cache_write=6.25"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model.API != "anthropic" || c.Model.ReasoningEffort != "high" || c.Model.Thinking != "adaptive" || c.Model.Price.CachedInput != 0.5 || c.Model.Price.CacheWrite != 6.25 {
		t.Errorf("model section %+v", c.Model)
	}
	if c.Model.APIKeyEnv != "" {
		t.Errorf("api_key_env defaults to %q, want empty (each API's own)", c.Model.APIKeyEnv)
	}
	// The judge inherits the API unless gate.model names its own.
	c, err = Load([]string{"model.api=anthropic", "gate.model={api: responses, name: judge}"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if jm, _ := c.JudgeModel(); jm.API != "responses" || jm.Name != "judge" {
		t.Errorf("judge %+v", jm)
	}
	// Another API does not inherit the agent's endpoint, key or thinking;
	// the same API does.
	c, err = Load([]string{"model.api=anthropic", "model.base_url=https://api.anthropic.com", "model.thinking=adaptive",
		"model.api_key_env=MY_ANTHROPIC", "gate.model={api: chat, name: judge}"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if jm, _ := c.JudgeModel(); jm.BaseURL != "" || jm.APIKeyEnv != "" || jm.Thinking != "" {
		t.Errorf("a chat judge inherited the Anthropic settings: %+v", jm)
	}
	c, err = Load([]string{"model.api=anthropic", "model.base_url=https://api.anthropic.com", "gate.model={api: anthropic, name: judge}"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if jm, _ := c.JudgeModel(); jm.BaseURL != "https://api.anthropic.com" {
		t.Errorf("a judge of the same API lost the base URL: %+v", jm)
	}
}

// WRIGHT_BROWSER names the browser binary for the launcher; it is also the
// name a section's variable would have. It must not shadow the browser
// section (a headed launch on a machine with no display), while a leaf's
// variable still overrides its key.
func TestASectionsNameInTheEnvironmentShadowsNothing(t *testing.T) {
	t.Setenv("WRIGHT_BROWSER", "/usr/bin/chromium")
	t.Setenv("WRIGHT_AGENT_STEP_LIMIT", "7")
	c, err := Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Browser.Headless || c.Browser.Viewport.Width != 1280 {
		t.Errorf("WRIGHT_BROWSER hid the browser section: headless %v, viewport %+v", c.Browser.Headless, c.Browser.Viewport)
	}
	if c.Agent.StepLimit != 7 {
		t.Errorf("WRIGHT_AGENT_STEP_LIMIT=7 gave agent.step_limit %d", c.Agent.StepLimit)
	}
}
