// Command scale measures what a bench worker costs: it runs a suite of live
// and workspace tasks on the demo shop, answered from recorded replies, at
// several --parallel levels, samples the proportional memory (PSS) of the
// bench's whole process tree (wright, Chromium and its helpers, the Python
// runners, the shells) at a fixed interval, and reads each attempt's
// timings from results.jsonl. Linux only (it reads /proc).
//
//	go run ./bench/measure/scale [-levels 1,4,8,16] [-repeat 4] [-interval 100ms] [-wright BIN] [-- BENCH FLAGS...]
//
// `make bench-scale` runs it; docs/performance.md has its figures.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"wright/bench/measure/scale/proctree"
	"wright/bench/results"
	"wright/demo"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench/measure/scale:", err)
		os.Exit(1)
	}
}

type options struct {
	levels   []int
	repeat   int
	interval time.Duration
	wright   string
	keep     string
	extra    []string
}

func parseFlags() (options, error) {
	var o options
	levels := flag.String("levels", "1,4,8,16", "the --parallel levels, comma-separated")
	flag.IntVar(&o.repeat, "repeat", 4, "--repeat of the bench (16 tasks each)")
	flag.DurationVar(&o.interval, "interval", 100*time.Millisecond, "how often the process tree is sampled")
	flag.StringVar(&o.wright, "wright", "", "the wright binary (default: built from this tree)")
	flag.StringVar(&o.keep, "keep", "", "keep the bench folders under this directory")
	flag.Parse()
	o.extra = flag.Args()
	for _, s := range strings.Split(*levels, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return o, fmt.Errorf("-levels %q: want numbers of at least 1", *levels)
		}
		o.levels = append(o.levels, n)
	}
	return o, nil
}

func run() error {
	if runtime.GOOS != "linux" {
		return errors.New("reads /proc: Linux only")
	}
	o, err := parseFlags()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "wright-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.wright == "" {
		o.wright = filepath.Join(tmp, "wright")
		build := exec.Command("go", "build", "-o", o.wright, "./cmd/wright")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build wright: %w", err)
		}
	}
	url, stop, err := demo.Serve()
	if err != nil {
		return err
	}
	defer stop()
	suitePath, tasks, err := writeSuite(tmp)
	if err != nil {
		return err
	}
	fmt.Printf("suite: %d tasks (live and workspace) x %d = %d attempts; sampling every %v\n", tasks, o.repeat, tasks*o.repeat, o.interval)
	var rows []row
	for _, p := range o.levels {
		dir := filepath.Join(tmp, fmt.Sprintf("p%d", p))
		if o.keep != "" {
			dir = filepath.Join(o.keep, fmt.Sprintf("p%d", p))
		}
		r, err := measure(o, suitePath, url, dir, p)
		if err != nil {
			return err
		}
		rows = append(rows, r)
		printBreakdown(r)
	}
	printTable(rows)
	return nil
}

// row is one level's figures.
type row struct {
	workers, attempts, failed, errors int
	wall                              time.Duration
	peak                              proctree.Sample
	samples                           int
	overhead                          overhead
	load                              [2]string // the load average before and after
}

// measure runs the bench at one level and samples its tree.
func measure(o options, suitePath, url, dir string, p int) (row, error) {
	r := row{workers: p}
	r.load[0] = loadAvg()
	args := append([]string{"bench", suitePath, "-o", dir, "--redo", "--parallel", strconv.Itoa(p), "--repeat", strconv.Itoa(o.repeat),
		"--sites", demo.SitePlaceholder + "=" + url}, o.extra...)
	cmd := exec.Command(o.wright, args...)
	log, err := os.Create(dir + ".log")
	if err != nil {
		if err = os.MkdirAll(filepath.Dir(dir), 0o755); err == nil {
			log, err = os.Create(dir + ".log")
		}
		if err != nil {
			return r, err
		}
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, err
	}
	w := proctree.Watch(context.Background(), cmd.Process.Pid, o.interval)
	werr := cmd.Wait()
	r.wall = time.Since(start)
	r.peak, r.samples = w.Wait()
	r.load[1] = loadAvg()
	if werr != nil {
		fmt.Fprintf(os.Stderr, "bench at --parallel %d: %v (its output: %s)\n", p, werr, log.Name())
	}
	recs, _, err := results.Read(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		return r, err
	}
	latest := results.Latest(recs)
	r.attempts = len(latest)
	for _, rec := range latest {
		if rec.Error != "" {
			r.errors++
		}
		if rec.Error != "" || rec.Passed == nil || !*rec.Passed {
			r.failed++
		}
	}
	r.overhead = overheadOf(latest, dir)
	return r, nil
}

// loadAvg is the one-minute load average.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
