package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

	"wright/bench/results"
)

// overhead is the harness's own time over the attempts: each attempt's
// wall time in the bench minus its time inside model calls and inside the
// environment's steps.
type overhead struct {
	attempt, model, env float64 // seconds, summed
	start, score        float64 // two parts of the harness's own time
	n                   int
	// perAttempt is each attempt's start plus scoring, in milliseconds;
	// perStep every turn's own time (result.json's harness_ms_per_step)
	// over the attempts whose run folder has it.
	perAttempt, perStep []float64
}

func (o overhead) percent() float64 {
	if o.attempt == 0 {
		return 0
	}
	return 100 * (o.attempt - o.model - o.env) / o.attempt
}

// overheadOf adds up the attempts' records; dir is the bench's folder, which
// a relative run_dir is under.
func overheadOf(recs []results.Record, dir string) overhead {
	var o overhead
	for _, r := range recs {
		if r.AttemptSeconds == 0 {
			continue // a record of an older wright, or an attempt that did not start
		}
		o.attempt += r.AttemptSeconds
		o.model += r.ModelSeconds
		o.env += r.EnvSeconds
		o.start += r.StartSeconds
		o.score += r.ScoreSeconds
		o.perAttempt = append(o.perAttempt, (r.StartSeconds+r.ScoreSeconds)*1000)
		o.perStep = append(o.perStep, stepTimes(r.RunDir, dir)...)
		o.n++
	}
	return o
}

// stepTimes reads harness_ms_per_step from an attempt's result.json (none
// when the folder or the figure is missing: an older wright).
func stepTimes(runDir, benchDir string) []float64 {
	if runDir == "" {
		return nil
	}
	if !filepath.IsAbs(runDir) {
		runDir = filepath.Join(benchDir, runDir)
	}
	b, err := os.ReadFile(filepath.Join(runDir, "result.json"))
	if err != nil {
		return nil
	}
	var res struct {
		Steps []float64 `json:"harness_ms_per_step"`
	}
	if json.Unmarshal(b, &res) != nil {
		return nil
	}
	return res.Steps
}

// quantile is the q-quantile of xs (nearest rank; 0 for none).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

func mib(kib int64) float64 { return float64(kib) / 1024 }

func printBreakdown(r row) {
	fmt.Printf("\n--parallel %d: peak %.0f MiB in %d processes (%d samples), load %s -> %s\n", r.workers, mib(r.peak.TotalKiB), len(r.peak.Procs), r.samples, r.load[0], r.load[1])
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tprocesses\tPSS MiB\tper worker MiB\t")
	for _, k := range r.peak.ByKind() {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t\n", k.Kind, k.Count, mib(k.PSSKiB), mib(k.PSSKiB)/float64(r.workers))
	}
	tw.Flush()
}

func printTable(rows []row) {
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workers\tattempts\tfailed\terrors\twall s\ttasks/min\tpeak PSS MiB\tPSS/worker MiB\toverhead %\tload\t")
	for _, r := range rows {
		o := "-"
		if r.workers == 1 {
			o = fmt.Sprintf("%.1f", r.overhead.percent())
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%.1f\t%.1f\t%.0f\t%.0f\t%s\t%s-%s\t\n", r.workers, r.attempts, r.failed, r.errors,
			r.wall.Seconds(), float64(r.attempts)/r.wall.Minutes(), mib(r.peak.TotalKiB), mib(r.peak.TotalKiB)/float64(r.workers), o, r.load[0], r.load[1])
	}
	tw.Flush()
	for _, r := range rows {
		if r.workers == 1 && r.overhead.n > 0 {
			o := r.overhead
			own := o.attempt - o.model - o.env
			fmt.Printf("\nat 1 worker, over %d attempts: %.1f s in all, %.1f s in model calls, %.1f s in environment steps, %.1f s the harness's own (%.2f s per attempt)\n",
				o.n, o.attempt, o.model, o.env, own, own/float64(o.n))
			fmt.Printf("the harness's own time: %.1f s starting runs (the environment's start included), %.1f s scoring (page probes, reruns, judges), %.1f s the rest (the loop's bookkeeping, closing)\n",
				o.start, o.score, own-o.start-o.score)
			fmt.Printf("per attempt, start and scoring: median %.0f ms, p95 %.0f ms (Chromium's own context and page not taken off: BenchmarkContextAndPage)\n",
				quantile(o.perAttempt, 0.5), quantile(o.perAttempt, 0.95))
			if len(o.perStep) > 0 {
				fmt.Printf("per step, the harness's own time: median %.1f ms, p95 %.1f ms, max %.1f ms over %d steps\n",
					quantile(o.perStep, 0.5), quantile(o.perStep, 0.95), quantile(o.perStep, 1), len(o.perStep))
			}
		}
	}
}
