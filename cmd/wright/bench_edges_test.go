package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// wrightEnv runs the binary in dir with env as its whole environment.
func wrightEnv(t *testing.T, dir string, env []string, args ...string) *cliRun {
	t.Helper()
	cmd := exec.Command(wrightBin, args...)
	cmd.Dir, cmd.Env = dir, env
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

// TestBenchConfigErrorsCreateNothing holds that a config a run would refuse
// (an unknown key, a missing key, a task's own bad config) is a usage error
// of the bench, said as `wright run` says it, before -o exists.
func TestBenchConfigErrorsCreateNothing(t *testing.T) {
	dir := t.TempDir()
	env := append(withoutVars(os.Environ(), []string{"OPENAI_API_KEY", "OPENAI_BASE_URL"}), "HOME="+dir)
	suite := filepath.Join(dir, "s.jsonl")
	os.WriteFile(suite, []byte(`{"task_id":"good","task":"x","start_url":"http://127.0.0.1:9/"}`+"\n"+
		`{"task_id":"bad","task":"x","start_url":"http://127.0.0.1:9/","config":{"agent":{"no_such_key":1}}}`+"\n"), 0o644)
	replay := filepath.Join(dir, "r.jsonl")
	os.WriteFile(replay, []byte(`{"content":"{}"}`+"\n"), 0o644)

	runSays := wrightEnv(t, dir, env, "run", "-t", "x", "--start-url", "http://127.0.0.1:9/", "-o", filepath.Join(dir, "runs")).stderr.String()
	if !strings.Contains(runSays, "no API key: set OPENAI_API_KEY") {
		t.Fatalf("wright run without a key said %q", runSays)
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"unknown key": {[]string{"bench", "builtin:demo", "-o", "out", "--model", "builtin:recorded", "-c", "foo.bar=1"}, "wright: config: unknown key foo.bar\n"},
		"no key":      {[]string{"bench", "builtin:demo", "-o", "out"}, runSays},
		"task config": {[]string{"bench", suite, "-o", "out", "--model", "replay:" + replay}, "wright: task bad: config: unknown key agent.no_such_key"},
	} {
		r := wrightEnv(t, dir, env, c.args...)
		code, stderr := r.code, r.stderr.String()
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", name, code, stderr, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
			t.Errorf("%s: the bench folder was made for a bench that could not start", name)
			os.RemoveAll(filepath.Join(dir, "out"))
		}
	}
	// A model every task names itself needs no key the bench's flags
	// would: such a bench runs.
	own := filepath.Join(dir, "own.jsonl")
	done, _ := json.Marshal(doneStep("bash_command", "42"))
	os.WriteFile(replay, append(done, '\n'), 0o644)
	os.WriteFile(own, []byte(`{"task_id":"own","task":"x","start_url":"http://127.0.0.1:9/","config":{"model":{"name":"replay:`+replay+`"}}}`+"\n"), 0o644)
	if r := wrightEnv(t, dir, env, "bench", own, "-o", "own-out", "-c", "agent.require_self_reflection_success=false"); r.code != 0 {
		t.Errorf("a bench whose tasks name their own replay model, with no key: exit %d\n%s", r.code, r.stderr.String())
	} else if got := readResults(t, filepath.Join(dir, "own-out")); got["own"].ExitStatus != "Submitted" {
		t.Errorf("its result: %+v", got["own"])
	}
}

// TestBenchSuiteNotText gives a binary as the suite: a few of its lines
// are named, by the path as given, then a count and a question.
func TestBenchSuiteNotText(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "true"), b, 0o755)
	r := wrightEnv(t, dir, os.Environ(), "bench", "./true", "-o", "out")
	code, stderr := r.code, r.stderr.String()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 2 || len(lines) != shownInvalid+2 {
		t.Fatalf("exit %d, %d lines:\n%s", code, len(lines), stderr)
	}
	if !strings.HasPrefix(lines[0], "wright: invalid task ./true:1: ") {
		t.Errorf("first line %q does not name ./true", lines[0])
	}
	if !strings.HasPrefix(lines[shownInvalid], "wright: … and ") || !strings.HasSuffix(lines[shownInvalid], "more invalid tasks; is this a suite file?") {
		t.Errorf("the count line is %q", lines[shownInvalid])
	}
}
