package harness

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"wright/model"
	"wright/run/agent"
)

// TextObserver writes a run's progress for a person: one short block per
// step, the run directory first and the outcome last. It is safe for
// concurrent use.
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
			p("%s", codeBlock(e.Lang, e.Command))
		}
		if e.Done {
			p("  done: %s\n", e.FinalResponse)
		}
	case agent.FormatError:
		// A reply the loop could not use still cost a step: say so, and
		// what the model said, or the run looks stalled.
		p("step %d · format error: %s\n", e.Step, e.Message)
		if e.Reply != "" {
			p("%s", indent("  model said: ", "              ", e.Reply))
		}
	case agent.DoneRefused:
		p("  done refused: %s\n", e.Message)
	case agent.StepEnded:
		p("  → %s · %s · run %d tokens · $%.4f\n", e.Status, StepTokens(e.StepUsage), e.Usage.TotalTokens, e.Usage.Cost)
		if e.Output != "" {
			p("%s", indent("    ", "    ", e.Output))
		}
	case agent.Compacted:
		p("  history compacted at step %d (%d -> %d tokens)\n", e.Step, e.TokensBefore, e.TokensAfter)
	case agent.RunEnded:
		p("wright: %s after %s, %d tokens (%d prompt, %d cached), $%.4f — %s\n", e.Status, Plural(e.Step, "step"), e.Usage.TotalTokens, e.Usage.PromptTokens, e.Usage.CachedTokens, e.Usage.Cost, e.RunDir)
	}
}

// StepTokens is one call's tokens for a person: the prompt split into what
// the provider's cache served and what it did not, then the completion.
func StepTokens(u model.Usage) string {
	return fmt.Sprintf("prompt %d (%d cached, %d uncached) + %d out", u.PromptTokens, u.CachedTokens, u.Uncached(), u.CompletionTokens)
}

// codeBlock shows a command as a shell line ("$ ls") and any other
// language as code under its name, since a `$ ` before Python reads as a
// shell command.
func codeBlock(lang, code string) string {
	if lang == "" || lang == "bash" || lang == "sh" {
		return indent("  $ ", "    ", code)
	}
	return "  " + lang + ":\n" + indent("    ", "    ", code)
}

// indent prefixes the first line with first and the others with rest.
func indent(first, rest, s string) string {
	var b strings.Builder
	for i, line := range strings.Split(s, "\n") {
		if i == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(rest)
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// Plural is "1 step", "2 steps": n and the noun, with an s unless n is 1.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
