package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/demo"
	"wright/model"
	"wright/model/modeltest"
)

// wrightBin is the binary under test, built once for the package.
var wrightBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wright-bin-")
	if err != nil {
		panic(err)
	}
	wrightBin = filepath.Join(dir, "wright")
	out, err := exec.Command("go", "build", "-o", wrightBin, ".").CombinedOutput()
	if err != nil {
		os.RemoveAll(dir)
		panic("build wright: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const testKey = "sk-wright-test-0123456789abcdef"

type cliRun struct {
	stdout, stderr bytes.Buffer
	code           int
	runDir         string
}

// wright runs the binary with the test key in its environment.
func wright(t *testing.T, args ...string) *cliRun {
	t.Helper()
	cmd := exec.Command(wrightBin, args...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+testKey)
	cmd.Dir = t.TempDir()
	r := &cliRun{}
	cmd.Stdout, cmd.Stderr = &r.stdout, &r.stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func runArgs(t *testing.T, srv *modeltest.Server, runDir string, extra ...string) []string {
	return append([]string{"run", "-t", "Say hello", "--start-url", "http://127.0.0.1:9/", "--run-dir", runDir,
		"--base-url", srv.URL + "/v1", "--model", "scripted", "-c", "agent.require_self_reflection_success=false",
		"-c", "model.retry={attempts: 2, initial_delay_seconds: 0.01, max_delay_seconds: 0.02}"}, extra...)
}

func TestUsageErrorsExit2(t *testing.T) {
	cases := map[string][]string{
		"a task is required":  {"run"},
		"no such built-in":    {"run", "-t", "x", "-c", "nosuchconfig"},
		"unknown flag":        {"run", "-t", "x", "--frobnicate"},
		"step_limit":          {"run", "-t", "x", "--step-limit", "-3"},
		"use workspace or br": {"run", "-t", "x", "--mode", "sideways"},
		"script name":         {"run", "-t", "x", "--save-as", "../elsewhere"},
		"not in the library":  {"scripts", "diff", "nosuch", "--library", os.TempDir()},
	}
	for want, args := range cases {
		r := wright(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr.String(), want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, r.code, r.stderr.String(), want)
		}
	}
}

func TestMissingKeyStartsNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(wrightBin, "run", "-t", "x", "--run-dir", dir, "-c", "model.api_key_env=WRIGHT_NO_SUCH_KEY",
		"--base-url", "https://models.invalid/v1")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "WRIGHT_NO_SUCH_KEY") {
		t.Errorf("exit %v, output %s", err, out)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("a run directory was made for a run that could not start")
	}
}

func TestRunSubmittedJSONAndNoKeyAnywhere(t *testing.T) {
	srv := modeltest.New(t,
		modeltest.Bash("look at my environment", "env | sort; echo key=[$OPENAI_API_KEY]; echo ws=$WORKSPACE_DIR; cat $TASK_JSON"),
		modeltest.Done(model.FieldBash, "finished", "hello"),
	)
	dir := filepath.Join(t.TempDir(), "run")
	r := wright(t, append(runArgs(t, srv, dir), "--json")...)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr.String())
	}
	var res map[string]any
	if err := json.Unmarshal(r.stdout.Bytes(), &res); err != nil || res["exit_status"] != "Submitted" || res["final_response"] != "hello" {
		t.Fatalf("--json printed %s (%v)", r.stdout.String(), err)
	}
	obs := srv.Requests()[1].Chat().Messages
	seen := obs[len(obs)-1].Text()
	if !strings.Contains(seen, "key=[]") || !strings.Contains(seen, "ws="+filepath.Join(dir, "workspace")) || !strings.Contains(seen, `"task": "Say hello"`) {
		t.Errorf("the shell's environment is wrong:\n%s", seen)
	}
	if auth := srv.Requests()[0].Header.Get("Authorization"); auth != "Bearer "+testKey {
		t.Errorf("the endpoint got Authorization %q", auth)
	}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		if bytes.Contains(b, []byte(testKey)) {
			t.Errorf("%s holds the API key", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"config.yaml", "trajectory.json", "result.json", "debug/steps.md", "workspace/task.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestOtherExitStatusExits1(t *testing.T) {
	srv := modeltest.New(t, modeltest.Bash("loop", "true").Forever())
	dir := filepath.Join(t.TempDir(), "run")
	r := wright(t, append(runArgs(t, srv, dir), "--step-limit", "2", "--json")...)
	if r.code != 1 || !strings.Contains(r.stdout.String(), "LimitsExceeded") {
		t.Errorf("exit %d, stdout %s", r.code, r.stdout.String())
	}
}

func TestSIGINTMidCommand(t *testing.T) {
	srv := modeltest.New(t, modeltest.Bash("wait a long time", "sleep 987 & echo started; sleep 986; echo never"))
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(wrightBin, runArgs(t, srv, dir)...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY="+testKey)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !processRunning("sleep 986") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the command never started; stderr:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
			t.Errorf("exit %v, want 130; stderr:\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("wright did not stop after SIGINT")
	}
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil || !strings.Contains(string(b), `"exit_status": "Interrupted"`) {
		t.Errorf("result.json: %v %s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "trajectory.json")); err != nil {
		t.Error(err)
	}
	time.Sleep(200 * time.Millisecond)
	for _, p := range []string{"sleep 987", "sleep 986"} {
		if processRunning(p) {
			t.Errorf("%q outlived wright", p)
		}
	}
}

// processRunning reports whether a live process has exactly this command line.
func processRunning(cmdline string) bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ") == cmdline {
			stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
			if !strings.Contains(string(stat), ") Z ") {
				return true
			}
		}
	}
	return false
}

func TestDoctor(t *testing.T) {
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer "+testKey {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Write([]byte(`{"object":"list","data":[]}`))
	}))
	defer good.Close()
	r := wright(t, "doctor", "-c", "model.base_url="+good.URL+"/v1")
	out := r.stdout.String()
	if r.code != 0 {
		t.Fatalf("doctor failed on a good machine (exit %d):\n%s%s", r.code, out, r.stderr.String())
	}
	for _, want := range []string{"ok   config", "ok   chromium", "ok   python3", "ok   endpoint", "ok   platform  linux/"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}

	r = wright(t, "doctor", "-c", "model.base_url="+good.URL+"/v1", "-c", "model.api_key_env=WRIGHT_UNSET_KEY", "-c", "browser.executable=/nonexistent/chrome")
	out = r.stdout.String()
	if r.code != 1 || !strings.Contains(out, "FAIL endpoint") || !strings.Contains(out, "WRIGHT_UNSET_KEY") || !strings.Contains(out, "FAIL chromium") || !strings.Contains(out, "fix:") {
		t.Errorf("doctor on a broken setup (exit %d):\n%s", r.code, out)
	}
}

func TestDemo(t *testing.T) {
	out := t.TempDir()
	r := wright(t, "demo", "-o", out)
	if r.code != 0 || !strings.Contains(r.stderr.String(), "Submitted after 6 steps") {
		logs, _ := filepath.Glob(filepath.Join(out, "*", "workspace", "logs", "step_000[1-5].log"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", filepath.Base(l), b)
		}
		t.Fatalf("demo: exit %d\n%s", r.code, r.stderr.String())
	}
	runs, _ := filepath.Glob(filepath.Join(out, "demo_bookshop_*", "workspace", "final_runs", "run_1", "self_reflect_result.json"))
	if len(runs) != 1 {
		t.Fatal("the demo left no verdict")
	}
	// The demo returns structured data: its schema's title, author, price.
	results, _ := filepath.Glob(filepath.Join(out, "demo_bookshop_*", "result.json"))
	var res struct {
		Output map[string]any `json:"output"`
	}
	if len(results) == 1 {
		b, _ := os.ReadFile(results[0])
		json.Unmarshal(b, &res)
	}
	if res.Output["title"] != "The Go Programming Language" || res.Output["author"] != "Alan Donovan, Brian Kernighan" || res.Output["price"] != 39.99 {
		t.Errorf("the demo's output: %v", res.Output)
	}
	// The judge's notes are on the screenshots they were recorded for, the
	// verdict names no endpoint for recorded replies, the model it names
	// is a file that is still there, and the last line says how to read it.
	var verdict struct {
		Endpoint string `json:"endpoint"`
		Model    string `json:"model"`
		Records  []struct {
			Path      string `json:"image_path"`
			Reasoning string `json:"Reasoning"`
		} `json:"image_records"`
	}
	b, _ := os.ReadFile(runs[0])
	json.Unmarshal(b, &verdict)
	want := map[string]string{"home": "home page", "results": "results list", "book": "book page"}
	for _, rec := range verdict.Records {
		for shot, words := range want {
			if strings.HasSuffix(rec.Path, "_"+shot+".png") && !strings.Contains(rec.Reasoning, words) {
				t.Errorf("%s judged with %q", rec.Path, rec.Reasoning)
			}
		}
	}
	if len(verdict.Records) != 3 || verdict.Endpoint != "" {
		t.Errorf("verdict: %d records, endpoint %q", len(verdict.Records), verdict.Endpoint)
	}
	if file, ok := strings.CutPrefix(verdict.Model, model.ReplayPrefix); !ok {
		t.Errorf("the judge model %q", verdict.Model)
	} else if _, err := os.Stat(file); err != nil {
		t.Errorf("the judge model names a file that is gone: %v", err)
	}
	if !strings.Contains(r.stderr.String(), "wright: to read it: wright review "+out) {
		t.Errorf("the demo does not end with how to review it:\n%s", r.stderr.String())
	}
}

// TestGateEndToEnd: a scripted agent says done too early and is refused,
// then explores the demo shop, writes plan.md, self_reflect_config.json and
// a real final_script.py that drives Chromium, runs it into
// final_runs/run_1, has `wright reflect` judge it through the key proxy
// against a scripted judge endpoint, and finishes Submitted.
func TestGateEndToEnd(t *testing.T) {
	site, stop, err := demo.Serve()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var judgeScript []modeltest.Response
	for _, reply := range demo.JudgeReplies {
		judgeScript = append(judgeScript, modeltest.Reply(reply.Content))
	}
	judge := modeltest.New(t, judgeScript...)

	script := []modeltest.Response{modeltest.Done(model.FieldBash, "I think I know the price already", "$39.99")}
	for _, a := range demo.Script[:len(demo.Script)-1] {
		script = append(script, modeltest.Bash(a.Thought, a.BashCommand))
	}
	script = append(script,
		modeltest.Bash("check that no key is visible", "env | grep -c sk-wright-test || true; echo socket=${WRIGHT_MODEL_SOCKET:+set}"),
		modeltest.Done(model.FieldBash, "judged and done", "$39.99"))
	agentSrv := modeltest.New(t, script...)

	dir := filepath.Join(t.TempDir(), "run")
	r := wright(t, "run", "-t", demo.Task, "--start-url", site, "--run-dir", dir, "--base-url", agentSrv.URL+"/v1",
		"--model", "scripted", "-c", "gate.model={name: judge-model, base_url: "+strconv.Quote(judge.URL+"/v1")+"}", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout.String(), r.stderr.String())
	}
	reqs := agentSrv.Requests()
	refusal := reqs[1].Chat().Messages
	if text := refusal[len(refusal)-1].Text(); !strings.Contains(text, "was refused") || !strings.Contains(text, "final_runs") {
		t.Errorf("the early done was not refused with the missing piece named:\n%s", text)
	}
	keyCheck := reqs[len(reqs)-1].Chat().Messages
	if text := keyCheck[len(keyCheck)-1].Text(); !strings.Contains(text, "\n0\n") && !strings.HasPrefix(strings.TrimSpace(strings.SplitN(text, "<output>", 2)[1]), "0") || !strings.Contains(text, "socket=set") {
		t.Errorf("the key reached the shell, or the proxy socket did not:\n%s", text)
	}
	if judge.Calls() != len(demo.JudgeReplies) {
		t.Errorf("the judge got %d calls, want %d", judge.Calls(), len(demo.JudgeReplies))
	}
	for _, req := range judge.Requests() {
		if got := req.Header.Get("Authorization"); got != "Bearer "+testKey {
			t.Errorf("the judge got Authorization %q: the proxy did not add the key", got)
		}
	}
	verdict, err := os.ReadFile(filepath.Join(dir, "workspace", "final_runs", "run_1", "self_reflect_result.json"))
	if err != nil || !strings.Contains(string(verdict), `"predicted_label": 1`) {
		t.Errorf("verdict: %v\n%s", err, verdict)
	}
	shots, _ := filepath.Glob(filepath.Join(dir, "workspace", "final_runs", "run_1", "screenshots", "final_execution_*.png"))
	if len(shots) != 3 {
		t.Errorf("screenshots: %v", shots)
	}
}

func TestLiveModeRun(t *testing.T) {
	site, stop, err := demo.Serve()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	srv := modeltest.New(t,
		modeltest.Python("search for the book", `page.get_by_label("Search books").fill("Go Programming")
page.get_by_role("button", name="Search").click()
page.locator("#results li").first.wait_for()
print(page.locator("#results li").first.inner_text())`),
		modeltest.Python("is the key anywhere I can reach?", `import os
hits = 0
for pid in os.listdir("/proc"):
    try:
        if b"chrom" in open("/proc/%s/cmdline" % pid, "rb").read() and b"`+testKey+`" in open("/proc/%s/environ" % pid, "rb").read():
            hits += 1
    except Exception:
        pass
print("key-in-browser:", hits, "key-in-python:", os.environ.get("OPENAI_API_KEY"))`),
		modeltest.Done(model.FieldPython, "the price is on screen", "$39.99"),
	)
	dir := filepath.Join(t.TempDir(), "run")
	r := wright(t, "run", "--mode", "browser", "-t", demo.Task, "--start-url", site, "--run-dir", dir,
		"--base-url", srv.URL+"/v1", "--model", "scripted", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout.String(), r.stderr.String())
	}
	var seen strings.Builder
	for _, m := range srv.Requests()[1].Chat().Messages {
		seen.WriteString(m.Text() + "\n")
	}
	text := seen.String()
	for _, want := range []string{"$39.99", "search.html", "[notice] The page moved", `link "The Go Programming Language"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the model was not shown %q:\n%s", want, text)
		}
	}
	keyCheck := srv.Requests()[2].Chat().Messages
	if text := keyCheck[len(keyCheck)-1].Text(); !strings.Contains(text, "key-in-browser: 0 key-in-python: None") {
		t.Errorf("the API key is reachable from the model's code:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(dir, "workspace", "screenshots", "step_0001.png")); err != nil {
		t.Error(err)
	}
}

func TestJudgeFromConfigFiles(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply(`{"answer": "a red square", "evidence": "the whole image is red", "unknown": false, "confidence": 0.9}`))
	ws := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	draw.Draw(img, img.Bounds(), &image.Uniform{color.RGBA{255, 0, 0, 255}}, image.Point{}, draw.Src)
	var buf bytes.Buffer
	png.Encode(&buf, img)
	os.WriteFile(filepath.Join(ws, "shot.png"), buf.Bytes(), 0o644)
	r := wright(t, "image-qa", "--workspace-dir", ws, "--image", "shot.png", "--question", "What is shown?",
		"--wright-config", "gate.model={name: judge-from-config, base_url: "+strconv.Quote(srv.URL+"/v1")+"}")
	if r.code != 0 || !strings.Contains(r.stdout.String(), "a red square") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout.String(), r.stderr.String())
	}
	if got := srv.Last().Chat().Model; got != "judge-from-config" {
		t.Errorf("the judge model was %q, want the one from gate.model", got)
	}
}
