package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"wright/bench"
	"wright/bench/results"
)

// syncBuffer is a bytes.Buffer the bars' goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The display's last frame holds the final totals, and an attempt that
// runs again on resume takes no number, so a resumed bench never shows the
// same count twice.
func TestBenchDisplayLastFrameAndCounter(t *testing.T) {
	var out syncBuffer
	d := newBenchDisplay(&out, true, 2)
	yes := true
	pass := results.Record{TaskID: "a", Attempt: 1, ExitStatus: "Submitted", Passed: &yes, Steps: 1}
	stop := results.Record{TaskID: "b", Attempt: 1, ExitStatus: "Interrupted", Steps: 2}
	d.Event(bench.Event{Kind: bench.AttemptStarted, Worker: 1, TaskID: "a", Attempt: 1, Total: 2})
	d.Event(bench.Event{Kind: bench.AttemptFinished, Worker: 1, TaskID: "a", Attempt: 1, Record: &pass, Done: 1, Total: 2, Passed: 1})
	d.Event(bench.Event{Kind: bench.AttemptFinished, Worker: 2, TaskID: "b", Attempt: 1, Record: &stop, Done: 1, Total: 2, Passed: 1, Interrupted: 1})
	d.Close()
	got := out.String()
	if !strings.Contains(got, "[1/2] a Submitted pass (1 step,") || !strings.Contains(got, "[runs again on resume] b Interrupted interrupted (2 steps,") {
		t.Errorf("finished lines:\n%q", got)
	}
	if strings.Count(got, "[1/2]") != 1 {
		t.Errorf("the count 1/2 shown twice:\n%q", got)
	}
	// The last frame drawn is the final one: the interrupt is in it.
	i := strings.LastIndex(got, "/2 done")
	if i < 1 || !strings.HasPrefix(got[i-1:], "1/2 done  1 passed  0 failed  1 interru") {
		t.Errorf("last frame %q", got[max(0, i-1):])
	}
}
