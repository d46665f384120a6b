package harness_test

import (
	"bytes"
	"strings"
	"testing"

	"wright/model"
	"wright/run/agent"
	"wright/run/harness"
)

// The terminal line of a step shows its prompt split into cached and
// uncached tokens; the run's last line the run's cached total.
func TestTextObserverShowsCachedTokens(t *testing.T) {
	var out bytes.Buffer
	o := harness.TextObserver(&out)
	o.Observe(agent.Event{Kind: agent.StepEnded, Status: "rc 0",
		StepUsage: model.Usage{PromptTokens: 1400, CachedTokens: 900, CompletionTokens: 40},
		Usage:     model.Usage{TotalTokens: 2490, Cost: 0.0123}})
	o.Observe(agent.Event{Kind: agent.RunEnded, Status: "Submitted", Step: 2,
		Usage: model.Usage{TotalTokens: 2490, PromptTokens: 2400, CachedTokens: 900, Cost: 0.0123}})
	got := out.String()
	for _, want := range []string{
		"  → rc 0 · prompt 1400 (900 cached, 500 uncached) + 40 out · run 2490 tokens · $0.0123\n",
		"2490 tokens (2400 prompt, 900 cached)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
