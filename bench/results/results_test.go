package results

import "testing"

func TestOutcomeAndCount(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		r    Record
		want Outcome
	}{
		{Record{ExitStatus: "Submitted", Passed: &yes}, Pass},
		{Record{ExitStatus: "Submitted", Passed: &no}, Fail},
		{Record{ExitStatus: "LimitsExceeded"}, Unscored},
		{Record{ExitStatus: "EnvironmentError", Error: "no browser", Passed: &yes}, Error},
		{Record{ExitStatus: "Interrupted"}, Interrupted},
	}
	for _, c := range cases {
		if got := c.r.Outcome(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.r, got, c.want)
		}
	}
	// The latest line of an attempt counts: the rerun replaces the
	// interrupted line, and each attempt is counted once.
	recs := []Record{
		{TaskID: "a", Attempt: 1, ExitStatus: "Interrupted", Cost: 1},
		{TaskID: "b", Attempt: 1, ExitStatus: "Submitted", Passed: &no, Cost: 2},
		{TaskID: "a", Attempt: 1, ExitStatus: "Submitted", Passed: &yes, Cost: 3, Tokens: 10},
	}
	got := Count(recs)
	want := Tally{Attempts: 2, Passed: 1, Failed: 1, Tokens: 10, Cost: 5}
	if got != want {
		t.Errorf("Count = %+v, want %+v", got, want)
	}
}
