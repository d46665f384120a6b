package templates

import (
	"io/fs"
	"strings"
	"testing"
)

func TestEveryBuiltinCompiles(t *testing.T) {
	var s Set
	names, err := fs.Glob(files, "*.j2")
	if err != nil || len(names) == 0 {
		t.Fatalf("no templates embedded: %v", err)
	}
	for _, n := range names {
		if err := s.Check(builtinPrefix + n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestRenderBuiltinAndInline(t *testing.T) {
	var s Set
	out, err := s.Render("builtin:format_error.j2", map[string]any{"error": "no JSON object found", "action_field": "bash_command"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "no JSON object found") || !strings.Contains(out, `"bash_command"`) {
		t.Errorf("format error text lacks the reason or the field:\n%s", out)
	}
	out, err = s.Render("step {{ n }} of {{ max }}", map[string]any{"n": 3, "max": 10})
	if err != nil || out != "step 3 of 10" {
		t.Errorf("inline template: %q, %v", out, err)
	}
}

func TestErrors(t *testing.T) {
	var s Set
	if _, err := s.Render("builtin:nope.j2", nil); err == nil || !strings.Contains(err.Error(), "nope.j2") {
		t.Errorf("unknown built-in: %v", err)
	}
	if err := s.Check("{% if %}"); err == nil {
		t.Error("a broken template compiled")
	}
}

func TestWorkspaceSystemMentionsGateOnlyWhenRequired(t *testing.T) {
	var s Set
	vars := map[string]any{"action_field": "bash_command", "workspace": "/w", "command_timeout_seconds": 240}
	vars["require_reflection"] = true
	on, err := s.Render("builtin:workspace_system.j2", vars)
	if err != nil {
		t.Fatal(err)
	}
	vars["require_reflection"] = false
	off, _ := s.Render("builtin:workspace_system.j2", vars)
	if !strings.Contains(on, "wright reflect") || strings.Contains(off, "wright reflect") {
		t.Error("the reflection instructions do not follow require_reflection")
	}
}

func TestNoHTMLEscaping(t *testing.T) {
	var s Set
	out, err := s.Render("builtin:workspace_observation.j2", map[string]any{"observation": map[string]any{
		"returncode": 0, "cwd": "/w", "command_output": `<div class="a">x & y</div>`}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `<div class="a">x & y</div>`) {
		t.Errorf("output was escaped:\n%s", out)
	}
}

func TestCraftedModeAddsTheToolRules(t *testing.T) {
	var s Set
	vars := map[string]any{"action_field": "bash_command", "require_reflection": true, "crafted": true}
	on, err := s.Render("builtin:workspace_system.j2", vars)
	if err != nil {
		t.Fatal(err)
	}
	vars["crafted"] = false
	off, _ := s.Render("builtin:workspace_system.j2", vars)
	if !strings.Contains(on, "step 0 params:") || !strings.Contains(on, "--help") || strings.Contains(off, "step 0 params:") {
		t.Error("crafted-mode rules do not follow the crafted flag")
	}
}

func TestInstancesShowTheOutputSchemaOnlyWhenSet(t *testing.T) {
	var s Set
	schema := `{"type": "object", "required": ["price"]}`
	for _, name := range []string{"builtin:workspace_instance.j2", "builtin:browser_instance.j2"} {
		vars := map[string]any{"task": "t", "task_id": "x", "workspace": "/w", "step_limit": 5}
		without, err := s.Render(name, vars)
		if err != nil {
			t.Fatal(err)
		}
		vars["output_schema"] = schema
		vars["crafted"] = true
		with, _ := s.Render(name, vars)
		if strings.Contains(without, "output schema") || !strings.Contains(with, schema) {
			t.Errorf("%s: the schema block does not follow output_schema:\n%s", name, with)
		}
		if name == "builtin:workspace_instance.j2" && (!strings.Contains(with, "result.json") || !strings.Contains(with, "run(...)` returns")) {
			t.Errorf("%s: no result.json or run() instructions:\n%s", name, with)
		}
	}
}
