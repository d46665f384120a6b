// Package compact keeps the model's context under control on long runs:
// Prune replaces the bulky parts of old observations by short placeholders
// (no model call), Compactor folds the whole history into one summary, and
// Tokenizer/CountMessages estimate the prompt size offline so the loop knows
// when to do either.
package compact

import (
	"errors"
	"fmt"
	"slices"

	"wright/env"
	"wright/model"
)

// Prune replaces, in place, the bulky parts of every observation message but
// the last keepLast: each field the observation lists as Prunable (the
// command output in workspace mode, the ARIA snapshot in live mode) becomes
// the placeholder the environment gave for it. Meta.Observation and Content
// change together; Content is re-rendered with render from the pruned
// observation. It is PruneBlocks with blocks of one.
func Prune(msgs []model.Message, keepLast int, render func(env.Observation) (string, error)) (int, error) {
	return PruneBlocks(msgs, keepLast, 1, render)
}

// PruneBlocks is Prune that waits until the oldest observation due has been
// out of the last keepLast for block observations, then prunes every one
// due at once. Pruning rewrites
// the history where the oldest of them sits, so a provider's prompt cache
// can serve only what comes before it; pruning one observation per step
// rewrites the prompt every call, pruning in blocks only every block-th
// call, and between those each prompt is the previous one extended. The
// price is at most block-1 more unpruned observations in the context.
//
// An observation message is a user message with Meta.Observation. The
// latest keepLast of them are never touched, nor is any other message, nor
// the observations an Incremental one among those rests on (back to the
// last that is not incremental: live mode's change observations need the
// whole snapshot they are changes to). Pruned messages are marked
// Meta.Pruned and skipped next time, so calling it before every model call
// is cheap and idempotent. A value no longer than its placeholder is left
// as it is: pruning never makes a message bigger. keepLast <= 0 disables
// pruning; block <= 1 prunes as soon as an observation falls out.
//
// The replaced message gets a fresh Meta and observation, so anyone still
// holding the old ones (a trajectory writer, a debug dump) keeps the full
// text. A message that cannot be pruned (render fails) is left exactly as it
// was and reported in the joined error; the others are still pruned. It
// returns how many messages it pruned.
func PruneBlocks(msgs []model.Message, keepLast, block int, render func(env.Observation) (string, error)) (int, error) {
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
	// The kept ones, and the chain the oldest kept one rests on.
	keepFrom := len(obsIdx) - keepLast
	for keepFrom > 0 && msgs[obsIdx[keepFrom]].Meta.Observation.Incremental {
		keepFrom--
	}
	type cut struct {
		i    int
		slim env.Observation
	}
	var due []cut
	oldest := -1 // the position, among the observations, of the oldest one due
	for k, i := range obsIdx[:keepFrom] {
		m := msgs[i]
		if m.Meta.Pruned {
			continue
		}
		if slim, changed := slimObservation(*m.Meta.Observation); changed {
			due = append(due, cut{i, slim})
			if oldest < 0 {
				oldest = k
			}
		}
	}
	// Due once the oldest has been out of the window for block
	// observations. Counted in observations, not in how many are due: an
	// old whole snapshot among short change observations (which are never
	// pruned) still goes block steps after it fell out.
	if len(due) == 0 || keepFrom-oldest < block {
		return 0, nil
	}
	if render == nil {
		return 0, errors.New("prune observations: no render function to rebuild the message content")
	}
	pruned := 0
	var errs []error
	for _, c := range due {
		content, err := render(c.slim)
		if err != nil {
			errs = append(errs, fmt.Errorf("prune message %d: render observation: %w", c.i, err))
			continue
		}
		m := msgs[c.i]
		meta := *m.Meta
		slim := c.slim
		meta.Observation = &slim
		meta.Pruned = true
		m.Meta = &meta
		m.Content = content
		msgs[c.i] = m
		pruned++
	}
	return pruned, errors.Join(errs...)
}

func isObservation(m model.Message) bool {
	return m.Role == model.RoleUser && m.Meta != nil && m.Meta.Observation != nil
}

// slimObservation returns a copy of obs with its prunable values replaced by
// their placeholders, and whether anything was replaced. obs itself is
// never modified.
func slimObservation(obs env.Observation) (env.Observation, bool) {
	changed := false
	keys := make([]string, 0, len(obs.Prunable))
	for k := range obs.Prunable {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		placeholder := obs.Prunable[key]
		if s, ok := obs.Get(key); ok && len(placeholder) < len(s) {
			obs = obs.With(key, placeholder)
			changed = true
		}
	}
	return obs, changed
}
