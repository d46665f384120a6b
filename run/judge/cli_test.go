package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"wright/model/modeltest"
	"wright/run/gate"
	"wright/run/judge/keyproxy"
)

// The CLI tests run the real wright binary, built once per test run
// (or taken from WRIGHT_TEST_BINARY when set, to skip the build).

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

func wrightBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the wright binary")
	}
	if p := os.Getenv("WRIGHT_TEST_BINARY"); p != "" {
		return p
	}
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "wright-gate-test-")
		if buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "wright")
		out, err := exec.Command("go", "build", "-o", builtBin, "wright/cmd/wright").CombinedOutput()
		if err != nil {
			buildErr = errors.New("go build wright/cmd/wright: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

type cliResult struct {
	code           int
	stdout, stderr string
}

// runWright runs the binary in dir with exactly env (nothing inherited but
// PATH and HOME), so no key can leak in from the test's environment.
func runWright(t *testing.T, dir string, env []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), wrightBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := cliResult{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		res.code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return res
}

func readVerdict(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCLIReflect(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png", "final_execution_2_b.png")
	verdict := filepath.Join(ws, gate.FinalRunsDir, "run_1", gate.VerdictName)
	judge := func(final string) *modeltest.Server {
		return modeltest.New(t, modeltest.Reply("Score: 4\nReasoning: fine"), modeltest.Reply("Score: 4\nReasoning: fine"), modeltest.Reply(final))
	}
	modelArgs := func(srv *modeltest.Server) []string {
		return []string{"--workspace-dir", ws, "--model", "judge-x", "--base-url", srv.URL + "/v1", "--max-attempts", "1"}
	}

	t.Run("success", func(t *testing.T) {
		srv := judge("Looks right.\nStatus: success")
		r := runWright(t, t.TempDir(), nil, append([]string{"reflect", "--config", filepath.Join(ws, "nope.json")}, modelArgs(srv)...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "read judge config") {
			t.Fatalf("missing config: exit %d, %s", r.code, r.stderr)
		}
		r = runWright(t, t.TempDir(), nil, append([]string{"reflect", "--auto-latest-run", "final_runs"}, modelArgs(srv)...)...)
		if r.code != 0 {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stdout, "verdict: SUCCESS") || !strings.Contains(r.stdout, "written to "+verdict) ||
			!strings.Contains(r.stdout, "final_runs/run_1/screenshots/final_execution_1_a.png: 4/5 fine") {
			t.Errorf("stdout:\n%s", r.stdout)
		}
		m := readVerdict(t, verdict)
		if m["predicted_label"] != 1.0 || m["model"] != "judge-x" || m["endpoint"] != srv.URL+"/v1" {
			t.Errorf("verdict: %v", m)
		}
		if v, _ := gate.NewFileGate(ws).Check(context.Background()); !v.Pass {
			t.Errorf("the file gate refuses the CLI's verdict: %s", v.Message)
		}
	})

	t.Run("failure", func(t *testing.T) {
		srv := judge("The total is wrong.\nStatus: failure")
		out := filepath.Join(t.TempDir(), "sub", "v.json")
		r := runWright(t, t.TempDir(), nil, append([]string{"reflect", "--output", out}, modelArgs(srv)...)...)
		if r.code != 1 || !strings.Contains(r.stdout, "FAILURE") || !strings.Contains(r.stdout, "The total is wrong.") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if m := readVerdict(t, out); m["predicted_label"] != 0.0 {
			t.Errorf("label %v", m["predicted_label"])
		}
	})

	t.Run("no status line", func(t *testing.T) {
		srv := judge("Hard to say.")
		out := filepath.Join(t.TempDir(), "v.json")
		r := runWright(t, t.TempDir(), nil, append([]string{"reflect", "--output", out}, modelArgs(srv)...)...)
		if r.code != 1 || !strings.Contains(r.stdout, "NO VERDICT") {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		if m := readVerdict(t, out); m["predicted_label"] != nil {
			t.Errorf("label %v", m["predicted_label"])
		}
	})

	t.Run("unknown placeholder", func(t *testing.T) {
		srv := modeltest.New(t)
		cfg := filepath.Join(t.TempDir(), "cfg.json")
		writeFile(t, cfg, []byte(`{"final_verdict_user_prompt": "{action_history_log} {screenshots}"}`))
		out := filepath.Join(t.TempDir(), "v.json")
		r := runWright(t, t.TempDir(), nil, append([]string{"reflect", "--config", cfg, "--output", out}, modelArgs(srv)...)...)
		if r.code != 2 || !strings.Contains(r.stderr, "unknown placeholder {screenshots}") || srv.Calls() != 0 {
			t.Errorf("exit %d, calls %d, stderr %s", r.code, srv.Calls(), r.stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Error("a verdict was written for a bad config")
		}
	})

	t.Run("usage errors", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"reflect", "--workspace-dir", ws, "--frobnicate"}, "unknown flag"},
			// Without --model or $WRIGHT_MODEL the judge is the config's
			// (base.yaml names a hosted model, which needs a key).
			{[]string{"reflect", "--workspace-dir", ws}, "no API key: set OPENAI_API_KEY"},
			{[]string{"reflect", "--workspace-dir", ws, "--wright-config", `model.name=""`}, "no judge model: pass --model or set WRIGHT_MODEL"},
			{[]string{"reflect", "--workspace-dir", ws, "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--concurrency", "0"}, "--concurrency"},
			{[]string{"reflect", "--workspace-dir", ws, "--model", "m", "--base-url", "https://api.example.com/v1"}, "no API key: set OPENAI_API_KEY"},
			{[]string{"reflect", "--workspace-dir", filepath.Join(ws, "nope"), "--model", "m", "--base-url", "http://127.0.0.1:9/v1"}, "is not a directory"},
			{[]string{"image-qa", "--workspace-dir", ws, "--image", "x.png"}, "usage: wright image-qa"},
		} {
			r := runWright(t, t.TempDir(), nil, c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, r.code, r.stderr, c.want)
			}
		}
	})

	t.Run("nothing to judge", func(t *testing.T) {
		srv := modeltest.New(t)
		r := runWright(t, t.TempDir(), nil, "reflect", "--workspace-dir", t.TempDir(), "--model", "m", "--base-url", srv.URL+"/v1")
		if r.code != 1 || !strings.Contains(r.stderr, "nothing to judge") {
			t.Errorf("exit %d, stderr %s", r.code, r.stderr)
		}
	})

	t.Run("config named relative to the workspace", func(t *testing.T) {
		cfg := filepath.Join(ws, gate.ReflectConfig)
		writeFile(t, cfg, []byte(`{"final_verdict_user_prompt": "MARKER {action_history_log} {image_reasonings}"}`))
		defer os.Remove(cfg)
		for _, args := range [][]string{{"--config", gate.ReflectConfig}, nil} { // named, then found by default
			srv := judge("Status: success")
			r := runWright(t, t.TempDir(), nil, append(append([]string{"reflect", "--output", filepath.Join(t.TempDir(), "v.json")}, args...), modelArgs(srv)...)...)
			if r.code != 0 || !strings.HasPrefix(srv.Last().Chat().Messages[1].Text(), "MARKER opened shop") {
				t.Errorf("%v: exit %d %s; stage 2 text %q", args, r.code, r.stderr, srv.Last().Chat().Messages[1].Text())
			}
		}
	})

	t.Run("print default config", func(t *testing.T) {
		r := runWright(t, t.TempDir(), nil, "reflect", "--print-default-config")
		var cfg map[string]string
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &cfg) != nil || !strings.Contains(cfg["final_verdict_user_prompt"], "{image_reasonings}") {
			t.Errorf("exit %d, %s", r.code, r.stdout)
		}
	})
}

func TestCLIImageQA(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "shot.png"), pngBytes(t, 3))
	srv := modeltest.New(t, modeltest.Reply(`{"answer": "Sign in", "evidence": "the blue button top right", "unknown": false, "confidence": 0.75}`))
	r := runWright(t, t.TempDir(), nil, "image-qa", "--workspace-dir", ws, "--image", "shot.png", "--question", "What does the button say?",
		"--model", "m", "--base-url", srv.URL+"/v1")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	want := map[string]any{"answer": "Sign in", "evidence": "the blue button top right", "unknown": false, "confidence": 0.75}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %v", m)
	}

	srv = modeltest.New(t)
	r = runWright(t, t.TempDir(), nil, "image-qa", "--workspace-dir", ws, "--image", "missing.png", "--question", "q", "--model", "m", "--base-url", srv.URL+"/v1")
	if r.code != 2 || !strings.Contains(r.stderr, "missing.png") {
		t.Errorf("missing image: exit %d, %s", r.code, r.stderr)
	}
}

// The model's shell has no API key: reflect and image-qa reach the judge
// through the harness's key proxy, and the endpoint sees the key.
func TestCLIThroughKeyProxy(t *testing.T) {
	ws := judgedWorkspace(t, "final_execution_1_a.png")
	srv := modeltest.New(t,
		modeltest.Status(502), // the client's retry goes through the proxy too
		modeltest.Reply("Score: 5\nReasoning: ok"),
		modeltest.Reply("Status: success"),
		modeltest.Reply(`{"answer": "yes", "evidence": "e", "unknown": false, "confidence": 1}`),
	)
	const key = "sk-harness-only-0123456789"
	p, err := keyproxy.Start(context.Background(), srv.URL+"/v1", key, filepath.Join(t.TempDir(), "model.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	env := p.Env("judge-via-proxy") // all the shell gets: no key, no base URL

	r := runWright(t, ws, env, "reflect", "--output", "v.json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	m := readVerdict(t, filepath.Join(ws, "v.json"))
	if m["model"] != "judge-via-proxy" || !strings.HasPrefix(m["endpoint"].(string), "unix:"+p.SocketPath()) {
		t.Errorf("model %v endpoint %v", m["model"], m["endpoint"])
	}
	r = runWright(t, ws, env, "image-qa", "--image", "final_runs/run_1/screenshots/final_execution_1_a.png", "--question", "ok?")
	if r.code != 0 || !strings.Contains(r.stdout, `"answer": "yes"`) {
		t.Fatalf("image-qa: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests reached the endpoint", len(reqs))
	}
	var auths []string
	for _, rq := range reqs {
		auths = append(auths, rq.Header.Get("Authorization"))
		if rq.Chat().Model != "judge-via-proxy" && rq.Chat().Model != "" {
			t.Errorf("model %q", rq.Chat().Model)
		}
	}
	sort.Strings(auths)
	for _, a := range auths {
		if a != "Bearer "+key {
			t.Errorf("the endpoint saw Authorization %q", a)
		}
	}
	for _, s := range []string{r.stdout, r.stderr} {
		if strings.Contains(s, key) {
			t.Error("the key reached the shell's output")
		}
	}
	data, _ := os.ReadFile(filepath.Join(ws, "v.json"))
	if strings.Contains(string(data), key) {
		t.Error("the key reached the verdict file")
	}
}
