package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
	"wright/bench/results"
)

// ErrTaskTimeout is the cause of an attempt's context when --task-timeout
// ended it: the executor records such a run as TimeLimitExceeded.
var ErrTaskTimeout = errors.New("task timeout")

// TimeLimitExceeded is the exit status of an attempt ended by its timeout.
const TimeLimitExceeded = "TimeLimitExceeded"

// FatalError is a failure no retry can mend (the endpoint refused the key,
// the model does not exist): the bench stops starting tasks at once.
type FatalError struct{ Err error }

func (e *FatalError) Error() string { return e.Err.Error() }
func (e *FatalError) Unwrap() error { return e.Err }

// Attempt is one run of one task.
type Attempt struct {
	Task   Task
	N      int    // 1-based
	RunDir string // absolute; DIR/<task_id>, or DIR/<task_id>/attempt_N under --repeat
	// Worker is the bench worker (from 1) that runs it: remote browsers are
	// handed out by worker.
	Worker int
	// Step reports the attempt's progress: the step number and the first
	// line of the command it runs.
	Step func(step int, command string)
}

// Executor runs one attempt and returns its record, evaluators applied. An
// error is an infrastructure failure (retried, then recorded as "error"), or
// a *FatalError that stops the bench.
type Executor interface {
	Run(ctx context.Context, a Attempt) (Record, error)
}

// Config is how a bench runs.
type Config struct {
	Dir         string
	Parallel    int
	Repeat      int
	Redo        bool
	Retries     int
	TaskTimeout time.Duration
	CostLimit   float64 // USD over the whole bench; 0 is no limit
	Repro       *Repro
	// OnEvent, if set, is called for progress displays; calls are serialized.
	OnEvent func(Event)
}

// EventKind tells what an Event reports.
type EventKind int

const (
	AttemptStarted EventKind = iota
	AttemptStep
	AttemptFinished
	BenchStopping // a reason no more attempts start: cost limit, fatal error, interrupt
)

// Event is one piece of bench progress.
type Event struct {
	Kind    EventKind
	Worker  int
	TaskID  string
	Attempt int
	Step    int
	Command string
	Record  *Record
	Reason  string
	// Totals after this event, from results.Count over every record so
	// far, this bench's and an earlier one's: Done is the attempts with a
	// final record (passed, failed or unscored), so an attempt that is
	// interrupted or errors, and runs again on resume, is counted once,
	// when it ends for good.
	Done, Total, Passed, Failed int
	Errors, Interrupted         int
	Cost                        float64
}

// Outcome is what a bench did.
type Outcome struct {
	Summary Summary
	Ran     int // attempts finished by this process
	Skipped int // attempts already final from an earlier bench
	NotRun  int // attempts left when the bench stopped early
	Stopped string
	Fatal   error
}

type job struct {
	task    Task
	attempt int
}

// Run runs the attempts of tasks that are not final yet in cfg.Dir, at most
// cfg.Parallel at once, appending one line per finished attempt to
// results.jsonl and rebuilding the summary as it goes.
func Run(ctx context.Context, cfg Config, tasks []Task, exec Executor) (Outcome, error) {
	if cfg.Parallel < 1 {
		cfg.Parallel = 1
	}
	if cfg.Repeat < 1 {
		cfg.Repeat = 1
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return Outcome{}, fmt.Errorf("bench dir: %w", err)
	}
	host, _ := os.Hostname()
	lock, err := Acquire(cfg.Dir, fmt.Sprintf("pid %d on %s since %s", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339)))
	if err != nil {
		return Outcome{}, err
	}
	defer lock.Release()

	resultsPath := filepath.Join(cfg.Dir, ResultsFile)
	prior, _, err := results.Read(resultsPath)
	if err != nil {
		return Outcome{}, err
	}
	jobs, skipped := pendingJobs(cfg, tasks, prior)
	out := Outcome{Skipped: skipped}
	session := time.Now()
	if cfg.Repro != nil {
		keepFirstStart(cfg.Dir, cfg.Repro)
		if err := WriteRepro(cfg.Dir, cfg.Repro); err != nil {
			return out, err
		}
	}
	log, err := results.OpenLog(resultsPath)
	if err != nil {
		return out, err
	}
	defer log.Close()

	b := &bench{cfg: cfg, exec: exec, log: log, all: prior, total: len(jobs) + out.Skipped, tally: results.Count(prior)}
	for _, r := range prior {
		b.cost += r.Cost
	}
	out.NotRun, out.Stopped = b.dispatch(ctx, jobs)
	out.Ran = b.ran
	out.Fatal = b.fatal
	if out.Stopped == "" {
		// A fatal error or the cost limit may have come with the last jobs.
		out.Stopped = b.stopReason(ctx)
	}
	if cfg.Repro != nil && out.Ran > 0 {
		// Only a session that ran an attempt moves the end and adds to
		// the wall time.
		cfg.Repro.Ended = time.Now()
		cfg.Repro.WallSeconds += cfg.Repro.Ended.Sub(session).Seconds()
		_ = WriteRepro(cfg.Dir, cfg.Repro)
	}
	b.mu.Lock()
	out.Summary = Summarize(b.all, cfg.Repro)
	b.mu.Unlock()
	if err := WriteSummary(cfg.Dir, out.Summary); err != nil {
		return out, err
	}
	return out, nil
}

// keepFirstStart carries an earlier session's start, end and wall time
// from dir's bench.json into r, so that a resume is the same bench: its
// start is the first, and its wall time grows only by the sessions that
// ran something. A bench.json written before wall_seconds existed counts
// its start to its end. One that cannot be read is written anew.
func keepFirstStart(dir string, r *Repro) {
	prev, err := ReadRepro(dir)
	if err != nil || prev == nil || prev.Started.IsZero() {
		return
	}
	r.Started, r.Ended, r.WallSeconds = prev.Started, prev.Ended, prev.WallSeconds
	if r.WallSeconds == 0 && prev.Ended.After(prev.Started) {
		r.WallSeconds = prev.Ended.Sub(prev.Started).Seconds()
	}
}

// pendingJobs are the attempts of tasks to run: all of them with cfg.Redo,
// else those not final in prior, the records of an earlier bench; skipped
// counts the others.
func pendingJobs(cfg Config, tasks []Task, prior []Record) (jobs []job, skipped int) {
	final := map[string]bool{}
	for _, r := range results.Latest(prior) {
		if r.Final() {
			final[r.TaskID+"#"+strconv.Itoa(r.Attempt)] = true
		}
	}
	for _, t := range tasks {
		for k := 1; k <= cfg.Repeat; k++ {
			if final[t.ID+"#"+strconv.Itoa(k)] && !cfg.Redo {
				skipped++
				continue
			}
			jobs = append(jobs, job{t, k})
		}
	}
	return jobs, skipped
}

// dispatch runs jobs on cfg.Parallel workers and returns when they are
// done. When the bench stops before every job is handed out, notRun counts
// those left and stopped says why.
func (b *bench) dispatch(ctx context.Context, jobs []job) (notRun int, stopped string) {
	queue := make(chan job)
	var wg sync.WaitGroup
	for w := 1; w <= b.cfg.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range queue {
				b.runJob(ctx, w, j)
			}
		}()
	}
	for i, j := range jobs {
		if reason := b.stopReason(ctx); reason != "" {
			notRun = len(jobs) - i
			stopped = reason
			b.emit(Event{Kind: BenchStopping, Reason: reason})
			break
		}
		select {
		case queue <- j:
		case <-ctx.Done():
			notRun = len(jobs) - i
			stopped = "interrupted"
			b.emit(Event{Kind: BenchStopping, Reason: stopped})
		}
		if stopped != "" {
			break
		}
	}
	close(queue)
	wg.Wait()
	return notRun, stopped
}

type bench struct {
	cfg  Config
	exec Executor
	log  *results.Log

	mu         sync.Mutex
	all        []Record
	ran, total int
	tally      results.Tally // results.Count(all)
	cost       float64       // spent, superseded records included: the cost limit's measure
	fatal      error
	summarized time.Time // when runJob last rewrote the summary
}

// summaryEvery is how often, at most, a running bench rewrites summary.json
// and summary.md; results.jsonl gets every record at once.
const summaryEvery = time.Second

func (b *bench) stopReason(ctx context.Context) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case ctx.Err() != nil:
		return "interrupted"
	case b.fatal != nil:
		return "stopped by a configuration error: " + b.fatal.Error()
	case b.cfg.CostLimit > 0 && b.cost >= b.cfg.CostLimit:
		return fmt.Sprintf("cost limit $%.2f reached ($%.4f spent)", b.cfg.CostLimit, b.cost)
	}
	return ""
}

func (b *bench) emit(e Event) {
	if b.cfg.OnEvent == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.tally
	e.Done, e.Total, e.Passed, e.Failed, e.Cost = t.Passed+t.Failed+t.Unscored, b.total, t.Passed, t.Failed, b.cost
	e.Errors, e.Interrupted = t.Errors, t.Interrupted
	b.cfg.OnEvent(e)
}

func (b *bench) runDir(j job) string {
	d := filepath.Join(b.cfg.Dir, SafeName(j.task.ID))
	if b.cfg.Repeat > 1 {
		d = filepath.Join(d, "attempt_"+strconv.Itoa(j.attempt))
	}
	return d
}

// runJob runs one attempt, retrying infrastructure failures, and records it.
func (b *bench) runJob(ctx context.Context, worker int, j job) {
	if b.stopReason(ctx) != "" {
		return
	}
	b.emit(Event{Kind: AttemptStarted, Worker: worker, TaskID: j.task.ID, Attempt: j.attempt})
	a := Attempt{Task: j.task, N: j.attempt, RunDir: b.runDir(j), Worker: worker, Step: func(step int, cmd string) {
		b.emit(Event{Kind: AttemptStep, Worker: worker, TaskID: j.task.ID, Attempt: j.attempt, Step: step, Command: cmd})
	}}
	var rec Record
	var err error
	for try := 0; ; try++ {
		rec, err = b.attempt(ctx, a)
		var fatal *FatalError
		if err == nil || errors.As(err, &fatal) || try >= b.cfg.Retries || ctx.Err() != nil {
			rec.Retries = try
			break
		}
	}
	rec.TaskID, rec.Attempt = j.task.ID, j.attempt
	rec.Level, rec.Site = j.task.Level, j.task.Site
	if rel, rerr := filepath.Rel(b.cfg.Dir, a.RunDir); rerr == nil {
		rec.RunDir = rel
	}
	var fatal *FatalError
	switch {
	case errors.As(err, &fatal):
		b.mu.Lock()
		if b.fatal == nil {
			b.fatal = fatal
		}
		b.mu.Unlock()
		rec.Error = err.Error()
	case err != nil:
		rec.Error = err.Error()
	}
	if rec.ExitStatus == "" {
		rec.ExitStatus = "EnvironmentError"
	}
	if werr := b.log.Append(rec); werr != nil {
		rec.Error = fmt.Sprintf("%v (and the result line was not written: %v)", rec.Error, werr)
	}
	b.mu.Lock()
	b.all = append(b.all, rec)
	b.ran++
	b.cost += rec.Cost
	b.tally = results.Count(b.all)
	// The summary is rebuilt from every record, so rewriting it after each
	// attempt made a long suite quadratic (1,000 attempts: seconds of
	// bookkeeping); at most one rewrite per summaryEvery keeps it current
	// for a reader, and Run writes the final one.
	var sum *Summary
	if now := time.Now(); now.Sub(b.summarized) >= summaryEvery {
		b.summarized = now
		s := Summarize(b.all, b.cfg.Repro)
		sum = &s
	}
	b.mu.Unlock()
	if sum != nil {
		_ = WriteSummary(b.cfg.Dir, *sum)
	}
	b.emit(Event{Kind: AttemptFinished, Worker: worker, TaskID: j.task.ID, Attempt: j.attempt, Record: &rec})
}

// attempt runs the executor once with the task's own timeout; the timeout's
// cause lets the executor tell it apart from an interrupt of the bench.
func (b *bench) attempt(ctx context.Context, a Attempt) (Record, error) {
	if b.cfg.TaskTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, b.cfg.TaskTimeout, ErrTaskTimeout)
		defer cancel()
	}
	if err := os.RemoveAll(a.RunDir); err != nil {
		return Record{}, fmt.Errorf("clear %s: %w", a.RunDir, err)
	}
	return b.exec.Run(ctx, a)
}

// SafeName turns a task id into a directory name.
func SafeName(id string) string {
	out := make([]rune, 0, len(id))
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			out = append(out, r)
		default:
			out = append(out, '_')
		}
	}
	s := string(out)
	if s == "" || s == "." || s == ".." {
		s = "task"
	}
	if len(s) > 100 {
		s = s[:100]
	}
	if s != id {
		// Two ids that differ only in the characters replaced must not share
		// a directory.
		s += "-" + digest([]byte(id))[:8]
	}
	return s
}
