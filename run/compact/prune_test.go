package compact

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"wright/env"
	"wright/model"
)

// renderObs stands in for the observation template: every flat key in a
// stable order, so a changed value always shows in the content.
func renderObs(obs env.Observation) (string, error) {
	flat := obs.Flat()
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %v\n", k, flat[k])
	}
	return b.String(), nil
}

func obsMessage(t *testing.T, obs env.Observation) model.Message {
	t.Helper()
	content, err := renderObs(obs)
	if err != nil {
		t.Fatal(err)
	}
	return model.Message{Role: model.RoleUser, Content: content, Meta: &model.Meta{Observation: &obs, Step: 1}}
}

func workspaceObs(step int) env.Observation {
	out := fmt.Sprintf("step %d\n%s", step, strings.Repeat("line of output\n", 200))
	logPath := fmt.Sprintf("logs/step_%04d.log", step)
	return env.Observation{
		Success:   true,
		Elapsed:   12 * time.Millisecond,
		Output:    out,
		OutputKey: "command_output",
		LogPath:   logPath,
		Details:   map[string]any{"returncode": 0, "final_script": "", "cwd": "/ws"},
		Prunable:  map[string]string{"command_output": fmt.Sprintf("[output pruned (%d chars); the whole output is in %s]", len(out), logPath)},
	}
}

func liveObs(step int) env.Observation {
	aria := fmt.Sprintf("- heading \"Page %d\" [level=1]\n%s", step, strings.Repeat("- link \"Item\" [ref=e1]:\n  - /url: /item\n", 100))
	return env.Observation{
		Success:   true,
		Elapsed:   40 * time.Millisecond,
		OutputKey: "python_output",
		Details: map[string]any{
			"url":           fmt.Sprintf("https://example.test/page/%d", step),
			"title":         "Example",
			"aria_snapshot": aria,
		},
		Prunable: map[string]string{"aria_snapshot": fmt.Sprintf("[ARIA snapshot pruned (%d chars)]", len(aria))},
	}
}

// deepCopy clones a history, observations included, so later mutation of
// the original would show as a difference.
func deepCopy(msgs []model.Message) []model.Message {
	out := make([]model.Message, len(msgs))
	for i, m := range msgs {
		c := m
		c.Images = append([]string(nil), m.Images...)
		if m.Meta != nil {
			meta := *m.Meta
			if o := m.Meta.Observation; o != nil {
				oc := *o
				oc.Details = maps.Clone(o.Details)
				oc.Prunable = maps.Clone(o.Prunable)
				oc.Notices = slices.Clone(o.Notices)
				meta.Observation = &oc
			}
			c.Meta = &meta
		}
		out[i] = c
	}
	return out
}

// workspaceHistory: system, task, then n (assistant, observation) pairs, a
// gate refusal in the middle and an assistant message last.
func workspaceHistory(t *testing.T, n int) []model.Message {
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: "You are wright."},
		{Role: model.RoleUser, Content: "Task: find the price."},
	}
	for i := 1; i <= n; i++ {
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: fmt.Sprintf(`{"thought":"step %d","bash_command":"ls","done":false}`, i)})
		msgs = append(msgs, obsMessage(t, workspaceObs(i)))
		if i == 2 {
			msgs = append(msgs, model.Message{Role: model.RoleUser, Content: strings.Repeat("gate says no. ", 100), Meta: &model.Meta{InterruptType: "SelfReflectionGate"}})
		}
	}
	return msgs
}

func observationIndexes(msgs []model.Message) []int {
	var idx []int
	for i, m := range msgs {
		if isObservation(m) {
			idx = append(idx, i)
		}
	}
	return idx
}

func TestPruneWorkspace(t *testing.T) {
	msgs := workspaceHistory(t, 6)
	before := deepCopy(msgs)
	// Keep the originals' maps to prove Prune never writes into them.
	origObs := msgs[observationIndexes(msgs)[0]].Meta.Observation
	origOutput := origObs.Output

	n, err := Prune(msgs, 2, renderObs)
	if err != nil {
		t.Fatal(err)
	}
	if n != 4 {
		t.Fatalf("pruned %d messages, want 4", n)
	}
	obsIdx := observationIndexes(msgs)
	for k, i := range obsIdx {
		latest := k >= len(obsIdx)-2
		if latest {
			if !reflect.DeepEqual(msgs[i], before[i]) {
				t.Errorf("message %d is among the latest 2 observations but changed", i)
			}
			continue
		}
		m := msgs[i]
		obs := *m.Meta.Observation
		if want := before[i].Meta.Observation.Prunable["command_output"]; obs.Output != want {
			t.Errorf("message %d: output %q, want the environment's placeholder %q", i, obs.Output, want)
		}
		wantContent, _ := renderObs(obs)
		if m.Content != wantContent {
			t.Errorf("message %d: content not re-rendered from the pruned observation:\n%s", i, m.Content)
		}
		if strings.Contains(m.Content, "line of output") {
			t.Errorf("message %d: content still holds the output", i)
		}
		if !m.Meta.Pruned {
			t.Errorf("message %d: not marked pruned", i)
		}
		// Everything else survives.
		flat, old := obs.Flat(), before[i].Meta.Observation.Flat()
		for _, key := range []string{"success", "returncode", "log_path", "cwd"} {
			if !reflect.DeepEqual(flat[key], old[key]) {
				t.Errorf("message %d: key %s changed", i, key)
			}
		}
		if m.Meta.Step != before[i].Meta.Step {
			t.Errorf("message %d: other Meta fields lost", i)
		}
	}
	for i := range msgs {
		if !isObservation(before[i]) && !reflect.DeepEqual(msgs[i], before[i]) {
			t.Errorf("message %d (%s, not an observation) changed", i, msgs[i].Role)
		}
	}
	if origObs.Output != origOutput {
		t.Error("Prune wrote into the original observation")
	}
}

func TestPruneLive(t *testing.T) {
	msgs := []model.Message{{Role: model.RoleSystem, Content: "sys"}, {Role: model.RoleUser, Content: "task"}}
	for i := 1; i <= 3; i++ {
		msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: "{}"}, obsMessage(t, liveObs(i)))
	}
	before := deepCopy(msgs)
	n, err := Prune(msgs, 1, renderObs)
	if err != nil || n != 2 {
		t.Fatalf("Prune = %d, %v; want 2, nil", n, err)
	}
	for _, i := range []int{3, 5} {
		obs := msgs[i].Meta.Observation
		snap, _ := obs.Get("aria_snapshot")
		if !strings.HasPrefix(snap, "[ARIA snapshot pruned") {
			t.Errorf("message %d: snapshot not replaced: %.60q", i, snap)
		}
		if obs.Detail("url") != before[i].Meta.Observation.Detail("url") {
			t.Errorf("message %d: url lost", i)
		}
		if strings.Contains(msgs[i].Content, "[ref=e1]") {
			t.Errorf("message %d: content still holds the snapshot", i)
		}
	}
	if !reflect.DeepEqual(msgs[7], before[7]) {
		t.Error("the latest observation changed")
	}
}

func TestPruneIdempotent(t *testing.T) {
	msgs := workspaceHistory(t, 5)
	if _, err := Prune(msgs, 2, renderObs); err != nil {
		t.Fatal(err)
	}
	once := deepCopy(msgs)
	calls := 0
	counting := func(o env.Observation) (string, error) { calls++; return renderObs(o) }
	n, err := Prune(msgs, 2, counting)
	if err != nil || n != 0 {
		t.Fatalf("second Prune = %d, %v; want 0, nil", n, err)
	}
	if calls != 0 {
		t.Errorf("second Prune rendered %d times; pruned messages must be skipped", calls)
	}
	if !reflect.DeepEqual(msgs, once) {
		t.Error("second Prune changed the history")
	}
	// As the run goes on, one more observation falls out of the window.
	msgs = append(msgs, model.Message{Role: model.RoleAssistant, Content: "{}"}, obsMessage(t, workspaceObs(6)))
	n, err = Prune(msgs, 2, counting)
	if err != nil || n != 1 || calls != 1 {
		t.Fatalf("Prune after a new step = %d, %v (%d renders); want 1, nil, 1", n, err, calls)
	}
}

func TestPruneDisabledOrNothingToDo(t *testing.T) {
	for _, tc := range []struct {
		name     string
		keepLast int
		steps    int
	}{
		{"keepLast 0", 0, 5},
		{"keepLast negative", -1, 5},
		{"window covers all", 5, 5},
		{"window larger", 10, 3},
		{"no observations", 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := workspaceHistory(t, tc.steps)
			before := deepCopy(msgs)
			n, err := Prune(msgs, tc.keepLast, nil) // render is never needed here
			if err != nil || n != 0 {
				t.Fatalf("Prune = %d, %v; want 0, nil", n, err)
			}
			if !reflect.DeepEqual(msgs, before) {
				t.Error("history changed")
			}
		})
	}
}

func TestPruneLeavesOtherMessagesAlone(t *testing.T) {
	big := strings.Repeat("x", 5000)
	bulky := env.Observation{Output: big, OutputKey: "command_output", Prunable: map[string]string{"command_output": "[pruned]"}}
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: big},
		{Role: model.RoleUser, Content: big},
		// An assistant message that happens to carry an observation.
		{Role: model.RoleAssistant, Content: big, Meta: &model.Meta{Observation: &bulky}},
		obsMessage(t, workspaceObs(1)),
		{Role: model.RoleUser, Content: big, Meta: &model.Meta{InterruptType: "FormatError"}},
		{Role: model.RoleUser, Content: big, Meta: &model.Meta{}},
		obsMessage(t, workspaceObs(2)),
		{Role: model.RoleExit, Content: big, Meta: &model.Meta{ExitStatus: "Submitted", Observation: &bulky}},
	}
	before := deepCopy(msgs)
	n, err := Prune(msgs, 1, renderObs)
	if err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want 1, nil", n, err)
	}
	for i := range msgs {
		if i == 3 {
			if reflect.DeepEqual(msgs[i], before[i]) {
				t.Error("the older observation was not pruned")
			}
			continue
		}
		if !reflect.DeepEqual(msgs[i], before[i]) {
			t.Errorf("message %d (%s) changed", i, msgs[i].Role)
		}
	}
}

func TestPruneShortValuesStay(t *testing.T) {
	short := env.Observation{Success: true, Output: "ok\n", OutputKey: "command_output", LogPath: "logs/step_0001.log",
		Prunable: map[string]string{"command_output": "[output pruned to save context (3 chars); the whole output is in logs/step_0001.log]"}}
	noBulk := env.Observation{Details: map[string]any{"exception": "Timeout"}}
	msgs := []model.Message{obsMessage(t, short), obsMessage(t, noBulk), obsMessage(t, workspaceObs(3))}
	before := deepCopy(msgs)
	n, err := Prune(msgs, 1, renderObs)
	if err != nil || n != 0 {
		t.Fatalf("Prune = %d, %v; want 0, nil", n, err)
	}
	if !reflect.DeepEqual(msgs, before) {
		t.Error("a short output was replaced by a longer placeholder")
	}
}

// A history loaded back from trajectory.json keeps every flat key; it has
// no Prunable list (that is not part of the flat form), so Prune leaves it.
func TestPruneAfterJSONRoundTrip(t *testing.T) {
	data, err := json.Marshal(workspaceHistory(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []model.Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatal(err)
	}
	obs := msgs[observationIndexes(msgs)[0]].Meta.Observation
	if obs.OutputKey != "command_output" || !strings.Contains(obs.Output, "line of output") || obs.LogPath != "logs/step_0001.log" ||
		obs.Detail("cwd") != "/ws" || obs.Elapsed != 12*time.Millisecond || !obs.Success {
		t.Errorf("observation read back: %+v", obs)
	}
	data2, _ := json.Marshal(msgs)
	if string(data2) != string(data) {
		t.Errorf("the trajectory changed on a round trip:\n%s\n%s", data, data2)
	}
	if n, err := Prune(msgs, 1, renderObs); err != nil || n != 0 {
		t.Fatalf("Prune = %d, %v; want 0, nil", n, err)
	}
}

func TestPruneBadInputLosesNothing(t *testing.T) {
	t.Run("no render", func(t *testing.T) {
		msgs := workspaceHistory(t, 3)
		before := deepCopy(msgs)
		n, err := Prune(msgs, 1, nil)
		if err == nil || n != 0 {
			t.Fatalf("Prune = %d, %v; want an error", n, err)
		}
		if !reflect.DeepEqual(msgs, before) {
			t.Error("history changed")
		}
	})
	t.Run("render fails for one", func(t *testing.T) {
		msgs := workspaceHistory(t, 4)
		before := deepCopy(msgs)
		boom := errors.New("template broke")
		render := func(o env.Observation) (string, error) {
			if strings.Contains(o.LogPath, "0002") {
				return "", boom
			}
			return renderObs(o)
		}
		n, err := Prune(msgs, 1, render)
		if !errors.Is(err, boom) || n != 2 {
			t.Fatalf("Prune = %d, %v; want 2 and the render error", n, err)
		}
		i := observationIndexes(msgs)[1]
		if !reflect.DeepEqual(msgs[i], before[i]) {
			t.Error("the message whose render failed was changed")
		}
		// It is not marked, so a later call retries it.
		n, err = Prune(msgs, 1, renderObs)
		if err != nil || n != 1 {
			t.Fatalf("retry = %d, %v; want 1, nil", n, err)
		}
	})
}
