package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/model"
	"wright/model/modeltest"
)

// scriptedRun makes a real run (shell, files, loop) with a scripted model
// that tries to read the API key, and returns its directory.
func scriptedRun(t *testing.T) string {
	t.Helper()
	srv := modeltest.New(t,
		modeltest.Bash("is the key anywhere I can reach?", "echo key=[$OPENAI_API_KEY]; env | sort | head -50"),
		modeltest.Bash("and in the task file?", "cat $TASK_JSON; echo '# Notes' > plan.md"),
		modeltest.Done(model.FieldBash, "finished", "hello"),
	)
	dir := filepath.Join(t.TempDir(), "run")
	if r := wright(t, runArgs(t, srv, dir)...); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr.String())
	}
	return dir
}

func TestReviewKeepsSecretsOut(t *testing.T) {
	dir := scriptedRun(t)
	reviews := func(t *testing.T) map[string]string {
		page := filepath.Join(t.TempDir(), "page.html")
		outputs := map[string]string{}
		for name, args := range map[string][]string{
			"text": {"review", dir, "--plain"},
			"json": {"review", dir, "--json"},
			"html": {"review", dir, "--html", "-o", page},
			"grep": {"review", dir, "--grep", "key", "--plain"},
		} {
			r := wright(t, args...) // with the key in its environment
			if r.code != 0 {
				t.Fatalf("%s: exit %d\n%s", name, r.code, r.stderr.String())
			}
			outputs[name] = r.stdout.String() + r.stderr.String()
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		outputs["page"] = string(b)
		for name, out := range outputs {
			if strings.Contains(out, testKey) || strings.Contains(out, testKey[8:]) {
				t.Errorf("the %s review holds the API key", name)
			}
		}
		return outputs
	}
	// The run tried to read the key and could not: nothing to hide.
	outputs := reviews(t)
	if !strings.Contains(outputs["text"], "key=[]") || !strings.Contains(outputs["page"], "key=[]") {
		t.Errorf("the step that read the environment is not in the review:\n%s", outputs["text"])
	}
	var digest struct {
		ExitStatus string `json:"exit_status"`
		Steps      []struct {
			Step int `json:"step"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(outputs["json"]), &digest); err != nil || digest.ExitStatus != "Submitted" || len(digest.Steps) != 3 {
		t.Errorf("digest %+v (%v)", digest, err)
	}
	// Had the key slipped into a file, the review would not spread it.
	step := filepath.Join(dir, "debug", "steps", "step_0001.json")
	b, _ := os.ReadFile(step)
	if err := os.WriteFile(step, []byte(strings.Replace(string(b), "key=[]", "key=["+testKey+"]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, out := range reviews(t) {
		if name != "grep" && name != "html" && !strings.Contains(out, "key=[[redacted]]") {
			t.Errorf("the %s review does not show the planted key masked", name)
		}
	}
}

func TestReviewUsageErrors(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "result.json"), []byte(`{"exit_status": "Submitted", "steps": 0}`), 0o644)
	for want, args := range map[string][]string{
		"not a loopback address": {"review", dir, "--serve", "0.0.0.0:0"},
		"not a run directory":    {"review", t.TempDir()},
		"choose one of":          {"review", dir, "--json", "--html"},
		"--public only applies":  {"review", dir, "--public"},
		"the run has no step 7":  {"review", dir, "--step", "7"},
		"give a run folder or a bench folder\nusage: wright review RUN_DIR|BENCH_DIR": {"review"},
		"review one folder at a time": {"review", "a", "b"},
		"neither a run directory":     {"review", t.TempDir(), "--serve"},
	} {
		r := wright(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr.String(), want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, r.code, r.stderr.String(), want)
		}
	}
}

func TestReviewBenchHTML(t *testing.T) {
	run := scriptedRun(t)
	bench := t.TempDir()
	if err := os.Rename(run, filepath.Join(bench, "say_hello")); err != nil {
		t.Fatal(err)
	}
	line := `{"task_id": "say_hello", "attempt": 1, "exit_status": "Submitted", "passed": false, "evals": [{"kind": "string_match", "passed": false, "detail": "want goodbye"}], "steps": 3, "run_dir": "say_hello"}`
	_ = os.WriteFile(filepath.Join(bench, "results.jsonl"), []byte(line+"\n"), 0o644)
	r := wright(t, "review", bench, "--html")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr.String())
	}
	page, err := os.ReadFile(filepath.Join(bench, "review.html"))
	if err != nil || !strings.Contains(string(page), `<a href="review_runs/say_hello.html">say_hello</a>`) || !strings.Contains(string(page), "string_match: want goodbye") {
		t.Fatalf("bench page (%v):\n%.2000s", err, page)
	}
	runPage, err := os.ReadFile(filepath.Join(bench, "review_runs", "say_hello.html"))
	if err != nil || !strings.Contains(string(runPage), `href="../review.html"`) || !strings.Contains(string(runPage), `id="step-3"`) {
		t.Errorf("run page (%v)", err)
	}
	// The run page carries the bench's verdict on the run, and the message
	// says where the run pages went.
	if !strings.Contains(string(runPage), `id="bench-result"`) || !strings.Contains(string(runPage), "want goodbye") {
		t.Errorf("run page lacks the bench's evaluator results")
	}
	if want := "1 run page in " + filepath.Join(bench, "review_runs"); !strings.Contains(r.stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", r.stderr.String(), want)
	}
	if text := wright(t, "review", bench); !strings.Contains(text.stdout.String(), "- **1** string_match: want goodbye") {
		t.Errorf("terminal bench view:\n%s", text.stdout.String())
	}
}

func TestReviewServe(t *testing.T) {
	dir := scriptedRun(t)
	cmd := exec.Command(wrightBin, "review", dir, "--serve")
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	}()
	url, err := bufio.NewReader(stdout).ReadString('\n')
	url = strings.TrimSpace(url)
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed %q (%v)", url, err)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `id="step-3"`) {
		t.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	noToken := url[:strings.LastIndex(strings.TrimSuffix(url, "/"), "/")+1]
	if resp, err := http.Get(noToken); err != nil || resp.StatusCode != 404 {
		t.Errorf("GET %s without the token: %v %v", noToken, resp.StatusCode, err)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the server ended with %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Error("the server did not end on SIGINT")
	}
}

// TestTokensOneRule follows the demo's recorded run, whose replies report
// no usage, through every view: the step lines, the end line, result.json,
// and the review as text, JSON and HTML show wright's estimate marked
// est., and the same figure; the gate's label is a number in JSON.
func TestTokensOneRule(t *testing.T) {
	out := t.TempDir()
	r := wright(t, "demo", "-o", out)
	stderr := r.stderr.String()
	if r.code != 0 {
		t.Fatalf("demo: exit %d\n%s", r.code, stderr)
	}
	results, _ := filepath.Glob(filepath.Join(out, "demo_bookshop_*", "result.json"))
	if len(results) != 1 {
		t.Fatalf("result.json: %v", results)
	}
	runDir := filepath.Dir(results[0])
	var res struct {
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
		PerStep   []int `json:"prompt_tokens_per_step"`
		Estimated int   `json:"estimated_prompt_tokens"`
	}
	b, _ := os.ReadFile(results[0])
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, n := range res.PerStep {
		sum += n
	}
	if res.Usage.TotalTokens != 0 || res.Estimated == 0 || res.Estimated != sum {
		t.Fatalf("result.json: reported %d, estimated %d, per step %v", res.Usage.TotalTokens, res.Estimated, res.PerStep)
	}
	est := "~" + strconv.Itoa(res.Estimated) + " prompt tokens est."
	first := "~" + strconv.Itoa(res.PerStep[0])
	if strings.Contains(stderr, "prompt 0 (") || !strings.Contains(stderr, "prompt "+first+" est. · run "+first+" prompt tokens est.") ||
		!strings.Contains(stderr, "Submitted after 6 steps, "+est+", $0.0000") {
		t.Errorf("the demo's lines do not mark the estimate (%s):\n%s", est, stderr)
	}

	text := wright(t, "review", "--plain", runDir).stdout.String()
	if !strings.Contains(text, "**Tokens:** "+est) || !strings.Contains(text, "## Step 1 · rc 0 · ") ||
		!strings.Contains(text, " · "+first+" prompt tokens est.\n") || !strings.Contains(text, "**Gate label:** 1 (success)") {
		t.Errorf("the review's text:\n%s", text)
	}
	var digest struct {
		GateLabel any `json:"gate_label"`
		Estimated int `json:"estimated_prompt_tokens"`
		Steps     []struct {
			Prompt    int  `json:"prompt_tokens"`
			Estimated bool `json:"prompt_estimated"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(wright(t, "review", "--json", runDir).stdout.Bytes(), &digest); err != nil {
		t.Fatal(err)
	}
	if digest.GateLabel != 1.0 || digest.Estimated != res.Estimated || len(digest.Steps) != 6 || !digest.Steps[0].Estimated || digest.Steps[0].Prompt != res.PerStep[0] {
		t.Errorf("the digest: %+v", digest)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if r := wright(t, "review", "--html", "-o", html, runDir); r.code != 0 {
		t.Fatalf("review --html: exit %d %s", r.code, r.stderr.String())
	}
	page, _ := os.ReadFile(html)
	if !strings.Contains(string(page), est+" (the endpoint reported none)") || !strings.Contains(string(page), first+" prompt tokens est.</span>") ||
		!strings.Contains(string(page), "label 1 (success)") {
		t.Errorf("the HTML review does not mark the estimate %s", est)
	}
}
