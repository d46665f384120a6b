package harness_test

import (
	"context"
	"errors"
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

func TestBuildRefusesAnUnknownMode(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	cfg, err := config.Load(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Agent.Mode = "spaceship"
	_, err = harness.Build(cfg, harness.Options{Executable: wrightBin})
	if err == nil || !strings.Contains(err.Error(), "agent.mode") || !strings.Contains(err.Error(), "browser or workspace") {
		t.Fatalf("Build with an unknown mode: %v", err)
	}
}

// The action field comes from the mode's environment; a config that names
// the same one still works, another one is refused.
func TestBuildActionField(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	for _, c := range []struct {
		layers []string
		ok     bool
	}{
		{nil, true},
		{[]string{"model.action_field=bash_command"}, true},
		{[]string{"local_browser", "model.action_field=python_code"}, true},
		{[]string{"model.action_field=python_code"}, false},
		{[]string{"local_browser", "model.action_field=bash_command"}, false},
	} {
		cfg, err := config.Load(c.layers, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = harness.Build(cfg, harness.Options{Executable: wrightBin})
		if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), "model.action_field")) {
			t.Errorf("%v: %v", c.layers, err)
		}
	}
}

// TestGateOffResult: with the gate off the result has no gate label, and a
// run directory that already holds a run is refused before anything starts.
func TestGateOffResult(t *testing.T) {
	srv := modeltest.New(t, modeltest.Bash("look", "echo hello"), modeltest.Done(model.FieldBash, "done", "hello"))
	cfg, err := config.Load([]string{"agent.require_self_reflection_success=false"},
		map[string]any{"model.name": "scripted", "model.base_url": srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	h, err := harness.Build(cfg, harness.Options{RunDir: dir, Executable: wrightBin})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Run(context.Background(), harness.Task{Text: "Say hello"})
	if err != nil || res.ExitStatus != agent.Submitted || res.FinalResponse != "hello" {
		t.Fatalf("%v %+v", err, res)
	}
	if res.GateLabel != nil || res.GateRun != nil || res.TaskID != "say_hello" {
		t.Errorf("result %+v", res)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "result.json"))
	if !strings.Contains(string(b), `"gate_label": null`) || !strings.Contains(string(b), `"gate_run": null`) {
		t.Errorf("result.json:\n%s", b)
	}
	_, err = h.Run(context.Background(), harness.Task{Text: "Say hello"})
	var dirErr *harness.RunDirError
	if !errors.As(err, &dirErr) {
		t.Errorf("a second run into the same directory: %v", err)
	}
}
