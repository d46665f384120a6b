package harness

import (
	"fmt"
	"io"
	"sync"

	"wright/agent"
	"wright/model"
)

// TextObserver writes a run's progress for a person: one short block per
// step, as `wright run` shows it on a terminal. It is safe for concurrent
// use, though the lines of runs at once interleave.
func TextObserver(w io.Writer) agent.Observer {
	return &textObserver{w: w}
}

type textObserver struct {
	mu sync.Mutex
	w  io.Writer
}

func (t *textObserver) Observe(e agent.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := func(format string, args ...any) { fmt.Fprintf(t.w, format, args...) }
	switch e.Kind {
	case agent.RunStarted:
		p("wright: run %s\n", e.RunDir)
	case agent.StepStarted:
		p("step %d · %s\n", e.Step, e.Thought)
		if e.Command != "" {
			p("  $ %s\n", e.Command)
		}
		if e.Done {
			p("  done: %s\n", e.FinalResponse)
		}
	case agent.DoneRefused:
		p("  done refused: %s\n", e.Message)
	case agent.StepEnded:
		p("  → %s · %s · run %d tokens · $%.4f\n", e.Status, StepTokens(e.StepUsage), e.Usage.TotalTokens, e.Usage.Cost)
	case agent.Compacted:
		p("  history compacted at step %d (%d -> %d tokens)\n", e.Step, e.TokensBefore, e.TokensAfter)
	case agent.RunEnded:
		p("wright: %s after %d steps, %d tokens (%d prompt, %d cached), $%.4f — %s\n", e.Status, e.Step, e.Usage.TotalTokens, e.Usage.PromptTokens, e.Usage.CachedTokens, e.Usage.Cost, e.RunDir)
	}
}

// StepTokens is one call's tokens for a person: the prompt split into what
// the provider's cache served and what it did not, then the completion.
func StepTokens(u model.Usage) string {
	return fmt.Sprintf("prompt %d (%d cached, %d uncached) + %d out", u.PromptTokens, u.CachedTokens, u.Uncached(), u.CompletionTokens)
}
