package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"wright/bench"
	"wright/bench/results"
	"wright/run/harness"
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
	bars    []*mpb.Bar     // the workers' lines
	workers map[int]string // worker -> its line
	state   bench.Event    // the latest totals
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
	// tty says the caller found a terminal; mpb is told so, rather than
	// asking the writer again.
	d.p = mpb.New(append([]mpb.ContainerOption{mpb.WithOutput(out), mpb.WithWidth(40), mpb.WithRefreshRate(200 * time.Millisecond), mpb.WithAutoRefresh()}, opts...)...)
	d.overall = d.p.New(0, mpb.BarStyle(),
		mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
			d.mu.Lock()
			defer d.mu.Unlock()
			return overallLine(d.state)
		})),
		mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return d.eta() })),
	)
	rows := workerRows(parallel, screenHeight(out))
	for r := 1; r <= rows; r++ {
		d.bars = append(d.bars, d.p.New(0, mpb.NopStyle(), mpb.BarPriority(r), mpb.PrependDecorators(decor.Any(func(decor.Statistics) string {
			d.mu.Lock()
			defer d.mu.Unlock()
			return d.workerRow(r, rows, parallel)
		}))))
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

// Event is the bench.Config.OnEvent hook.
func (d *benchDisplay) Event(e bench.Event) {
	d.mu.Lock()
	if !d.seen {
		d.seen, d.firstDone = true, e.Done
	}
	d.state = e
	switch e.Kind {
	case bench.AttemptStarted:
		d.workers[e.Worker] = attemptName(e.TaskID, e.Attempt) + " starting"
	case bench.AttemptStep:
		cmd, _, _ := strings.Cut(strings.TrimSpace(e.Command), "\n")
		d.workers[e.Worker] = fmt.Sprintf("%s step %d: %s", attemptName(e.TaskID, e.Attempt), e.Step, clipLine(cmd, 60))
	case bench.AttemptFinished:
		d.workers[e.Worker] = ""
	}
	d.mu.Unlock()

	if d.tty {
		d.overall.SetTotal(int64(e.Total), false)
		d.overall.SetCurrent(int64(e.Done))
	}
	switch e.Kind {
	case bench.AttemptFinished:
		d.println(finishedLine(e))
	case bench.BenchStopping:
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

// Close ends the bars and waits for their last frame, so the screen is
// left with the final totals rather than the frame before them.
func (d *benchDisplay) Close() {
	if !d.tty {
		return
	}
	d.mu.Lock()
	for w := range d.workers {
		d.workers[w] = ""
	}
	d.mu.Unlock()
	for _, b := range d.bars {
		b.SetTotal(-1, true)
	}
	d.overall.SetTotal(-1, true)
	d.p.Wait()
}

// overallLine is the bar's text: the same counts summary.md gives.
func overallLine(e bench.Event) string {
	s := fmt.Sprintf("%d/%d done  %d passed  %d failed", e.Done, e.Total, e.Passed, e.Failed)
	if e.Errors > 0 {
		s += "  " + harness.Plural(e.Errors, "error")
	}
	if e.Interrupted > 0 {
		s += fmt.Sprintf("  %d interrupted", e.Interrupted)
	}
	return s + fmt.Sprintf("  $%.4f", e.Cost)
}

// finishedLine is one attempt's end. A final attempt carries the count it
// brought Done to; one that runs again on resume (an interrupt, an
// infrastructure error) says so instead of taking a number, so a resumed
// bench never prints the same count twice.
func finishedLine(e bench.Event) string {
	r := e.Record
	o := r.Outcome()
	verdict := string(o)
	switch o {
	case results.Error:
		verdict = "error: " + clipLine(r.Error, 80)
	case results.Unscored:
		if r.Unscored != "" {
			verdict = "unscored: " + clipLine(r.Unscored, 80)
		}
	}
	count := fmt.Sprintf("[%d/%d]", e.Done, e.Total)
	if !r.Final() {
		count = "[runs again on resume]"
	}
	return fmt.Sprintf("%s %s %s %s (%s, %.0fs, $%.4f)", count, attemptName(r.TaskID, r.Attempt), r.ExitStatus, verdict,
		harness.Plural(r.Steps, "step"), r.Seconds, r.Cost)
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
