package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"wright/trust/sandbox"
)

// newShell starts a shell in a fresh workspace and closes it at the end.
func newShell(t *testing.T, opts Options) *Shell {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	s, err := New(context.Background(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// stepper numbers the steps of one shell.
type stepper struct {
	t *testing.T
	s *Shell
	n int
}

// flat is an observation's flat form, as templates and trajectory.json see
// it: the tests read the keys the model reads.
type flat = map[string]any

func (st *stepper) run(code string) flat {
	st.t.Helper()
	st.n++
	obs, err := st.s.Execute(context.Background(), st.n, code)
	if err != nil {
		st.t.Fatalf("Execute(%q): %v", code, err)
	}
	return obs.Flat()
}

func output(obs flat) string { s, _ := obs["command_output"].(string); return s }
func rc(obs flat) int        { n, _ := obs["returncode"].(int); return n }

func wantOutput(t *testing.T, obs flat, want string) {
	t.Helper()
	if got := output(obs); got != want {
		t.Errorf("output %q, want %q (observation %v)", got, want, obs)
	}
}

// waitFile polls for a file a command writes, returning its trimmed content.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%s never appeared", path)
	return ""
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	pid, err := strconv.Atoi(waitFile(t, path))
	if err != nil {
		t.Fatalf("pid file %s: %v", path, err)
	}
	return pid
}

func TestStatePersists(t *testing.T) {
	t.Parallel()
	s := newShell(t, Options{})
	st := &stepper{t: t, s: s}
	st.run("mkdir -p sub/dir && cd sub/dir")
	st.run("export GREETING='hello there'; LOCAL_ONLY=1")
	st.run("greet() { echo \"$GREETING from $(basename \"$PWD\")\"; }")
	obs := st.run("greet; echo local=$LOCAL_ONLY; bash -c 'echo child=$GREETING'")
	wantOutput(t, obs, "hello there from dir\nlocal=1\nchild=hello there\n")
	if want := filepath.Join(s.dir, "sub", "dir"); obs["cwd"] != want {
		t.Errorf("cwd %v, want %s", obs["cwd"], want)
	}
	// Aliases are off: a defined alias is not expanded.
	st.run("alias hi='echo aliased'")
	if obs := st.run("hi"); rc(obs) != 127 {
		t.Errorf("alias was expanded: %v", obs)
	}
	// errexit does not outlive its step (it would end the shell later).
	st.run("set -e")
	obs = st.run("false; echo still here")
	wantOutput(t, obs, "still here\n")
	if obs["shell_restarted"] != false {
		t.Errorf("shell restarted: %v", obs)
	}
}

func TestExitCodes(t *testing.T) {
	t.Parallel()
	s := newShell(t, Options{})
	st := &stepper{t: t, s: s}
	tests := []struct {
		code string
		want int
	}{
		{"true", 0},
		{"false", 1},
		{"(exit 7)", 7},
		{"( (exit 9) )", 9},
		{"$(exit 5)", 5},
		{"false | true", 0},
		{"true | false", 1},
		{"set -o pipefail; false | true; r=$?; set +o pipefail; (exit $r)", 1},
		{"no_such_command_wright_test", 127},
		{"bash -c 'exit 42'", 42},
		{"sh -c 'kill -TERM $$'", 143},
		{"echo out; echo err >&2; (exit 2)", 2},
		{"if then fi", 2}, // syntax error
		{"return 4", 4},   // return from the sourced step
	}
	for _, tc := range tests {
		obs := st.run(tc.code)
		if rc(obs) != tc.want {
			t.Errorf("%q: returncode %d, want %d (%v)", tc.code, rc(obs), tc.want, obs)
		}
		if obs["success"] != (tc.want == 0) {
			t.Errorf("%q: success %v", tc.code, obs["success"])
		}
		if obs["shell_restarted"] != false {
			t.Errorf("%q restarted the shell", tc.code)
		}
	}
	// The pipefail of one step is still set in the next, like any option.
	st.run("set -o pipefail")
	if obs := st.run("false | true"); rc(obs) != 1 {
		t.Errorf("pipefail did not persist: %v", obs)
	}
}

func TestExitInsideCommand(t *testing.T) {
	t.Parallel()
	s := newShell(t, Options{})
	st := &stepper{t: t, s: s}
	st.run("mkdir -p 'a b' && cd 'a b' && export KEPT=no")
	obs := st.run("echo bye; exit 3")
	if rc(obs) != 3 || obs["shell_restarted"] != true || obs["success"] != false {
		t.Fatalf("exit 3: %v", obs)
	}
	wantOutput(t, obs, "bye\n")
	if note, _ := obs["note"].(string); !strings.Contains(note, "exited (code 3)") {
		t.Errorf("note %q", note)
	}
	want := filepath.Join(s.dir, "a b")
	if obs["cwd"] != want {
		t.Errorf("cwd %v, want %s", obs["cwd"], want)
	}
	obs = st.run("pwd; echo kept=${KEPT-gone}")
	wantOutput(t, obs, want+"\nkept=gone\n")
	if obs["shell_restarted"] != false {
		t.Errorf("restarted again: %v", obs)
	}

	// A command that replaces the EXIT trap: the end is still detected.
	obs = st.run("trap 'echo trapped' EXIT; exit 4")
	if rc(obs) != 4 || obs["shell_restarted"] != true {
		t.Errorf("exit with own trap: %v", obs)
	}
	if !strings.Contains(output(obs), "trapped") {
		t.Errorf("trap output lost: %q", output(obs))
	}
	// set -e and a failure end the shell, as in any interactive bash.
	obs = st.run("set -e; false; echo never")
	if rc(obs) != 1 || obs["shell_restarted"] != true || strings.Contains(output(obs), "never") {
		t.Errorf("set -e: %v", obs)
	}
	wantOutput(t, st.run("echo alive"), "alive\n")

	// A status record of a dead bash that arrives late (forged here) does
	// not end the next command: in a PID namespace every bash has the same
	// pid, so records carry the bash's generation instead.
	obs = st.run(`printf 'X 1 77 0 /\0' >"$__wright_fifo"; sleep 2.5; echo finished gen=${WRIGHT_SHELL_GEN-unset}`)
	if rc(obs) != 0 || output(obs) != "finished gen=unset\n" {
		t.Errorf("a dead bash's record ended the command: %v", obs)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	s := newShell(t, Options{Timeout: time.Second})
	st := &stepper{t: t, s: s}
	st.run("export MARK=kept")

	obs := st.run("echo start; sleep 30; echo never")
	if obs["timed_out"] != true || obs["success"] != false {
		t.Fatalf("not timed out: %v", obs)
	}
	if out := output(obs); !strings.HasPrefix(out, "start\n") || strings.Contains(out, "never") {
		t.Errorf("partial output %q", out)
	}
	if obs["shell_restarted"] != false {
		t.Errorf("shell restarted after a plain timeout: %v", obs)
	}
	wantOutput(t, st.run("echo $MARK"), "kept\n")

	// A job that ignores SIGINT gets SIGKILL; the shell lives on.
	obs = st.run(`sh -c 'trap "" INT; read p _ < /proc/self/stat; echo $p > ignorer.pid; exec sleep 30'`)
	if obs["timed_out"] != true || obs["shell_restarted"] != false {
		t.Errorf("SIGINT-proof job: %v", obs)
	}
	if pid := readPID(t, filepath.Join(s.dir, "ignorer.pid")); pidAlive(pid) {
		t.Errorf("job %d survived its timeout", pid)
	}
	wantOutput(t, st.run("echo $MARK"), "kept\n")

	// A builtin loop in a shell that ignores SIGINT: only killing the
	// shell helps, and the observation says it was restarted.
	st.run("cd /")
	obs = st.run("trap '' INT; while :; do :; done")
	if obs["timed_out"] != true || obs["shell_restarted"] != true {
		t.Errorf("unstoppable loop: %v", obs)
	}
	obs = st.run("echo ${MARK-gone}; pwd")
	wantOutput(t, obs, "gone\n/\n")
}

func TestCancel(t *testing.T) {
	t.Parallel()
	s := newShell(t, Options{Timeout: 10 * time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		obs flat
		err error
	}
	done := make(chan result, 1)
	go func() {
		obs, err := s.Execute(ctx, 1, `echo started; sh -c 'read p _ < /proc/self/stat; echo $p > job.pid; exec sleep 1000'`)
		done <- result{obs.Flat(), err}
	}()
	pid := readPID(t, filepath.Join(s.dir, "job.pid"))
	cancel()
	var res result
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Execute did not return after cancel")
	}
	if !errors.Is(res.err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", res.err)
	}
	if res.obs == nil || res.obs["success"] != false || !strings.HasPrefix(output(res.obs), "started\n") {
		t.Errorf("observation %v", res.obs)
	}
	if pidAlive(pid) {
		t.Errorf("the command's process %d is still alive", pid)
	}
	sessions := s.sessionIDs()
	for _, p := range shellProcs(s.tag, sessions) {
		if p != sessions[len(sessions)-1] {
			t.Errorf("process %d of the shell still runs after the cancel", p)
		}
	}
	// Execute with a cancelled context does not run anything.
	if _, err := s.Execute(ctx, 2, "touch ran"); err == nil {
		t.Error("Execute with a cancelled context succeeded")
	}
	if _, err := os.Stat(filepath.Join(s.dir, "ran")); err == nil {
		t.Error("the command ran despite the cancelled context")
	}
	st := &stepper{t: t, s: s, n: 2}
	wantOutput(t, st.run("echo fine"), "fine\n")
}

func TestHugeOutput(t *testing.T) {
	t.Parallel()
	const limit = 1000
	s := newShell(t, Options{OutputLimit: limit})
	st := &stepper{t: t, s: s}
	// About 2 MB, every line coloured: the log keeps all of it, without
	// the escape sequences.
	obs := st.run(`python3 -c "
import sys
w = sys.stdout.write
for i in range(120000):
    w('\x1b[32mline %06d\x1b[0m of the big output\n' % i)
"`)
	var want strings.Builder
	for i := range 120000 {
		fmt.Fprintf(&want, "line %06d of the big output\n", i)
	}
	log, err := os.ReadFile(filepath.Join(s.dir, obs["log_path"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	if string(log) != want.String() {
		t.Fatalf("log differs: %d bytes, want %d", len(log), want.Len())
	}
	if obs["output_chars"] != want.Len() {
		t.Errorf("output_chars %v, want %d", obs["output_chars"], want.Len())
	}
	out := output(obs)
	w := want.String()
	marker := fmt.Sprintf("\n[... %d characters omitted; the whole output is in logs/step_0001.log ...]\n", len(w)-limit)
	if out != w[:limit/2]+marker+w[len(w)-limit/2:] {
		t.Errorf("truncated output wrong:\n%s", out)
	}
	if rc(obs) != 0 {
		t.Errorf("returncode %d", rc(obs))
	}
	step, err := os.ReadFile(filepath.Join(s.dir, "steps", "step_0001.sh"))
	if err != nil || !strings.Contains(string(step), "range(120000)") {
		t.Errorf("step file: %q %v", step, err)
	}
}

func TestOutputCleaning(t *testing.T) {
	t.Parallel()
	s := newShell(t, Options{})
	st := &stepper{t: t, s: s}
	tests := []struct{ name, code, want string }{
		{"ansi", `printf '\033[1;31mred\033[0m \033]0;title\007plain\n'`, "red plain\n"},
		{"progress", `for p in 10 50 100; do printf '\rprogress %3d%%' $p; done; echo`, "progress 100%\n"},
		{"crlf", `printf 'a\r\nb\r\n'`, "a\nb\n"},
		{"invalid utf8", `printf 'a\377b\303\n'`, "a\uFFFDb\uFFFD\n"},
		{"multibyte", `printf 'h\303\251llo \342\202\254\n'`, "héllo €\n"},
		{"no trailing newline", `printf abc`, "abc"},
		{"stderr interleaved", `printf x; printf y >&2; printf z`, "xyz"},
		{"fake marker", `printf '\036wright-0000000042\036 after\n'`, "wright-0000000042 after\n"},
		{"empty", `true`, ""},
	}
	for _, tc := range tests {
		obs := st.run(tc.code)
		if got := output(obs); got != tc.want {
			t.Errorf("%s: output %q, want %q", tc.name, got, tc.want)
		}
		if rc(obs) != 0 {
			t.Errorf("%s: returncode %d", tc.name, rc(obs))
		}
	}
}

func TestStdinAndMultiline(t *testing.T) {
	t.Parallel()
	s := newShell(t, Options{})
	st := &stepper{t: t, s: s}
	wantOutput(t, st.run(`read x; echo "got:$x"`), "got:\n")
	wantOutput(t, st.run(`cat; python3 -c 'import sys; print(len(sys.stdin.read()))'`), "0\n")
	obs := st.run("cat > notes.txt <<'EOF'\nfirst $HOME\n  second\nEOF\nfor i in 1 2; do\n  echo \"n=$i\"\ndone\nwc -l < notes.txt\ncat notes.txt")
	wantOutput(t, obs, "n=1\nn=2\n2\nfirst $HOME\n  second\n")
	// A heredoc whose delimiter is the last line, without a newline.
	wantOutput(t, st.run("cat <<EOF\nx\nEOF"), "x\n")
	// Quotes and backslashes reach bash untouched.
	wantOutput(t, st.run(`echo 'single "double"' "it's" \\back`), `single "double" it's \back`+"\n")
}

func TestBackgroundOutputReachesNextStep(t *testing.T) {
	t.Parallel()
	s := newShell(t, Options{})
	st := &stepper{t: t, s: s}
	st.run(`(while [ ! -e go ]; do sleep 0.02; done; echo late from the background; echo > said) > /dev/tty 2>&1 &`)
	if err := os.WriteFile(filepath.Join(s.dir, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFile(t, filepath.Join(s.dir, "said"))
	obs := st.run("echo now")
	// bash may also report the finished job ("[1]+  Done ...") before the
	// command runs, depending on when the job ended.
	if out := output(obs); !strings.HasPrefix(out, "late from the background\n") || !strings.HasSuffix(out, "now\n") {
		t.Errorf("output %q", out)
	}
}

func TestCloseKillsBackground(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := New(context.Background(), Options{Dir: dir, Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	st := &stepper{t: t, s: s}
	// Each writes its pid as wright sees it (/proc is the host's; $$ and
	// $! are the shell's PID namespace's).
	st.run(`sh -c 'read p _ < /proc/self/stat; echo $p > bg.pid; exec sleep 1000' &
nohup sh -c 'read p _ < /proc/self/stat; echo $p > nohup.pid; exec sleep 1001' > /dev/null 2>&1 &
setsid sh -c 'read p _ < /proc/self/stat; echo $p > setsid.pid; exec sleep 1002' &
( sh -c 'read p _ < /proc/self/stat; echo $p > orphan.pid; exec sleep 1003' & )
env -u WRIGHT_SHELL_ID sh -c 'read p _ < /proc/self/stat; echo $p > untagged.pid; exec sleep 1004' &
env -i setsid sh -c 'read p _ < /proc/self/stat; echo $p > cleared.pid; exec sleep 1005' &`)
	names := []string{"bg", "nohup", "setsid", "orphan", "untagged", "cleared"}
	namespaced, _ := sandbox.PIDNamespaces()
	if !namespaced {
		// Without a namespace, a process that cleared its environment and
		// left the session is out of reach: only the namespace catches it.
		names = names[:len(names)-1]
		defer func() {
			_ = syscall.Kill(readPID(t, filepath.Join(dir, "cleared.pid")), syscall.SIGKILL)
		}()
	}
	pids := map[string]int{}
	for _, n := range names {
		pids[n] = readPID(t, filepath.Join(dir, n+".pid"))
		if !pidAlive(pids[n]) {
			t.Fatalf("%s process %d not running before Close", n, pids[n])
		}
	}
	// The shell dies and restarts. In a PID namespace of its own, its
	// jobs die with it; without one they live on until Close.
	st.run("exit 0")
	for _, n := range names {
		if pidAlive(pids[n]) == namespaced {
			t.Errorf("%s process %d: alive %v after the shell's exit, namespaced %v", n, pids[n], !namespaced, namespaced)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if pidAlive(pids[n]) {
			t.Errorf("%s process %d survived Close", n, pids[n])
			_ = exec.Command("kill", "-9", strconv.Itoa(pids[n])).Run()
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Execute(context.Background(), 9, "true"); err == nil {
		t.Error("Execute after Close succeeded")
	}
}

func TestCloseKillsUntaggedInLiveSession(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := New(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	st := &stepper{t: t, s: s}
	st.run(`env -u WRIGHT_SHELL_ID sh -c 'read p _ < /proc/self/stat; echo $p > untagged.pid; exec sleep 1004' &`)
	pid := readPID(t, filepath.Join(dir, "untagged.pid"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if pidAlive(pid) {
		t.Errorf("untagged job %d of the live session survived Close", pid)
		_ = exec.Command("kill", "-9", strconv.Itoa(pid)).Run()
	}
}

func TestCloseDuringExecute(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := New(context.Background(), Options{Dir: dir, Timeout: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	var execErr error
	go func() {
		defer wg.Done()
		_, execErr = s.Execute(context.Background(), 1, "read p _ < /proc/self/stat; echo $p > shell.pid; sleep 1000")
	}()
	pid := readPID(t, filepath.Join(dir, "shell.pid"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if execErr == nil {
		t.Error("Execute interrupted by Close returned no error")
	}
	if pidAlive(pid) {
		t.Errorf("shell %d survived Close", pid)
	}
}

func TestEnvironment(t *testing.T) {
	t.Setenv("WRIGHT_TEST_SECRET", "s3cret")
	t.Setenv("WRIGHT_TEST_VISIBLE", "shown")
	t.Setenv("SHELLOPTS", "xtrace") // would make the shell trace everything
	bin := t.TempDir()
	tool := filepath.Join(bin, "wright-test-tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho tool ran\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := newShell(t, Options{
		HideEnv:     []string{"WRIGHT_TEST_SECRET"},
		Env:         map[string]string{"TASK_JSON": `{"id": "t 1"}`, "WRIGHT_TEST_VISIBLE": "overridden"},
		PathPrepend: []string{bin},
	})
	st := &stepper{t: t, s: s}
	obs := st.run(`echo "secret=[${WRIGHT_TEST_SECRET-unset}]"; env | grep -c WRIGHT_TEST_SECRET
python3 -c 'import os; print("py", os.environ.get("WRIGHT_TEST_SECRET"))'
echo "task=$TASK_JSON visible=$WRIGHT_TEST_VISIBLE"
echo "tmp=$TMPDIR pager=$PAGER git=$GIT_PAGER term=$TERM"
echo "first=${PATH%%:*}"; wright-test-tool`)
	want := fmt.Sprintf("secret=[unset]\n0\npy None\ntask={\"id\": \"t 1\"} visible=overridden\ntmp=%s pager=cat git=cat term=dumb\nfirst=%s\ntool ran\n",
		filepath.Join(s.dir, "tmp"), bin)
	wantOutput(t, obs, want)
	if fi, err := os.Stat(filepath.Join(s.dir, "tmp")); err != nil || !fi.IsDir() {
		t.Errorf("tmp dir: %v", err)
	}
	if obs := st.run(`[ -n "$LANG$LC_ALL" ] && locale charmap`); !strings.Contains(output(obs), "UTF-8") {
		t.Errorf("no UTF-8 locale: %v", obs)
	}
}

func TestObservationFiles(t *testing.T) {
	t.Parallel()
	s := newShell(t, Options{RecentFiles: 2})
	st := &stepper{t: t, s: s}
	var script strings.Builder
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&script, "print(%d)\n", i)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "final_script.py"), []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	obs := st.run(`mkdir -p screenshots deep/er
touch -d '2020-01-01' old.txt screenshots/old.png
touch -d '2021-01-01' mid.txt screenshots/mid.png
touch -d '2022-01-01' deep/er/new.txt screenshots/new.jpg
touch -d '2030-01-01' tmp/hidden.txt
touch -d '2020-01-01' final_script.py
echo hi`)
	fs, _ := obs["final_script"].(string)
	if !strings.HasPrefix(fs, "print(1)\n") || !strings.Contains(fs, "print(40)\n... (10 more lines)") || strings.Contains(fs, "print(41)") {
		t.Errorf("final_script %q", fs)
	}
	if got := fmt.Sprint(obs["recent_screenshots"]); got != "[screenshots/new.jpg screenshots/mid.png]" {
		t.Errorf("recent_screenshots %s", got)
	}
	if got := fmt.Sprint(obs["recent_files"]); got != "[deep/er/new.txt mid.txt]" {
		t.Errorf("recent_files %s", got)
	}
	if obs["log_path"] != "logs/step_0001.log" {
		t.Errorf("log_path %v", obs["log_path"])
	}
	for _, k := range []string{"success", "returncode", "timed_out", "cwd", "command_output", "output_chars",
		"log_path", "shell_restarted", "elapsed_ms", "final_script", "recent_screenshots", "recent_files", "note"} {
		if _, ok := obs[k]; !ok {
			t.Errorf("observation lacks %q", k)
		}
	}
	if _, ok := obs["elapsed_ms"].(int64); !ok {
		t.Errorf("elapsed_ms is %T", obs["elapsed_ms"])
	}
	// Without a final script the preview is empty.
	if obs := st.run("rm final_script.py"); obs["final_script"] != "" {
		t.Errorf("final_script %q", obs["final_script"])
	}
	// The command may remove the shell's own directories; they come back.
	if obs := st.run("rm -rf steps logs && echo ok"); output(obs) != "ok\n" {
		t.Errorf("after removing steps/ and logs/: %v", obs)
	}
	wantOutput(t, st.run("echo again"), "again\n")
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		opts Options
		want string
	}{
		{"no dir", context.Background(), Options{}, "Dir is empty"},
		{"missing dir", context.Background(), Options{Dir: filepath.Join(file, "nope")}, "workspace"},
		{"dir is a file", context.Background(), Options{Dir: file}, "not a directory"},
		{"negative timeout", context.Background(), Options{Dir: t.TempDir(), Timeout: -1}, "negative Timeout"},
		{"negative limit", context.Background(), Options{Dir: t.TempDir(), OutputLimit: -1}, "negative OutputLimit"},
		{"negative recent", context.Background(), Options{Dir: t.TempDir(), RecentFiles: -1}, "negative RecentFiles"},
		{"bad env name", context.Background(), Options{Dir: t.TempDir(), Env: map[string]string{"A=B": "x"}}, "environment variable"},
		{"bad path entry", context.Background(), Options{Dir: t.TempDir(), PathPrepend: []string{"a:b"}}, "contains ':'"},
		{"cancelled", cancelled, Options{Dir: t.TempDir()}, "context canceled"},
	}
	for _, tc := range tests {
		s, err := New(tc.ctx, tc.opts)
		if err == nil {
			s.Close()
			t.Errorf("%s: New succeeded", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %q, want it to mention %q", tc.name, err, tc.want)
		}
	}

	s := newShell(t, Options{})
	if _, err := s.Execute(context.Background(), -1, "true"); err == nil {
		t.Error("negative step accepted")
	}
	// The shell is untouched by the refused call.
	st := &stepper{t: t, s: s}
	wantOutput(t, st.run("echo ok"), "ok\n")
}
