package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"wright/suite"
)

// benchDisplay shows a bench's progress: on a terminal one overall bar and a
// line per worker; elsewhere (CI logs) one plain line per finished attempt.
type benchDisplay struct {
	out   io.Writer
	tty   bool
	start time.Time

	mu      sync.Mutex
	p       *mpb.Progress
	overall *mpb.Bar
	workers map[int]string // worker -> its line
	state   suite.Event    // the latest totals
	// firstDone is Done at the first event: the attempts already final
	// before this bench started, which the ETA leaves out.
	seen      bool
	firstDone int
}

// newBenchDisplay's opts go to the bars' container after wright's own (a
// test gives it a terminal of a known size).
func newBenchDisplay(out io.Writer, tty bool, parallel int, opts ...mpb.ContainerOption) *benchDisplay {
	d := &benchDisplay{out: out, tty: tty, start: time.Now(), workers: map[int]string{}}
	if !tty {
		return d
	}
	d.p = mpb.New(append([]mpb.ContainerOption{mpb.WithOutput(out), mpb.WithWidth(40), mpb.WithRefreshRate(200 * time.Millisecond)}, opts...)...)
	d.overall = d.p.New(0, mpb.BarStyle(),
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
			d.mu.Lock()
			defer d.mu.Unlock()
			return fmt.Sprintf("%d/%d done  %d passed  $%.4f", d.state.Done, d.state.Total, d.state.Passed, d.state.Cost)
		})),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return d.eta() })),
	)
	rows := workerRows(parallel, screenHeight(out))
	for r := 1; r <= rows; r++ {
		d.p.New(0, mpb.NopStyle(), mpb.BarPriority(r), mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
			d.mu.Lock()
			defer d.mu.Unlock()
			return d.workerRow(r, rows, parallel)
		})))
	}
	return d
}

// eta extrapolates from the attempts this process finished.
func (d *benchDisplay) eta() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	ran := d.state.Done - d.firstDone
	left := d.state.Total - d.state.Done
	if ran <= 0 || left <= 0 {
		return ""
	}
	per := time.Since(d.start) / time.Duration(ran)
	return "ETA " + (per * time.Duration(left)).Round(time.Second).String()
}

// Event is the suite.Config.OnEvent hook.
func (d *benchDisplay) Event(e suite.Event) {
	d.mu.Lock()
	if !d.seen {
		d.seen, d.firstDone = true, e.Done
	}
	d.state = e
	switch e.Kind {
	case suite.AttemptStarted:
		d.workers[e.Worker] = attemptName(e.TaskID, e.Attempt) + " starting"
	case suite.AttemptStep:
		cmd, _, _ := strings.Cut(strings.TrimSpace(e.Command), "\n")
		d.workers[e.Worker] = fmt.Sprintf("%s step %d: %s", attemptName(e.TaskID, e.Attempt), e.Step, clipLine(cmd, 60))
	case suite.AttemptFinished:
		d.workers[e.Worker] = ""
	}
	d.mu.Unlock()

	if d.tty {
		d.overall.SetTotal(int64(e.Total), false)
		d.overall.SetCurrent(int64(e.Done))
	}
	switch e.Kind {
	case suite.AttemptFinished:
		d.println(finishedLine(e))
	case suite.BenchStopping:
		d.println("bench: " + e.Reason + "; no more tasks start")
	}
}

func (d *benchDisplay) println(s string) {
	if d.tty {
		// Printed above the bars, which redraw below it.
		d.p.Write([]byte(s + "\n"))
		return
	}
	fmt.Fprintln(d.out, s)
}

// Close ends the bars.
func (d *benchDisplay) Close() {
	if d.tty {
		d.overall.SetTotal(-1, true)
		d.p.Shutdown()
	}
}

func finishedLine(e suite.Event) string {
	r := e.Record
	verdict := "unscored"
	switch {
	case r.Error != "":
		verdict = "error: " + clipLine(r.Error, 80)
	case r.Passed != nil && *r.Passed:
		verdict = "pass"
	case r.Passed != nil:
		verdict = "fail"
	case r.Unscored != "":
		verdict = "unscored: " + clipLine(r.Unscored, 80)
	}
	return fmt.Sprintf("[%d/%d] %s %s %s (%d steps, %.0fs, $%.4f)", e.Done, e.Total, attemptName(r.TaskID, r.Attempt), r.ExitStatus, verdict, r.Steps, r.Seconds, r.Cost)
}

func attemptName(id string, attempt int) string {
	if attempt > 1 {
		return fmt.Sprintf("%s#%d", id, attempt)
	}
	return id
}

func clipLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len([]rune(s)) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}
