package rundir

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/env"
	"wright/model"
)

// wholeTrajectory is trajectory.json as one json.MarshalIndent of the
// whole history makes it, inline images replaced: what SaveTrajectory
// must write however much of it was kept from the save before.
func wholeTrajectory(t *testing.T, info map[string]any, msgs []model.Message) []byte {
	t.Helper()
	clean := make([]model.Message, len(msgs))
	for i, m := range msgs {
		m.Content = dataURL.ReplaceAllString(m.Content, ImageMarker)
		clean[i] = m
	}
	if msgs == nil {
		clean = nil
	}
	b, err := json.MarshalIndent(Trajectory{Info: info, Messages: clean}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(dataURL.ReplaceAll(b, []byte(ImageMarker)), '\n')
}

// Saved step after step, with messages replaced (a pruned observation's
// new meta), changed in place (a meta's field) and images in content and
// meta, trajectory.json is byte for byte the whole encoding.
func TestSaveTrajectoryKeepsMessagesItEncodedBefore(t *testing.T) {
	r, err := Create(filepath.Join(t.TempDir(), "r"))
	if err != nil {
		t.Fatal(err)
	}
	img := "data:image/png;base64," + strings.Repeat("QUJD", 20)
	check := func(what string, info map[string]any, msgs []model.Message) {
		t.Helper()
		if err := r.SaveTrajectory(info, msgs); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(r.Dir, "trajectory.json"))
		if err != nil {
			t.Fatal(err)
		}
		if want := wholeTrajectory(t, info, msgs); !bytes.Equal(got, want) {
			t.Fatalf("%s: trajectory.json differs from the whole encoding:\n got %s\nwant %s", what, got, want)
		}
	}
	check("no messages", map[string]any{"model_calls": 0}, nil)
	check("an empty history", map[string]any{"model_calls": 0}, []model.Message{})

	obs := &env.Observation{Success: true, Output: "shown <b>here</b> & " + img, OutputKey: "command_output"}
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: "system"},
		{Role: model.RoleUser, Content: "task", Meta: &model.Meta{Task: true}},
	}
	for step := 1; step <= 6; step++ {
		usage := model.Usage{PromptTokens: 100 * step}
		msgs = append(msgs,
			model.Message{Role: model.RoleAssistant, Content: `{"thought": "step"}`, Meta: &model.Meta{Step: step, Usage: &usage}},
			model.Message{Role: model.RoleUser, Content: "output " + img, Images: []string{"shot.png"}, Meta: &model.Meta{Step: step, Observation: obs}})
		check("a step", map[string]any{"model_calls": step}, msgs)
	}
	// Pruning: a new meta and content for an old observation.
	meta := *msgs[3].Meta
	meta.Pruned = true
	msgs[3].Meta, msgs[3].Content = &meta, "output pruned"
	check("a pruned observation", map[string]any{"model_calls": 6}, msgs)
	// A meta changed where it stands, and images changed.
	msgs[4].Meta.FinishReason = "length"
	msgs[5].Images = []string{"other.png"}
	check("a meta changed in place", map[string]any{"model_calls": 6}, msgs)
	// Compaction: the history shrinks and its messages move.
	msgs = append(msgs[:2:2], model.Message{Role: model.RoleUser, Content: "summary"}, msgs[len(msgs)-1])
	check("a compacted history", map[string]any{"model_calls": 6}, msgs)
}
