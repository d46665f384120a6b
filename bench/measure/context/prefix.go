package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"wright/model"
	"wright/run/compact"
)

// prefixTable simulates the workspace run with ours, pruning in blocks of
// 1 (one observation per step) and of 5, and prints the characters sent
// and the share of them that repeats the start of the call before: what a
// provider's prompt cache can serve. Live mode is measured on a real run by
// bench/measure/prompts.
func prefixTable(cfg config, out io.Writer) error {
	tok := compact.NewTokenizer(cfg.model)
	m := workspaceMode(cfg)
	fmt.Fprintln(out, "| mode | prune_block | prompt chars | reused prefix | uncached chars | largest prompt |")
	fmt.Fprintln(out, "| --- | ---: | ---: | ---: | ---: | ---: |")
	for _, block := range []int{1, 5} {
		hist := []model.Message{{Role: model.RoleSystem, Content: m.system}, {Role: model.RoleUser, Content: m.task}}
		c := &compact.Compactor{Client: fakeSummarizer{tok: tok, text: fakeSummary(cfg.summaryChars)}, Prompt: m.summaryPrompt, Tokenizer: tok}
		var prev string
		total, reused, largest := 0, 0, 0
		send := func(msgs []model.Message) {
			var b strings.Builder
			for _, msg := range msgs {
				b.WriteString(msg.Role + "\n" + msg.Content + "\n")
			}
			cur := b.String()
			total += len(cur)
			largest = max(largest, len(cur))
			n := 0
			for n < len(prev) && n < len(cur) && prev[n] == cur[n] {
				n++
			}
			reused += n
			prev = cur
		}
		for step := 1; step <= cfg.steps; step++ {
			if _, err := compact.PruneBlocks(hist, m.keepLast, block, m.render); err != nil {
				return err
			}
			send(hist)
			hist = append(hist, model.Message{Role: model.RoleAssistant, Content: m.action(step)})
			obs := m.observe(step)
			content, err := m.render(obs)
			if err != nil {
				return err
			}
			hist = append(hist, model.Message{Role: model.RoleUser, Content: content, Meta: &model.Meta{Observation: &obs, Step: step}})
			if step%cfg.every == 0 && step < cfg.steps {
				send(append(append([]model.Message{}, hist...), model.Message{Role: model.RoleUser, Content: m.summaryPrompt}))
				next, _, err := c.Compact(context.Background(), hist, step)
				if err != nil {
					return err
				}
				hist = next
			}
		}
		fmt.Fprintf(out, "| %s | %d | %d | %.1f%% | %d | %d |\n", m.name, block, total, 100*float64(reused)/float64(total), total-reused, largest)
	}
	return nil
}
