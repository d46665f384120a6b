package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"wright/bench"
	"wright/browser"
	"wright/demo"
	"wright/internal/scratch"
	"wright/library"
	"wright/model"
	"wright/run/config"
	"wright/run/harness"
)

// recordedModel is --model's name for the replies recorded with a built-in
// suite: every task answers from its own recording, with no key.
const recordedModel = "builtin:recorded"

type benchFlags struct {
	out            string
	parallel       int
	mode           string
	configs        []string
	model, baseURL string
	filter         string
	limit          int
	shard          string
	repeat         int
	redo           bool
	taskTimeout    time.Duration
	costLimit      float64
	retries        int
	sites          []string
	library        string
	heal, save     bool
	ownBrowsers    bool
	perBrowser     int
	recordHAR      bool
	replayHAR      string
}

var benchCmd = &cobra.Command{
	Use:   "bench SUITE -o DIR",
	Short: "Run a suite of web tasks headlessly: parallel, resumable, sharded, scored",
	Long: `Run every task of SUITE as its own run under DIR, several at once, and score each
with the task's evaluators (js, answer, url, judge) or, without any, the gate's verdict.

SUITE is a JSONL file, a JSON array, a directory of WebArena-style task files, or
builtin:demo (tasks on a shop wright serves itself; --model builtin:recorded answers
them from recorded replies, with no key).

DIR/results.jsonl gets one line per finished attempt; DIR/summary.md and summary.json
are rebuilt as tasks finish. Running the same command again skips the attempts that
are final (use --redo to run them anyway). Ctrl-C stops starting tasks and ends the
running ones as Interrupted; they run again on resume.

Exit codes: 0 when every selected attempt ran, 1 when the bench stopped early (cost
limit, a configuration error from the endpoint), 2 a usage error, 130 interrupted.`,
	Args: argsNamed("SUITE (a tasks file or directory, or builtin:demo)"),
}

func init() {
	var f benchFlags
	benchCmd.RunE = func(cmd *cobra.Command, args []string) error { return runBench(cmd, args[0], f) }
	fl := benchCmd.Flags()
	fl.StringVarP(&f.out, "output-dir", "o", "", "the bench folder: results.jsonl, summary.md, summary.json and one run folder per attempt (required; --output is the old name)")
	// --output was this flag's name; it stays accepted under the name
	// `wright run` uses for its own -o.
	fl.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "output" {
			name = "output-dir"
		}
		return pflag.NormalizedName(name)
	})
	fl.IntVar(&f.parallel, "parallel", 1, "tasks run at once")
	fl.StringVar(&f.mode, "mode", "workspace", "workspace or browser, for tasks that do not name their own mode")
	fl.StringArrayVarP(&f.configs, "config", "c", nil, "config layer, as for wright run (repeatable; later wins)")
	fl.StringVar(&f.model, "model", "", "model name, replay:<file.jsonl>, or builtin:recorded for a built-in suite")
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint (model.base_url)")
	fl.StringVar(&f.filter, "filter", "", "run only the tasks whose id matches this regular expression")
	fl.IntVar(&f.limit, "limit", 0, "run at most this many tasks (after --shard)")
	fl.StringVar(&f.shard, "shard", "", "i/n: run the i-th of n slices of the (filtered) suite")
	fl.IntVar(&f.repeat, "repeat", 1, "independent attempts per task (pass@k)")
	fl.BoolVar(&f.redo, "redo", false, "run attempts again even when DIR holds a final result for them")
	fl.DurationVar(&f.taskTimeout, "task-timeout", 30*time.Minute, "end an attempt after this long (TimeLimitExceeded); 0 is none")
	fl.Float64Var(&f.costLimit, "cost-limit", 0, "stop starting tasks once the bench has spent this many USD")
	fl.IntVar(&f.retries, "retries", 2, "retries of an attempt that failed for infrastructure reasons")
	fl.StringArrayVar(&f.sites, "sites", nil, "NAME=URL for WebArena's __NAME__ placeholders (repeatable)")
	fl.StringVar(&f.library, "library", "", "a script library: a task naming a script runs as a verified rerun first (docs/scripts.md)")
	fl.BoolVar(&f.heal, "heal", false, "with --library: heal a script whose rerun fails before falling back to an agent run")
	fl.BoolVar(&f.ownBrowsers, "own-browsers", false, "each live attempt launches a Chromium of its own, instead of a browser context of its own in a Chromium the bench shares (docs/bench.md)")
	fl.IntVar(&f.perBrowser, "per-browser", bench.DefaultPerBrowser, "how many workers share one Chromium (live attempts, without --own-browsers)")
	fl.BoolVar(&f.recordHAR, "record-har", false, "write each attempt's browser traffic as HAR files into its run folder's har/ (docs/har.md)")
	fl.StringVar(&f.replayHAR, "replay-har", "", "answer each task's requests from its HARs under DIR (a bench folder that ran with --record-har, or DIR/<task>.har); a request they lack fails (docs/har.md)")
	fl.BoolVar(&f.save, "save-scripts", false, "save each task's script that passes the gate in the library (--library, else the default library)")
	rootCmd.AddCommand(benchCmd)
}

func runBench(cmd *cobra.Command, suiteRef string, f benchFlags) error {
	stderr := cmd.ErrOrStderr()
	sel, err := benchSelection(suiteRef, f)
	if err != nil {
		return err
	}
	sites, err := benchSites(f.sites)
	if err != nil {
		return err
	}
	builtin := strings.HasPrefix(suiteRef, "builtin:")
	if builtin {
		// The built-in suites run on the shop this binary serves.
		url, stop, err := demo.Serve()
		if err != nil {
			return err
		}
		defer stop()
		sites[demo.SitePlaceholder] = url
	}
	s, err := bench.Load(suiteRef, bench.Options{Sites: sites, Builtin: demo.BenchSuite})
	if err != nil {
		return usageError("%v", err)
	}
	printInvalid(stderr, s)
	tasks := sel.Select(s.Tasks)
	if len(tasks) == 0 {
		return usageError("no task of %s is selected (%d in the suite, %d invalid)", suiteRef, len(s.Tasks), len(s.Invalid))
	}
	if f.model == recordedModel && !builtin {
		return usageError("--model %s answers only the built-in suites", recordedModel)
	}
	out, err := filepath.Abs(f.out)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("find the wright binary: %w", err)
	}
	// Every attempt's config is checked as `wright run` checks its own
	// before the bench folder exists: a typo, a bad model or a missing key
	// is a usage error that leaves nothing behind.
	if err := checkBenchConfigs(f, tasks, exe); err != nil {
		return err
	}
	configFor := benchConfig(f, filepath.Join(out, ".recorded"))
	base, err := configFor(tasks[0], 1)
	if err != nil {
		return err
	}
	endpoints, err := bench.ReadEndpoints(base.Browser.CDPURLs, base.Browser.CDPURLsFile)
	if err != nil {
		return usageError("%v", err)
	}
	if f.costLimit > 0 && base.Model.Price.Input == 0 && base.Model.Price.Output == 0 && !strings.HasPrefix(base.Model.Name, model.ReplayPrefix) {
		fmt.Fprintf(stderr, "wright: warning: the price of %q is unknown (model.price_per_mtok), so its cost counts as 0 and --cost-limit cannot stop the bench\n", base.Model.Name)
	}
	repro := &bench.Repro{
		Version: version, Commit: vcsRevision(), ConfigHash: configHash(f), Model: f.model,
		Chromium: chromiumVersion(base.Browser.Executable), Suite: suiteRef, SuiteHash: s.Digest,
		Mode: f.mode, Repeat: f.repeat, Shard: f.shard, Started: time.Now(), Invalid: s.Invalid, Selected: len(tasks),
	}
	if repro.Model == "" {
		repro.Model = base.Model.Name
	}
	display := newBenchDisplay(stderr, isTerminal(os.Stderr), f.parallel)
	exec, err := benchExecutor(f, configFor, exe, endpoints, display)
	if err != nil {
		return err
	}
	exec.Shared = sharedBrowser(f, base)
	defer exec.Shared.Close()
	outcome, err := bench.Run(cmd.Context(), bench.Config{
		Dir: out, Parallel: f.parallel, Repeat: f.repeat, Redo: f.redo, Retries: f.retries,
		TaskTimeout: f.taskTimeout, CostLimit: f.costLimit, Repro: repro, OnEvent: display.Event,
	}, tasks, exec)
	display.Close()
	if err != nil {
		return err
	}
	return reportBench(cmd, f, outcome)
}

// shownInvalid is how many invalid tasks the bench names on stderr; the
// rest are counted there, and every one is in bench.json and summary.md.
const shownInvalid = 5

// printInvalid names the suite's invalid tasks, the first few of them: a
// file that is not a suite at all (a binary given by mistake) would
// otherwise print one line per line of it.
func printInvalid(w io.Writer, s *bench.Suite) {
	for i, p := range s.Invalid {
		if i == shownInvalid {
			more := fmt.Sprintf("wright: … and %d more invalid %s", len(s.Invalid)-i, map[bool]string{true: "task", false: "tasks"}[len(s.Invalid)-i == 1])
			if len(s.Tasks) == 0 {
				more += "; is this a suite file?"
			} else {
				more += " (all listed in the bench folder's summary.md)"
			}
			fmt.Fprintln(w, more)
			return
		}
		fmt.Fprintf(w, "wright: invalid task %s\n", p)
	}
}

// benchSelection checks the flags that need no suite and returns the
// selection --filter, --shard and --limit make.
func benchSelection(suiteRef string, f benchFlags) (bench.Selection, error) {
	if f.out == "" {
		return bench.Selection{}, usageError("-o DIR is required: the bench folder for its runs and results (wright bench %s -o bench-out)", suiteRef)
	}
	if f.mode != "workspace" && f.mode != "browser" {
		return bench.Selection{}, usageError("--mode %q: use workspace or browser", f.mode)
	}
	for _, c := range []struct {
		flag     string
		val, min int
	}{{"parallel", f.parallel, 1}, {"repeat", f.repeat, 1}, {"per-browser", f.perBrowser, 1}, {"retries", f.retries, 0}} {
		if c.val < c.min {
			return bench.Selection{}, usageError("--%s %d: it must be at least %d", c.flag, c.val, c.min)
		}
	}
	sel := bench.Selection{Limit: f.limit}
	var err error
	if sel.Shard, err = bench.ParseShard(f.shard); err != nil {
		return bench.Selection{}, usageError("--shard: %v", err)
	}
	if f.filter != "" {
		if sel.Filter, err = regexp.Compile(f.filter); err != nil {
			return bench.Selection{}, usageError("--filter: %v", err)
		}
	}
	return sel, nil
}

// benchSites parses the --sites NAME=URL flags.
func benchSites(flags []string) (map[string]string, error) {
	sites := map[string]string{}
	for _, s := range flags {
		name, url, ok := strings.Cut(s, "=")
		if !ok || name == "" || url == "" {
			return nil, usageError("--sites %q: want NAME=URL", s)
		}
		sites[name] = url
	}
	return sites, nil
}

// benchExecutor is the executor of the bench's attempts: each a wright run
// of exe, with the script library when --library or --save-scripts asks for
// one. Its warnings print once each, above the progress display.
func benchExecutor(f benchFlags, configFor func(bench.Task, int) (*config.Config, error), exe string, endpoints []string, display *benchDisplay) (*bench.HarnessExecutor, error) {
	warned := map[string]bool{}
	exec := &bench.HarnessExecutor{
		Config:     configFor,
		Executable: exe,
		Endpoints:  bench.NewEndpoints(endpoints),
		Warn: func(msg string) {
			if !warned[msg] {
				warned[msg] = true
				display.println("wright: warning: " + msg)
			}
		},
	}
	if f.library != "" || f.save {
		lib, err := library.Open(f.library)
		if err != nil {
			return nil, usageError("%v", err)
		}
		exec.Reuse = &bench.Reuse{Library: lib, Heal: f.heal, Save: f.save}
	} else if f.heal {
		return nil, usageError("--heal needs --library DIR: the scripts it heals")
	}
	return exec, nil
}

// reportBench prints the bench's summary line and turns how it ended into
// the exit code.
func reportBench(cmd *cobra.Command, f benchFlags, outcome bench.Outcome) error {
	stderr := cmd.ErrOrStderr()
	sum := outcome.Summary
	fmt.Fprintf(cmd.OutOrStdout(), "%d passed, %d failed, %d unscored, %s; success %s; results in %s\n",
		sum.Passed, sum.Failed, sum.Rate.Unscored, harness.Plural(sum.Errors, "error"), rateText(sum.SuccessRate), filepath.Join(f.out, "summary.md"))
	if len(sum.ByVia) > 0 {
		fmt.Fprintln(cmd.OutOrStdout(), viaLine(sum))
	}
	if outcome.Skipped > 0 {
		fmt.Fprintf(stderr, "wright: %s already final in %s, skipped (--redo runs them again)\n", harness.Plural(outcome.Skipped, "attempt"), f.out)
	}
	switch {
	case cmd.Context().Err() != nil:
		fmt.Fprintf(stderr, "wright: interrupted; %s not run. Resume with the same command: finished attempts are kept.\n", harness.Plural(outcome.NotRun, "attempt"))
		return &exitError{code: 130, err: errSilent}
	case outcome.Fatal != nil:
		return fmt.Errorf("bench stopped: %w", outcome.Fatal)
	case outcome.Stopped != "":
		fmt.Fprintf(stderr, "wright: bench stopped: %s; %s not run\n", outcome.Stopped, harness.Plural(outcome.NotRun, "attempt"))
		return &exitError{code: 1, err: errSilent}
	}
	return nil
}

// checkBenchConfigs loads each distinct config the tasks' attempts will
// run with and builds a harness on it, as `wright run` does before its
// run: config.Load, then harness.Build (templates, the model and its key,
// the judge). A fault the bench's own flags make is said as `wright run`
// says it; one that only a task's config brings names the task. The
// recorded replies it needs go to a temporary folder, so that nothing is
// written under -o before the bench is known to start.
func checkBenchConfigs(f benchFlags, tasks []bench.Task, exe string) error {
	// A scratch folder, owned: a bench killed during the check leaves it
	// for the next run to sweep.
	recDir, err := scratch.MkdirTemp("", "bench-check-")
	if err != nil {
		return fmt.Errorf("check the bench's config: %w", err)
	}
	defer os.RemoveAll(recDir)
	check := func(t bench.Task) error {
		cfg, err := benchTaskConfig(f, recDir, t)
		if err != nil {
			return err
		}
		_, err = harness.Build(cfg, harness.Options{Executable: exe})
		return err
	}
	seen := map[string]bool{}
	for _, t := range tasks {
		// Tasks with the same mode and config (and, recorded, the same
		// replies) make the same config: one check covers them.
		own, _ := json.Marshal(t.Config)
		key := t.Mode + "\x00" + string(own)
		if f.model == recordedModel {
			key += "\x00" + t.ID
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		err := check(t)
		if err == nil {
			continue
		}
		// The same fault without the task's mode and config is the
		// bench's own (a -c typo, a missing key): no task to name.
		if bare := check(bench.Task{ID: t.ID}); bare != nil && bare.Error() == err.Error() {
			return usageError("%v", err)
		}
		return usageError("task %s: %v", t.ID, err)
	}
	return nil
}

// benchConfig returns how one attempt's config is made (benchTaskConfig),
// recorded replies written under recDir; its errors name the task.
func benchConfig(f benchFlags, recDir string) func(bench.Task, int) (*config.Config, error) {
	return func(t bench.Task, _ int) (*config.Config, error) {
		cfg, err := benchTaskConfig(f, recDir, t)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		return cfg, nil
	}
}

// benchTaskConfig is one task's config: the bench's layers, the task's
// mode and config, then the model flags; with --model builtin:recorded its
// recorded replies are written under recDir for the replay model to read.
func benchTaskConfig(f benchFlags, recDir string, t bench.Task) (*config.Config, error) {
	mode := f.mode
	if t.Mode != "" {
		mode = t.Mode
	}
	layers := append([]string{}, f.configs...)
	if mode == "browser" {
		layers = append([]string{"local_browser"}, layers...)
	}
	overrides := flatten("", t.Config)
	// Each run is headless and its own; the bench owns parallelism.
	overrides["browser.headless"] = true
	if f.model == recordedModel {
		path, err := writeRecording(recDir, t.ID)
		if err != nil {
			return nil, err
		}
		overrides["model.name"] = model.ReplayPrefix + path
	} else if f.model != "" {
		overrides["model.name"] = f.model
	}
	if f.baseURL != "" {
		overrides["model.base_url"] = f.baseURL
	}
	if err := benchHAR(f, t, overrides); err != nil {
		return nil, err
	}
	return config.Load(layers, overrides)
}

// benchHAR sets the HAR overrides of --record-har and --replay-har; a
// task's own browser.replay_har wins over --replay-har.
func benchHAR(f benchFlags, t bench.Task, overrides map[string]any) error {
	if f.recordHAR {
		overrides["browser.record_har"] = true
	}
	if f.replayHAR == "" {
		return nil
	}
	if _, own := overrides["browser.replay_har"]; own {
		return nil
	}
	path, err := taskHAR(f.replayHAR, t.ID)
	if err != nil {
		return err
	}
	overrides["browser.replay_har"] = path
	return nil
}

// taskHAR finds a task's HARs under dir: dir/<task>.har or .zip, or the
// har/ folder of its run in a bench folder (its first attempt's when the
// bench repeated attempts), or a folder dir/<task>.
func taskHAR(dir, taskID string) (string, error) {
	name := bench.SafeName(taskID)
	for _, p := range []string{
		filepath.Join(dir, name+".har"), filepath.Join(dir, name+".zip"), filepath.Join(dir, name, "har"),
		filepath.Join(dir, name, "attempt_1", "har"), filepath.Join(dir, name),
	} {
		if _, err := os.Stat(p); err == nil {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("task %s: --replay-har %s holds no HAR for it (%s.har, %s.zip, %s/har/)", taskID, dir, name, name, name)
}

// writeRecording puts a built-in task's recorded replies in dir, where its
// replay model reads them.
func writeRecording(dir, taskID string) (string, error) {
	b, ok := demo.Recorded(taskID)
	if !ok {
		return "", fmt.Errorf("task %s has no recorded replies", taskID)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, bench.SafeName(taskID)+".jsonl")
	return path, os.WriteFile(path, b, 0o644)
}

// sharedBrowser is the Chromium the live attempts share, each in a
// context of its own; nil with --own-browsers.
func sharedBrowser(f benchFlags, base *config.Config) *bench.SharedBrowser {
	if f.ownBrowsers {
		return nil
	}
	return &bench.SharedBrowser{Executable: config.Abs(base.Browser.Executable), Env: withoutVars(os.Environ(), base.KeyNames()), PerBrowser: f.perBrowser}
}

// withoutVars is environ without the variables named in hide.
func withoutVars(environ, hide []string) []string {
	var out []string
	for _, kv := range environ {
		if name, _, _ := strings.Cut(kv, "="); !slices.Contains(hide, name) {
			out = append(out, kv)
		}
	}
	return out
}

// flatten turns a task's config object ({"agent": {"step_limit": 5}} or
// {"agent.step_limit": 5}) into dotted override keys.
func flatten(prefix string, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok && key != "env.env" {
			for sk, sv := range flatten(key, sub) {
				out[sk] = sv
			}
			continue
		}
		out[key] = v
	}
	return out
}

func configHash(f benchFlags) string {
	h := sha256.New()
	fmt.Fprintf(h, "%q %q %q %q %q", f.configs, f.model, f.baseURL, f.mode, f.replayHAR)
	for _, c := range f.configs {
		if b, err := os.ReadFile(c); err == nil {
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func vcsRevision() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}

func chromiumVersion(executable string) string {
	exe, err := browser.FindExecutable(executable)
	if err != nil {
		return ""
	}
	out, err := exec.Command(exe, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func rateText(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}
