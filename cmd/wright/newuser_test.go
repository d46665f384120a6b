package main

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"wright/model"
	"wright/model/modeltest"
)

// freePort is a loopback address where nothing listens.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// With stderr not a terminal, `wright run` still says where the run is,
// how it ended and why: an unreachable endpoint is named at once.
func TestRunReportsWithoutTerminal(t *testing.T) {
	base := "http://" + freePort(t) + "/v1"
	r := wright(t, "run", "-t", "Say hello", "--start-url", "http://127.0.0.1:9/", "--run-dir", "myrun", "--base-url", base,
		"--model", "scripted", "-c", "agent.require_self_reflection_success=false")
	errs := r.stderr.String()
	for _, want := range []string{"wright: run myrun\n", "ModelError after 0 steps, 0 tokens, $0.0000 — myrun\n", "connection refused", base} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}

	srv := modeltest.New(t, modeltest.Done(model.FieldBash, "nothing to do", "hello").WithUsage(10, 5))
	r = wright(t, runArgs(t, srv, "one")...)
	if errs := r.stderr.String(); r.code != 0 || !strings.Contains(errs, "Submitted after 1 step, 15 tokens") || strings.Contains(errs, "why:") {
		t.Errorf("exit %d, stderr:\n%s", r.code, errs)
	}
}

// A start URL that is not one is refused before any model call; no start
// URL is allowed, with a note.
func TestStartURLChecked(t *testing.T) {
	srv := modeltest.New(t, modeltest.Done(model.FieldBash, "done", "ok"))
	for _, bad := range []string{"notaurl", "localhost:8000", "http://", "ftp://example.com/"} {
		args := runArgs(t, srv, filepath.Join(t.TempDir(), "run"))
		for i, a := range args {
			if a == "--start-url" {
				args[i+1] = bad
			}
		}
		r := wright(t, args...)
		if r.code != 2 || !strings.Contains(r.stderr.String(), "--start-url") || !strings.Contains(r.stderr.String(), "https://") {
			t.Errorf("%q: exit %d, stderr %s", bad, r.code, r.stderr.String())
		}
	}
	if srv.Calls() != 0 {
		t.Fatalf("%d model calls for bad start URLs", srv.Calls())
	}
	args := []string{"run", "-t", "Say hello", "--run-dir", "run", "--base-url", srv.URL + "/v1", "--model", "scripted",
		"-c", "agent.require_self_reflection_success=false"}
	r := wright(t, args...)
	if r.code != 0 || !strings.Contains(r.stderr.String(), "no --start-url") {
		t.Errorf("no start URL: exit %d, stderr %s", r.code, r.stderr.String())
	}
}

// A reply the loop cannot use shows as a step line with what the model
// said.
func TestFormatErrorShown(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("Sure! I will look at the page first."), modeltest.Done(model.FieldBash, "done", "ok"))
	r := wright(t, append(runArgs(t, srv, "run"), "-v")...)
	errs := r.stderr.String()
	if r.code != 0 || !strings.Contains(errs, "step 1 · format error:") || !strings.Contains(errs, "model said: Sure! I will look at the page first.") {
		t.Errorf("exit %d, stderr:\n%s", r.code, errs)
	}
}

// builtin:recorded answers the demo suite's tasks only; run says so
// instead of asking for an API key.
func TestRecordedModelForRun(t *testing.T) {
	r := wright(t, "run", "-t", "x", "--model", "builtin:recorded")
	if r.code != 2 || !strings.Contains(r.stderr.String(), "wright bench builtin:demo") {
		t.Errorf("exit %d, stderr %s", r.code, r.stderr.String())
	}
}

// Every usage error says what to do: a misspelt flag gets the nearest one,
// a missing argument is named, and each points at --help.
func TestUsageErrorsSayWhatToDo(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--taks", "x"}, []string{"unknown flag: --taks; did you mean --task?", "wright run --help"}},
		{[]string{"bench", "builtin:demo", "--paralel", "2"}, []string{"did you mean --parallel?"}},
		{[]string{"bench"}, []string{"missing SUITE", "wright bench SUITE", "wright bench --help"}},
		{[]string{"bench", "builtin:demo"}, []string{"-o DIR is required", "wright bench builtin:demo -o bench-out"}},
		{[]string{"review"}, []string{"usage: wright review RUN_DIR", "wright review --help"}},
		{[]string{"run", "-t", "x", "--step-limit", "many"}, []string{"--step-limit", "wright run --help"}},
		{[]string{"revew"}, []string{"review", "wright --help"}},
	}
	for _, c := range cases {
		r := wright(t, c.args...)
		for _, w := range c.want {
			if r.code != 2 || !strings.Contains(r.stderr.String(), w) {
				t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr.String(), w)
			}
		}
	}
	// --output stays accepted by bench, under its new name --output-dir.
	r := wright(t, "bench", "builtin:demo", "--output", "b", "--filter", "^no-such-task$")
	if r.code != 2 || !strings.Contains(r.stderr.String(), "no task of builtin:demo is selected") {
		t.Errorf("bench --output: exit %d, stderr %s", r.code, r.stderr.String())
	}
	r = wright(t, "reflect", "--help")
	if !strings.Contains(r.stdout.String(), "not wright's YAML config") {
		t.Errorf("reflect --help does not say --config is the judge's file:\n%s", r.stdout.String())
	}
}

// doctor checks the endpoint a run would reach, given as for run.
func TestDoctorBaseURL(t *testing.T) {
	base := "http://" + freePort(t) + "/v1"
	r := wright(t, "doctor", "--base-url", base)
	if out := r.stdout.String(); r.code != 1 || !strings.Contains(out, "FAIL endpoint") || !strings.Contains(out, base) {
		t.Errorf("doctor --base-url %s: exit %d\n%s", base, r.code, out)
	}
}
