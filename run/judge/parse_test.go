package judge

import (
	"strings"
	"testing"
)

func TestParseScore(t *testing.T) {
	cases := []struct {
		in        string
		score     int
		reasoning string // "" means an error is expected
		errPart   string
	}{
		{in: "Score: 4\nReasoning: The results page lists the flight.", score: 4, reasoning: "The results page lists the flight."},
		{in: "**Score:** 5/5\n**Reasoning:** Order confirmation is visible.\nIt shows #123.", score: 5, reasoning: "Order confirmation is visible.\nIt shows #123."},
		{in: "Here is my review.\n\n- Score: `2`\n- Reasoning: wrong city selected", score: 2, reasoning: "wrong city selected"},
		{in: "### Score: 3\nThe table is cut off at the bottom.", score: 3, reasoning: "The table is cut off at the bottom."},
		{in: "score : 1\nreasoning:\nA CAPTCHA blocks the page.", score: 1, reasoning: "A CAPTCHA blocks the page."},
		{in: "Score: 4\nReasoning: fine\nScore: 1", score: 4, reasoning: "fine"},
		{in: "The page looks fine.", errPart: "no line of the form"},
		{in: "Score: 7\nReasoning: great", errPart: "from 1 to 5, got 7"},
		{in: "Score: 0\nReasoning: bad", errPart: "from 1 to 5, got 0"},
		{in: "Score: 3.5\nReasoning: hmm", errPart: "whole number"},
		{in: "Score: high\nReasoning: hmm", errPart: "holds no number"},
		{in: "Score: 4", errPart: "no reasoning"},
	}
	for _, c := range cases {
		score, reasoning, err := ParseScore(c.in)
		if c.errPart != "" {
			if err == nil || !strings.Contains(err.Error(), c.errPart) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.errPart)
			}
			continue
		}
		if err != nil || score != c.score || reasoning != c.reasoning {
			t.Errorf("%q: got (%d, %q, %v), want (%d, %q)", c.in, score, reasoning, err, c.score, c.reasoning)
		}
	}
}

func TestParseStatus(t *testing.T) {
	one, zero := 1, 0
	cases := []struct {
		in   string
		want *int
	}{
		{"All good.\nStatus: success", &one},
		{"Status: failure", &zero},
		{`**Status:** "success"`, &one},
		{"**Status**: **Failure**", &zero},
		{"Status: `success`.", &one},
		{"## Status: SUCCESS", &one},
		{"> Status: failed - the cart is empty", &zero},
		{`"status": "success"`, &one},
		{"Status: failure\n\nOn reflection, no.\nStatus: success", &one}, // the last line counts
		{"Status: success\nStatus: failure", &zero},
		{"Status: maybe", nil},
		{"Status: success\nStatus: unclear", nil}, // the last Status line decides, even when unreadable
		{"The run was a success.", nil},
		{"", nil},
		{"Status codes were 200: fine\nno verdict", nil},
	}
	for _, c := range cases {
		got := ParseStatus(c.in)
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%q: got %v, want %v", c.in, deref(got), deref(c.want))
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func BenchmarkParseScore(b *testing.B) {
	answer := "Looking at the page.\n\n**Score:** 4/5\n**Reasoning:** The results list shows the kettle at 19.99,\nsorted by price, with the filter applied."
	for b.Loop() {
		if _, _, err := ParseScore(answer); err != nil {
			b.Fatal(err)
		}
	}
}
