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
		"no such built-in":  {"nonsense"},
		"no such file":      {"missing/file.yaml"},
		"gate.mode":         {"gate.mode=maybe"},
		"response_format":   {"model.response_format=xml"},
		"value is not YAML": {"agent.step_limit=[1"},
	}
	for want, layers := range cases {
		_, err := Load(layers, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: error %v, want it to mention %q", layers, err, want)
		}
	}
}

func TestRedacted(t *testing.T) {
	c, err := Load([]string{"model.headers={Authorization: Bearer sk-abc123, X-Title: wright}", "env.env={TOKEN: t0k3n, NOTE: uses sk-abc123}"}, nil)
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
	if got != "AWS_SECRET,JUDGE_KEY,MY_KEY,OPENAI_API_KEY" {
		t.Errorf("KeyNames = %s", got)
	}
	jm, err := c.JudgeModel()
	if err != nil || jm.Name != "judge-1" || jm.ActionField != "" {
		t.Errorf("JudgeModel = %+v, %v", jm, err)
	}
}
