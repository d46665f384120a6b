package compact

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"wright/env"
	"wright/model"
)

// renderObs stands in for the observation template: every key in a stable
// order, so a changed value always shows in the content.
func renderObs(obs env.Observation) (string, error) {
	keys := make([]string, 0, len(obs))
	for k := range obs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %v\n", k, obs[k])
	}
	return b.String(), nil
}

func obsMessage(t *testing.T, obs env.Observation) model.Message {
	t.Helper()
	content, err := renderObs(obs)
	if err != nil {
		t.Fatal(err)
	}
	return model.Message{Role: model.RoleUser, Content: content, Extra: map[string]any{ExtraObservation: obs, "step": 0}}
}

func workspaceObs(step int) env.Observation {
	return env.Observation{
		"success":        true,
		"returncode":     0,
		"elapsed_ms":     int64(12),
		KeyCommandOutput: fmt.Sprintf("step %d\n%s", step, strings.Repeat("line of output\n", 200)),
		KeyLogPath:       fmt.Sprintf("logs/step_%04d.log", step),
		"final_script":   "",
		"cwd":            "/ws",
	}
}

func liveObs(step int) env.Observation {
	return env.Observation{
		"success":       true,
		"url":           fmt.Sprintf("https://example.test/page/%d", step),
		"title":         "Example",
		"elapsed_ms":    int64(40),
		KeyARIASnapshot: fmt.Sprintf("- heading \"Page %d\" [level=1]\n%s", step, strings.Repeat("- link \"Item\" [ref=e1]:\n  - /url: /item\n", 100)),
	}
}

// deepCopy clones a history through JSON-free means so later mutation of the
// original (maps included) would show as a difference.
func deepCopy(msgs []model.Message) []model.Message {
	out := make([]model.Message, len(msgs))
	for i, m := range msgs {
		c := m
		c.Images = append([]string(nil), m.Images...)
		if m.Extra != nil {
			c.Extra = map[string]any{}
			for k, v := range m.Extra {
				if o, ok := v.(env.Observation); ok {
					oc := env.Observation{}
					for ok2, ov := range o {
						oc[ok2] = ov
					}
					v = oc
				}
				c.Extra[k] = v
			}
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
			msgs = append(msgs, model.Message{Role: model.RoleUser, Content: strings.Repeat("gate says no. ", 100), Extra: map[string]any{"interrupt_type": "SelfReflectionGate"}})
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
	origObs := msgs[observationIndexes(msgs)[0]].Extra[ExtraObservation].(env.Observation)
	origOutput := origObs[KeyCommandOutput]

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
		obs := m.Extra[ExtraObservation].(env.Observation)
		out, _ := obs[KeyCommandOutput].(string)
		logPath := fmt.Sprintf("logs/step_%04d.log", k+1)
		if !strings.Contains(out, logPath) || !strings.Contains(out, "pruned") {
			t.Errorf("message %d: placeholder %q does not name %s", i, out, logPath)
		}
		wantContent, _ := renderObs(obs)
		if m.Content != wantContent {
			t.Errorf("message %d: content not re-rendered from the pruned observation:\n%s", i, m.Content)
		}
		if strings.Contains(m.Content, "line of output") {
			t.Errorf("message %d: content still holds the output", i)
		}
		if m.Extra[ExtraPruned] != true {
			t.Errorf("message %d: not marked pruned", i)
		}
		// Everything else survives.
		for _, key := range []string{"success", "returncode", KeyLogPath, "cwd"} {
			if !reflect.DeepEqual(obs[key], before[i].Extra[ExtraObservation].(env.Observation)[key]) {
				t.Errorf("message %d: key %s changed", i, key)
			}
		}
		if m.Extra["step"] != before[i].Extra["step"] {
			t.Errorf("message %d: other Extra keys lost", i)
		}
	}
	for i := range msgs {
		if !isObservation(before[i]) && !reflect.DeepEqual(msgs[i], before[i]) {
			t.Errorf("message %d (%s, not an observation) changed", i, msgs[i].Role)
		}
	}
	if origObs[KeyCommandOutput] != origOutput {
		t.Error("Prune wrote into the original observation map")
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
		obs := msgs[i].Extra[ExtraObservation].(env.Observation)
		snap := obs[KeyARIASnapshot].(string)
		if !strings.HasPrefix(snap, "[ARIA snapshot pruned") {
			t.Errorf("message %d: snapshot not replaced: %.60q", i, snap)
		}
		if obs["url"] != before[i].Extra[ExtraObservation].(env.Observation)["url"] {
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
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: big},
		{Role: model.RoleUser, Content: big},
		// An assistant message that happens to carry an observation-like Extra.
		{Role: model.RoleAssistant, Content: big, Extra: map[string]any{ExtraObservation: env.Observation{KeyCommandOutput: big}}},
		obsMessage(t, workspaceObs(1)),
		{Role: model.RoleUser, Content: big, Extra: map[string]any{"interrupt_type": "FormatError"}},
		{Role: model.RoleUser, Content: big, Extra: map[string]any{ExtraObservation: nil}},
		obsMessage(t, workspaceObs(2)),
		{Role: model.RoleExit, Content: big, Extra: map[string]any{"exit_status": "Submitted", ExtraObservation: env.Observation{KeyCommandOutput: big}}},
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
	short := env.Observation{"success": true, KeyCommandOutput: "ok\n", KeyLogPath: "logs/step_0001.log"}
	noBulk := env.Observation{"success": false, "exception": "Timeout"}
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

func TestPruneWithoutLogPath(t *testing.T) {
	o := workspaceObs(1)
	delete(o, KeyLogPath)
	msgs := []model.Message{obsMessage(t, o), obsMessage(t, workspaceObs(2))}
	if _, err := Prune(msgs, 1, renderObs); err != nil {
		t.Fatal(err)
	}
	out := msgs[0].Extra[ExtraObservation].(env.Observation)[KeyCommandOutput].(string)
	if !strings.Contains(out, "no log file") {
		t.Errorf("placeholder %q should say no log was kept", out)
	}
}

// A history loaded back from trajectory.json holds plain maps.
func TestPruneAfterJSONRoundTrip(t *testing.T) {
	data, err := json.Marshal(workspaceHistory(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []model.Message
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatal(err)
	}
	n, err := Prune(msgs, 1, renderObs)
	if err != nil || n != 2 {
		t.Fatalf("Prune = %d, %v; want 2, nil", n, err)
	}
	data2, _ := json.Marshal(msgs)
	// Content and Extra of the one observation that keeps its output.
	if got := strings.Count(string(data2), "line of output"); got != 2*200 {
		t.Errorf("found the output %d times; want it only in the latest observation (content and extra)", got/200)
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
			if strings.Contains(o[KeyLogPath].(string), "0002") {
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
	t.Run("observation not a map", func(t *testing.T) {
		msgs := []model.Message{
			{Role: model.RoleUser, Content: "weird", Extra: map[string]any{ExtraObservation: "a string"}},
			obsMessage(t, workspaceObs(2)),
			obsMessage(t, workspaceObs(3)),
		}
		before := deepCopy(msgs)
		n, err := Prune(msgs, 1, renderObs)
		if err == nil || !strings.Contains(err.Error(), "message 0") || n != 1 {
			t.Fatalf("Prune = %d, %v; want 1 and an error naming message 0", n, err)
		}
		if !reflect.DeepEqual(msgs[0], before[0]) {
			t.Error("the odd message changed")
		}
	})
}
