package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/env"
	"wright/model/modeltest"
	"wright/run/agent"
	"wright/run/config"
)

// notes is a mode that exists only in this test: its action is a line of
// text that it appends to notes.txt in the workspace. It is what the recipe
// in docs/architecture.md asks of a new mode, and no more.
type notes struct{ dir string }

var notesKind = env.Kind{Field: "note_text", Lang: "text"}

func (n *notes) Kind() env.Kind { return notesKind }

func (n *notes) Execute(ctx context.Context, step int, code string) (env.Observation, error) {
	if err := env.StartStep(ctx, step); err != nil {
		return env.Observation{}, err
	}
	f, err := os.OpenFile(filepath.Join(n.dir, "notes.txt"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return env.Observation{}, err
	}
	defer f.Close()
	if _, err := f.WriteString(code + "\n"); err != nil {
		return env.Observation{}, err
	}
	return env.Observation{Success: true, Output: "noted: " + code, OutputKey: "note_output"}, nil
}

func (n *notes) Close() error { return nil }

// TestAModeIsOneRegistration adds a mode with one registerEnvironment call
// and runs it through Build and Run as the two built-in modes are run: the
// model's JSON is parsed with the mode's action field, each action reaches
// the environment, and the run ends Submitted. Nothing else in the harness
// knows the mode.
func TestAModeIsOneRegistration(t *testing.T) {
	registerEnvironment("notes", environment{notesKind, func(_ context.Context, s setup) (env.Environment, error) {
		return &notes{dir: s.run.Workspace}, nil
	}})
	t.Cleanup(func() { delete(environments, "notes") })
	if !strings.Contains(strings.Join(Modes(), " "), "notes") {
		t.Fatalf("Modes() = %v: the registered mode is missing", Modes())
	}

	srv := modeltest.New(t,
		modeltest.Reply(`{"thought": "write it down", "note_text": "first", "done": false, "final_response": ""}`),
		modeltest.Reply(`{"thought": "and again", "note_text": "second", "done": false, "final_response": ""}`),
		modeltest.Reply(`{"thought": "finished", "note_text": "", "done": true, "final_response": "two notes"}`),
	)
	t.Setenv("OPENAI_API_KEY", "sk-wright-harness-notes-0123456789")
	cfg, err := config.Load([]string{
		"agent.mode=notes",
		"agent.require_self_reflection_success=false",
	}, map[string]any{
		"model.name": "notes-model", "model.base_url": srv.URL + "/v1",
		"agent.system_template":      "You keep notes. Answer with JSON whose action field is {{ action_field }}.",
		"agent.instance_template":    "Task: {{ task }}",
		"agent.observation_template": "{{ observation.note_output }}",
	})
	if err != nil {
		t.Fatal(err)
	}
	h, err := Build(cfg, Options{OutputDir: t.TempDir()})
	if err != nil {
		t.Fatalf("Build with a registered mode: %v", err)
	}
	res, err := h.Run(context.Background(), Task{ID: "notes", Text: "note two things"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitStatus != agent.Submitted || res.FinalResponse != "two notes" {
		t.Fatalf("result = %+v, want Submitted with the final response", res)
	}
	got, err := os.ReadFile(filepath.Join(res.RunDir, "workspace", "notes.txt"))
	if err != nil || string(got) != "first\nsecond\n" {
		t.Fatalf("notes.txt = %q, %v: each action should have reached the mode", got, err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || !strings.Contains(reqs[0].Chat().Messages[0].Text(), "note_text") {
		t.Fatalf("the model was asked %d times; the system prompt should name the mode's action field", len(reqs))
	}
	if obs := reqs[1].Chat().Messages; !strings.Contains(obs[len(obs)-1].Text(), "noted: first") {
		t.Fatalf("the second prompt should end with the first observation: %q", obs[len(obs)-1].Text())
	}
}
