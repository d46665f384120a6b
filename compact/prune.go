// Package compact keeps the model's context under control on long runs:
// Prune replaces the bulky parts of old observations by short placeholders
// (no model call), Compactor folds the whole history into one summary, and
// Tokenizer/CountMessages estimate the prompt size offline so the loop knows
// when to do either.
package compact

import (
	"errors"
	"fmt"
	"maps"

	"wright/env"
	"wright/model"
)

// Keys this package reads and writes. The observation keys are the
// environments' (env/workspace, env/browser); the Extra keys are the loop's.
const (
	KeyARIASnapshot  = "aria_snapshot"  // live mode: the page's ARIA snapshot
	KeyCommandOutput = "command_output" // workspace mode: the command's (truncated) output
	KeyLogPath       = "log_path"       // workspace mode: the log that keeps the whole output

	ExtraObservation = "observation"
	ExtraPruned      = "pruned"
)

// Prune replaces, in place, the bulky parts of every observation message but
// the last keepLast: the ARIA snapshot (live mode) and the command output
// (workspace mode) become a short placeholder, the latter naming the log file
// that keeps the whole output. Extra["observation"] and Content change
// together; Content is re-rendered with render from the pruned observation.
//
// An observation message is a user message with Extra["observation"]. The
// latest keepLast of them are never touched, nor is any other message.
// Pruned messages are marked Extra["pruned"]=true and skipped next time, so
// calling Prune before every model call is cheap and idempotent. A value no
// longer than its placeholder is left as it is: pruning never makes a
// message bigger. keepLast <= 0 disables pruning.
//
// The replaced message gets fresh Extra and observation maps, so anyone still
// holding the old ones (a trajectory writer, a debug dump) keeps the full
// text. A message that cannot be pruned (render fails, the observation is not
// a map) is left exactly as it was and reported in the joined error; the
// others are still pruned. It returns how many messages it pruned.
func Prune(msgs []model.Message, keepLast int, render func(env.Observation) (string, error)) (int, error) {
	if keepLast <= 0 {
		return 0, nil
	}
	var obsIdx []int
	for i, m := range msgs {
		if isObservation(m) {
			obsIdx = append(obsIdx, i)
		}
	}
	if len(obsIdx) <= keepLast {
		return 0, nil
	}
	if render == nil {
		return 0, errors.New("prune observations: no render function to rebuild the message content")
	}
	pruned := 0
	var errs []error
	for _, i := range obsIdx[:len(obsIdx)-keepLast] {
		m := msgs[i]
		if done, _ := m.Extra[ExtraPruned].(bool); done {
			continue
		}
		obs, ok := asObservation(m.Extra[ExtraObservation])
		if !ok {
			errs = append(errs, fmt.Errorf("prune message %d: observation is a %T, not a map", i, m.Extra[ExtraObservation]))
			continue
		}
		slim, changed := slimObservation(obs)
		if !changed {
			continue
		}
		content, err := render(slim)
		if err != nil {
			errs = append(errs, fmt.Errorf("prune message %d: render observation: %w", i, err))
			continue
		}
		extra := maps.Clone(m.Extra)
		extra[ExtraObservation] = slim
		extra[ExtraPruned] = true
		m.Extra = extra
		m.Content = content
		msgs[i] = m
		pruned++
	}
	return pruned, errors.Join(errs...)
}

func isObservation(m model.Message) bool {
	if m.Role != model.RoleUser || m.Extra == nil {
		return false
	}
	obs, ok := m.Extra[ExtraObservation]
	return ok && obs != nil
}

// asObservation accepts the observation as the environment made it and as it
// comes back from trajectory.json (a plain map).
func asObservation(v any) (env.Observation, bool) {
	switch o := v.(type) {
	case env.Observation:
		return o, true
	case map[string]any:
		return env.Observation(o), true
	}
	return nil, false
}

// slimObservation returns a copy of obs with its bulky values replaced, and
// whether anything was replaced. obs itself is never modified.
func slimObservation(obs env.Observation) (env.Observation, bool) {
	out := maps.Clone(obs)
	changed := false
	if s, ok := obs[KeyARIASnapshot].(string); ok {
		if p := ariaPlaceholder(s); len(p) < len(s) {
			out[KeyARIASnapshot] = p
			changed = true
		}
	}
	if s, ok := obs[KeyCommandOutput].(string); ok {
		logPath, _ := obs[KeyLogPath].(string)
		if p := outputPlaceholder(s, logPath); len(p) < len(s) {
			out[KeyCommandOutput] = p
			changed = true
		}
	}
	return out, changed
}

// The placeholders tell the model what was there and where to get it back,
// so it neither trusts a stale page state nor re-runs a command just to see
// its output again.
func ariaPlaceholder(snapshot string) string {
	return fmt.Sprintf("[ARIA snapshot pruned to save context (%d chars). It showed the page as it was then; the latest observation shows the current page.]", len(snapshot))
}

func outputPlaceholder(output, logPath string) string {
	if logPath == "" {
		return fmt.Sprintf("[output pruned to save context (%d chars); no log file was recorded for this step.]", len(output))
	}
	return fmt.Sprintf("[output pruned to save context (%d chars); the whole output is in %s]", len(output), logPath)
}
