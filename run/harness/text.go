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
		p("  → %s · %s · run %s · $%.4f\n", e.Status, StepTokens(e.StepUsage, e.StepEstimate), RunTokens(e.Usage.TotalTokens, e.Estimated), e.Usage.Cost)
		if e.Output != "" {
			p("%s", indent("    ", "    ", e.Output))
		}
	case agent.Compacted:
		p("  history compacted at step %d (%d -> %d tokens)\n", e.Step, e.TokensBefore, e.TokensAfter)
	case agent.RunEnded:
		tokens := fmt.Sprintf("%d tokens (%d prompt, %d cached)", e.Usage.TotalTokens, e.Usage.PromptTokens, e.Usage.CachedTokens)
		if e.Estimated > 0 {
			tokens = RunTokens(e.Usage.TotalTokens, e.Estimated)
		}
		p("wright: %s after %s, %s, $%.4f — %s\n", e.Status, Plural(e.Step, "step"), tokens, e.Usage.Cost, e.RunDir)
	}
}

// StepTokens is one call's tokens for a person: the prompt split into what
// the provider's cache served and what it did not, then the completion.
// When the endpoint reported no usage, estimate (wright's count of the
// prompt) is shown instead, marked as one: never a row of zeros.
func StepTokens(u model.Usage, estimate int) string {
	if u.PromptTokens == 0 && estimate > 0 {
		return fmt.Sprintf("prompt ~%d est.", estimate)
	}
	return fmt.Sprintf("prompt %d (%d cached, %d uncached) + %d out", u.PromptTokens, u.CachedTokens, u.Uncached(), u.CompletionTokens)
}

// RunTokens is a run's tokens for a person: what the endpoint reported,
// and wright's estimate of the prompts it reported nothing for, marked
// "est." (the one rule of every display: a reported count as it is, an
// estimate said to be one).
func RunTokens(reported, estimated int) string {
	switch {
	case estimated == 0:
		return fmt.Sprintf("%d tokens", reported)
	case reported == 0:
		return fmt.Sprintf("~%d prompt tokens est.", estimated)
	}
	return fmt.Sprintf("%d tokens + ~%d prompt tokens est.", reported, estimated)
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
