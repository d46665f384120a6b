package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/bench"
	"wright/bench/results"
	"wright/model/modeltest"
)

// benchSite serves the fixture pages bench tasks run on.
func benchSite(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Fixture</title><h1>Fixture</h1><a href="/page.html">Next page</a>`)
	})
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Second</title><h1 id="h">The answer is 42</h1>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

type benchTask struct {
	id, mode string
	replies  []map[string]any
	eval     map[string]any
	config   map[string]any
}

func bashStep(cmd string) map[string]any {
	return map[string]any{"thought": "next", "bash_command": cmd, "done": false, "final_response": ""}
}

func pyStep(code string) map[string]any {
	return map[string]any{"thought": "next", "python_code": code, "done": false, "final_response": ""}
}

func doneStep(field, answer string) map[string]any {
	return map[string]any{"thought": "done", field: "", "done": true, "final_response": answer}
}

// writeSuite writes the tasks' replay files and the suite JSONL; each task
// answers from its own replay file through its config.
func writeSuite(t *testing.T, dir, site string, tasks []benchTask) string {
	t.Helper()
	var lines []string
	for _, tk := range tasks {
		rp := filepath.Join(dir, tk.id+".replay.jsonl")
		var b strings.Builder
		for _, r := range tk.replies {
			line, _ := json.Marshal(r)
			b.Write(line)
			b.WriteByte('\n')
		}
		if err := os.WriteFile(rp, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := map[string]any{"model": map[string]any{"name": "replay:" + rp}}
		for k, v := range tk.config {
			cfg[k] = v
		}
		line, _ := json.Marshal(map[string]any{"task_id": tk.id, "task": "Find the answer on the fixture site (" + tk.id + ")",
			"start_url": site, "mode": tk.mode, "eval": tk.eval, "config": cfg})
		lines = append(lines, string(line))
	}
	path := filepath.Join(dir, "suite.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// finalScript writes and runs a final_script.py that ends on the fixture's
// second page.
const finalScript = `cat > final_script.py <<'PY'
import json, os
from wright_browser import launch
task = json.load(open(os.environ["TASK_JSON"]))
with launch() as browser:
    page = browser.new_page()
    page.goto(task["start_url"])
    page.get_by_role("link", name="Next page").click()
    page.wait_for_url("**/page.html")
    print(page.locator("#h").inner_text())
PY
python3 final_script.py`

// killChromium writes and runs a script that finds the Chromium its own
// driver started (its grandchild) and kills it.
const killChromium = `cat > kill.py <<'PY'
import os, signal
from wright_browser import launch
def children(pid):
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                fields = open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(p))
    return out
with launch() as browser:
    page = browser.new_page()
    for driver in children(os.getpid()):
        for chrome in children(driver):
            os.kill(chrome, signal.SIGKILL)
    try:
        page.goto("about:blank")
    except Exception as e:
        print("after the kill:", type(e).__name__)
PY
python3 kill.py`

func readResults(t *testing.T, dir string) map[string]bench.Record {
	t.Helper()
	recs, skipped, err := results.Read(filepath.Join(dir, bench.ResultsFile))
	if err != nil || skipped > 0 {
		t.Fatalf("results: %v (%d unreadable)", err, skipped)
	}
	out := map[string]bench.Record{}
	for _, r := range results.Latest(recs) {
		out[r.TaskID] = r
	}
	return out
}

func benchCLI(t *testing.T, args ...string) *cliRun {
	t.Helper()
	return wright(t, append([]string{"bench"}, args...)...)
}

// TestBenchIsolationEvaluatorsAndFaults runs one bench at --parallel 3 in
// which one task hangs, one kills its own Chromium and one floods its
// output, beside tasks whose evaluators pass, fail or cannot run, in both
// modes.
func TestBenchIsolationEvaluatorsAndFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs several browsers")
	}
	site := benchSite(t)
	dir := t.TempDir()
	passEval := map[string]any{"answer": map[string]any{"must_include": []string{"42"}}, "js": "document.title === 'Second'", "url": "/page.html"}
	tasks := []benchTask{
		{id: "ws-pass", mode: "workspace", replies: []map[string]any{bashStep(finalScript), doneStep("bash_command", "The answer is 42")}, eval: passEval},
		{id: "ws-fail", mode: "workspace", replies: []map[string]any{bashStep(finalScript), doneStep("bash_command", "The answer is 42")},
			eval: map[string]any{"js": "document.title === 'Fixture'", "url": "/page.html"}},
		{id: "live-pass", mode: "browser", replies: []map[string]any{pyStep("page.get_by_role('link', name='Next page').click()\npage.wait_for_url('**/page.html')"), doneStep("python_code", "42")}, eval: passEval},
		{id: "live-fail", mode: "browser", replies: []map[string]any{pyStep("print(page.title())"), doneStep("python_code", "41")},
			eval: map[string]any{"url": "/page.html", "js": "document.title === 'Second'"}},
		{id: "live-unscored", mode: "browser", replies: []map[string]any{doneStep("python_code", "42")},
			eval: map[string]any{"js": "(() => { throw new Error('evaluator broke') })()"}},
		{id: "hang", mode: "workspace", replies: []map[string]any{bashStep("sleep 600")}, eval: passEval,
			config: map[string]any{"env.command_timeout_seconds": 900}},
		{id: "flood", mode: "workspace", replies: []map[string]any{bashStep("head -c 20000000 /dev/zero | tr '\\0' x; echo"), doneStep("bash_command", "flooded 42")},
			eval: map[string]any{"answer": map[string]any{"must_include": []string{"42"}}}},
		{id: "kill-chromium", mode: "workspace", replies: []map[string]any{bashStep(killChromium), doneStep("bash_command", "no answer")},
			eval: map[string]any{"answer": map[string]any{"must_include": []string{"42"}}}},
	}
	suitePath := writeSuite(t, dir, site, tasks)
	out := filepath.Join(dir, "bench")
	r := benchCLI(t, suitePath, "-o", out, "--parallel", "3", "--task-timeout", "60s",
		"-c", "agent.require_self_reflection_success=false")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout.String(), r.stderr.String())
	}
	got := readResults(t, out)
	want := map[string]struct {
		status string
		passed *bool
	}{
		"ws-pass": {"Submitted", ptr(true)}, "ws-fail": {"Submitted", ptr(false)},
		"live-pass": {"Submitted", ptr(true)}, "live-fail": {"Submitted", ptr(false)},
		"live-unscored": {"Submitted", nil}, "hang": {bench.TimeLimitExceeded, ptr(false)},
		"flood": {"Submitted", ptr(true)}, "kill-chromium": {"Submitted", ptr(false)},
	}
	for id, w := range want {
		rec, ok := got[id]
		if !ok {
			t.Errorf("%s: no result", id)
			continue
		}
		if rec.ExitStatus != w.status || !samePtr(rec.Passed, w.passed) || rec.Error != "" {
			t.Errorf("%s: status %s passed %s error %q evals %+v unscored %q", id, rec.ExitStatus, fmtPtr(rec.Passed), rec.Error, rec.Evals, rec.Unscored)
		}
		// Each attempt's run is its own directory under the bench's.
		if rec.RunDir != id {
			t.Errorf("%s: run_dir %q", id, rec.RunDir)
		}
	}
	if rec := got["live-unscored"]; !strings.Contains(rec.Unscored, "evaluator broke") {
		t.Errorf("unscored reason: %q", rec.Unscored)
	}
	// Where an attempt's time went (docs/performance.md): its start, the
	// environment's steps and the scoring are parts of its wall time; page
	// checks take scoring time (a live probe, a workspace rerun).
	for _, id := range []string{"ws-pass", "live-pass"} {
		rec := got[id]
		if rec.StartSeconds <= 0 || rec.EnvSeconds <= 0 || rec.ScoreSeconds <= 0 ||
			rec.StartSeconds+rec.EnvSeconds+rec.ModelSeconds+rec.ScoreSeconds > rec.AttemptSeconds {
			t.Errorf("%s: times: start %.3f env %.3f model %.3f score %.3f of attempt %.3f", id,
				rec.StartSeconds, rec.EnvSeconds, rec.ModelSeconds, rec.ScoreSeconds, rec.AttemptSeconds)
		}
	}
	if rec := got["ws-pass"]; rec.ScoreSeconds < 0.2 {
		t.Errorf("a workspace page check reruns final_script.py, which takes a browser: score_seconds %.3f", rec.ScoreSeconds)
	}
	// The workspace checks read the page the rerun ended on, in a folder of
	// its own; final_runs stays the model's.
	if _, err := os.Stat(filepath.Join(out, "ws-pass", "bench_eval", "probe.json")); err != nil {
		t.Errorf("workspace probe: %v", err)
	}
	var sum bench.Summary
	b, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Passed != 3 || sum.Failed != 4 || sum.Rate.Unscored != 1 || sum.Errors != 0 {
		t.Errorf("summary %+v", sum.Rate)
	}
	if procs := processesUnder(out); len(procs) > 0 {
		t.Errorf("processes left running: %v", procs)
	}
}

// TestBenchResumeAndShards: a bench killed mid-run runs only what is
// missing when started again, and three shards merged hold the same tasks
// as one unsharded bench.
func TestBenchResumeAndShards(t *testing.T) {
	if testing.Short() {
		t.Skip("runs several browsers")
	}
	site := benchSite(t)
	dir := t.TempDir()
	var tasks []benchTask
	for i := 1; i <= 5; i++ {
		tasks = append(tasks, benchTask{id: fmt.Sprintf("t%d", i), mode: "browser",
			replies: []map[string]any{pyStep("print(page.title())"), doneStep("python_code", "42")},
			eval:    map[string]any{"answer": map[string]any{"number": 42}}})
	}
	suitePath := writeSuite(t, dir, site, tasks)
	out := filepath.Join(dir, "whole")

	// Kill the bench with SIGKILL once its first result is written.
	cmd := exec.Command(wrightBin, "bench", suitePath, "-o", out, "--parallel", "1")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		if recs, _, _ := results.Read(filepath.Join(out, bench.ResultsFile)); len(recs) >= 1 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	first := readResults(t, out)
	if len(first) == 0 || len(first) == 5 {
		t.Fatalf("after the kill: %d results", len(first))
	}
	r := benchCLI(t, suitePath, "-o", out, "--parallel", "2")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr.String())
	}
	recs, _, _ := results.Read(filepath.Join(out, bench.ResultsFile))
	count := map[string]int{}
	for _, rec := range recs {
		count[rec.TaskID]++
	}
	for id := range first {
		if count[id] != 1 {
			t.Errorf("%s finished before the kill and ran again (%d lines)", id, count[id])
		}
	}
	if len(count) != 5 {
		t.Errorf("after resume: %v", count)
	}
	if !strings.Contains(r.stderr.String(), "already final") {
		t.Errorf("resume did not say what it skipped: %s", r.stderr.String())
	}

	// Three shards at once, then merged.
	var shardDirs []string
	var procs []*exec.Cmd
	for i := 1; i <= 3; i++ {
		d := filepath.Join(dir, fmt.Sprintf("shard%d", i))
		shardDirs = append(shardDirs, d)
		c := exec.Command(wrightBin, "bench", suitePath, "-o", d, "--shard", fmt.Sprintf("%d/3", i))
		c.Dir = dir
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, c)
	}
	for _, c := range procs {
		if err := c.Wait(); err != nil {
			t.Fatalf("shard: %v", err)
		}
	}
	merged := filepath.Join(dir, "merged")
	r = wright(t, append([]string{"bench", "merge", merged}, shardDirs...)...)
	if r.code != 0 {
		t.Fatalf("merge: %s", r.stderr.String())
	}
	if a, b := taskSet(readResults(t, merged)), taskSet(readResults(t, out)); a != b {
		t.Errorf("merged shards %s, unsharded %s", a, b)
	}
	r = wright(t, "bench", "compare", out, merged)
	if r.code != 0 || !strings.Contains(r.stdout.String(), "both pass: 5") {
		t.Errorf("compare: %s %s", r.stdout.String(), r.stderr.String())
	}
}

// TestBenchCtrlC: SIGINT ends the running attempt as Interrupted with its
// files written, starts nothing more, and says how to resume.
func TestBenchCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("runs browsers")
	}
	site := benchSite(t)
	dir := t.TempDir()
	quick := []map[string]any{pyStep("print(page.title())"), doneStep("python_code", "42")}
	eval := map[string]any{"answer": map[string]any{"number": 42}}
	suitePath := writeSuite(t, dir, site, []benchTask{
		{id: "a", mode: "browser", replies: quick, eval: eval},
		{id: "b", mode: "workspace", replies: []map[string]any{bashStep("sleep 600")}, eval: eval},
		{id: "c", mode: "browser", replies: quick, eval: eval},
	})
	out := filepath.Join(dir, "bench")
	cmd := exec.Command(wrightBin, "bench", suitePath, "-o", out, "-c", "agent.require_self_reflection_success=false")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	step := filepath.Join(out, "b", "workspace", "steps", "step_0001.sh")
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(step); err == nil {
			break
		}
	}
	time.Sleep(500 * time.Millisecond) // the command is running
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit: %v\n%s", err, stderr.String())
	}
	got := readResults(t, out)
	if got["a"].ExitStatus != "Submitted" || got["b"].ExitStatus != "Interrupted" {
		t.Errorf("results %+v", got)
	}
	if _, ran := got["c"]; ran {
		t.Error("a task started after the interrupt")
	}
	if _, err := os.Stat(filepath.Join(out, "b", "result.json")); err != nil {
		t.Errorf("the interrupted run's files: %v", err)
	}
	if !strings.Contains(stderr.String(), "Resume with the same command") {
		t.Errorf("no resume hint: %s", stderr.String())
	}
	if procs := processesUnder(out); len(procs) > 0 {
		t.Errorf("processes left running: %v", procs)
	}
}

// TestBenchJudgeEvaluator: the judge evaluator sends the run's screenshots
// and the suite's rubric to the judge endpoint; its verdict passes or fails
// the attempt, and a judge that cannot be reached leaves it unscored.
func TestBenchJudgeEvaluator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs browsers")
	}
	site := benchSite(t)
	dir := t.TempDir()
	// Stage 1 gets one image per call, the verdict all of them and the rubric.
	judgeWith := func(status string) *modeltest.Server {
		return modeltest.New(t, modeltest.Func(func(r modeltest.Request) modeltest.Response {
			body := string(r.Body)
			if strings.Contains(body, "criterion for success") {
				if !strings.Contains(body, "The heading must say 42") {
					return modeltest.Reply("Status: failure (no rubric)")
				}
				return modeltest.Reply("The page shows the answer.\nStatus: " + status)
			}
			return modeltest.Reply("Score: 5\nReasoning: the second page is open.")
		}).Forever())
	}
	pass, fail := judgeWith("success"), judgeWith("failure")
	steps := []map[string]any{pyStep("page.get_by_role('link', name='Next page').click()\npage.wait_for_url('**/page.html')"), doneStep("python_code", "42")}
	judged := func(id string, srv string) benchTask {
		return benchTask{id: id, mode: "browser", replies: steps, eval: map[string]any{"judge": "The heading must say 42"},
			config: map[string]any{"gate.model": map[string]any{"name": "judge", "base_url": srv}}}
	}
	suitePath := writeSuite(t, dir, site, []benchTask{
		judged("judge-pass", pass.URL+"/v1"), judged("judge-fail", fail.URL+"/v1"),
		judged("judge-down", "http://127.0.0.1:9/v1"),
	})
	out := filepath.Join(dir, "bench")
	r := benchCLI(t, suitePath, "-o", out, "--parallel", "3", "-c", "gate.model.retry={attempts: 1}")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr.String())
	}
	got := readResults(t, out)
	if rec := got["judge-pass"]; !samePtr(rec.Passed, ptr(true)) || rec.Evals[0].Kind != "judge" {
		t.Errorf("judge-pass: %+v", rec)
	}
	if rec := got["judge-fail"]; !samePtr(rec.Passed, ptr(false)) {
		t.Errorf("judge-fail: %+v", rec)
	}
	if rec := got["judge-down"]; rec.Passed != nil || !strings.Contains(rec.Unscored, "judge") {
		t.Errorf("judge-down: %+v", rec)
	}
	if pass.Calls() < 2 {
		t.Errorf("the judge got %d calls", pass.Calls())
	}
	if _, err := os.Stat(filepath.Join(out, "judge-pass", "bench_eval", "judge_result.json")); err != nil {
		t.Errorf("judge result: %v", err)
	}
}

// TestBenchRefusesASecondBenchOnOneDir: the lock names its holder.
func TestBenchRefusesASecondBenchOnOneDir(t *testing.T) {
	dir := t.TempDir()
	lock, err := bench.Acquire(dir, "pid 1 on test")
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	suitePath := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(suitePath, []byte(`{"task_id":"a","task":"x","start_url":"http://127.0.0.1:9/"}`+"\n"), 0o644)
	// A replay the config check accepts, so that the lock is what refuses.
	replay := filepath.Join(t.TempDir(), "r.jsonl")
	replies, _ := json.Marshal(doneStep("bash_command", "42"))
	os.WriteFile(replay, append(replies, '\n'), 0o644)
	r := benchCLI(t, suitePath, "-o", dir, "--model", "replay:"+replay)
	if r.code == 0 || !strings.Contains(r.stderr.String(), "pid 1 on test") {
		t.Errorf("second bench: exit %d %s", r.code, r.stderr.String())
	}
}

func TestBenchUsageErrors(t *testing.T) {
	dir := t.TempDir()
	suitePath := filepath.Join(dir, "s.jsonl")
	os.WriteFile(suitePath, []byte("{\"task_id\":\"a\",\"task\":\"x\"}\nnot json\n"), 0o644)
	for name, args := range map[string][]string{
		"no -o":        {suitePath},
		"bad shard":    {suitePath, "-o", dir, "--shard", "3/2"},
		"no task":      {suitePath, "-o", dir},
		"bad mode":     {suitePath, "-o", dir, "--mode", "x"},
		"missing file": {filepath.Join(dir, "nope.jsonl"), "-o", dir},
	} {
		if r := benchCLI(t, args...); r.code != 2 {
			t.Errorf("%s: exit %d, want 2: %s", name, r.code, r.stderr.String())
		}
	}
	r := benchCLI(t, suitePath, "-o", dir)
	if !strings.Contains(r.stderr.String(), "s.jsonl:1: no start URL") || !strings.Contains(r.stderr.String(), "s.jsonl:2: not a JSON object") {
		t.Errorf("invalid tasks not reported by line: %s", r.stderr.String())
	}
}

func taskSet(m map[string]bench.Record) string {
	var ids []string
	for id, r := range m {
		ids = append(ids, fmt.Sprintf("%s:%s:%s", id, r.ExitStatus, fmtPtr(r.Passed)))
	}
	sort.Strings(ids)
	return strings.Join(ids, ",")
}

func ptr(b bool) *bool { return &b }

func samePtr(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func fmtPtr(b *bool) string {
	if b == nil {
		return "null"
	}
	return fmt.Sprint(*b)
}

// processesUnder lists processes whose command line or working directory
// lies under dir.
func processesUnder(dir string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cwd, _ := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if strings.HasPrefix(cwd, dir) || strings.Contains(string(cmdline), dir) {
			out = append(out, e.Name()+" "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return out
}

// TestBenchInterruptWhileStarting: Ctrl-C while an attempt's browser is
// still starting records it Interrupted (not an infrastructure error), as
// docs/bench.md says; it takes no count and runs again on resume, which
// then counts it once.
func TestBenchInterruptWhileStarting(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a browser")
	}
	// The attempt's browser is the bench's shared one by default (the
	// task's Chromium is the suite's), its own with --own-browsers; an
	// interrupt while either starts ends the attempt as Interrupted.
	t.Run("shared browser", func(t *testing.T) { interruptWhileStarting(t) })
	t.Run("own browser", func(t *testing.T) { interruptWhileStarting(t, "--own-browsers") })
}

func interruptWhileStarting(t *testing.T, flags ...string) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no chromium on PATH")
	}
	site := benchSite(t)
	dir := t.TempDir()
	// The real Chromium, slow to start, so the interrupt lands while the
	// attempt's browser is starting: the script says when it was asked
	// to start one (not for --version, which bench.json records).
	slow := filepath.Join(dir, "slow-chromium")
	starting := filepath.Join(dir, "starting")
	script := "#!/bin/sh\ncase \"$1\" in --version) exec " + chromium + " \"$@\";; esac\n: > " + starting + "\nsleep 4\nexec " + chromium + " \"$@\"\n"
	if err := os.WriteFile(slow, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	suitePath := writeSuite(t, dir, site, []benchTask{{id: "slow", mode: "browser",
		replies: []map[string]any{pyStep("print(page.title())"), doneStep("python_code", "42")},
		eval:    map[string]any{"answer": map[string]any{"number": 42}},
		config:  map[string]any{"browser": map[string]any{"executable": slow}}}})
	out := filepath.Join(dir, "bench")
	args := append([]string{"bench", suitePath, "-o", out, "-c", "agent.require_self_reflection_success=false"}, flags...)
	cmd := exec.Command(wrightBin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(starting); err == nil {
			break
		}
	}
	time.Sleep(time.Second)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	got := readResults(t, out)["slow"]
	if got.ExitStatus != "Interrupted" || got.Error != "" {
		t.Fatalf("interrupted while starting: %+v\n%s", got, stderr.String())
	}
	if !strings.Contains(stderr.String(), "[runs again on resume] slow Interrupted") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	r := benchCLI(t, append([]string{suitePath, "-o", out, "-c", "agent.require_self_reflection_success=false"}, flags...)...)
	if r.code != 0 || strings.Count(r.stderr.String(), "[1/1] slow Submitted pass") != 1 {
		t.Errorf("resume: exit %d\n%s", r.code, r.stderr.String())
	}
	sum, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	var s struct{ Total, Passed, Interrupted int }
	json.Unmarshal(sum, &s)
	if s.Total != 1 || s.Passed != 1 || s.Interrupted != 0 {
		t.Errorf("summary after resume: %s", sum)
	}
}
