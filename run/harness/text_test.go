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

// A call the endpoint reported no usage for shows wright's estimate of its
// prompt, marked, never a row of zeros; the run's last line the same.
func TestTextObserverMarksEstimates(t *testing.T) {
	var out bytes.Buffer
	o := harness.TextObserver(&out)
	o.Observe(agent.Event{Kind: agent.StepEnded, Status: "rc 0", StepEstimate: 2178, Estimated: 4944})
	o.Observe(agent.Event{Kind: agent.RunEnded, Status: "Submitted", Step: 2, Estimated: 4944})
	got := out.String()
	for _, want := range []string{
		"  → rc 0 · prompt ~2178 est. · run ~4944 prompt tokens est. · $0.0000\n",
		"Submitted after 2 steps, ~4944 prompt tokens est., $0.0000",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "prompt 0 (") {
		t.Errorf("zeros shown for a call that reported nothing:\n%s", got)
	}
	if got := harness.RunTokens(1200, 300); got != "1200 tokens + ~300 prompt tokens est." {
		t.Errorf("RunTokens(1200, 300) = %q", got)
	}
}
