package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/trust/sandbox"
)

// The test binary stands in for wright inside a sandbox: run as
// `<test> sandbox-init ...` it is sandbox.Init.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		err := sandbox.Init(os.Args[2:])
		fmt.Fprintln(os.Stderr, err)
		os.Exit(126)
	}
	os.Exit(m.Run())
}

// testSandbox is a sandbox with dir writable, or a skip where bubblewrap
// cannot run.
func testSandbox(tb testing.TB, dir string) *sandbox.Spec {
	tb.Helper()
	if ok, why := sandbox.BwrapAvailable(); !ok {
		tb.Skip("bubblewrap cannot run here: " + why)
	}
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return &sandbox.Spec{Writable: []string{dir}, ReadOnly: []string{self}, Wright: self}
}

// The persistent shell works the same under bubblewrap: state carries
// over, a timeout stops the command and leaves the shell, an exit
// restarts it; and it is confined: only the workspace is writable, the
// host's processes are invisible, and what it starts (even `env -i
// setsid`) ends with it.
func TestSandboxedShell(t *testing.T) {
	dir := t.TempDir()
	box := testSandbox(t, dir)
	s := newShell(t, Options{Dir: dir, Sandbox: box, Timeout: 2 * time.Second})
	st := &stepper{t: t, s: s}

	obs := st.run("mkdir -p sub && cd sub && export KEEP=kept && echo pid=$$")
	if !strings.Contains(obs["command_output"].(string), fmt.Sprintf("pid=%d", sandbox.FirstPID)) {
		t.Errorf("the shell is not in a sandbox's PID namespace: %v", obs["command_output"])
	}
	obs = st.run("echo $KEEP; pwd")
	if out := obs["command_output"].(string); !strings.Contains(out, "kept") || !strings.Contains(out, filepath.Join(dir, "sub")) {
		t.Errorf("state did not carry over: %q", out)
	}
	if obs["cwd"] != filepath.Join(dir, "sub") {
		t.Errorf("cwd %v", obs["cwd"])
	}
	// The workspace's parent exists inside only as part of the private
	// /tmp: what is written there never reaches the host.
	outside := filepath.Join(filepath.Dir(dir), "probe-outside")
	obs = st.run(fmt.Sprintf(`touch /usr/probe 2>/dev/null && echo WROTE-USR
touch %q 2>/dev/null
ls /proc/%d >/dev/null 2>&1 && echo SEES-WRIGHT
echo inside > %q && echo ws-ok`, outside, os.Getpid(), filepath.Join(dir, "f")))
	if _, err := os.Stat(outside); err == nil {
		t.Error("a file written outside the workspace reached the host")
	}
	if out := obs["command_output"].(string); strings.Contains(out, "WROTE") || strings.Contains(out, "SEES") || !strings.Contains(out, "ws-ok") {
		t.Errorf("confinement: %q", out)
	}

	obs = st.run("sleep 30")
	if obs["timed_out"] != true || obs["shell_restarted"] != false {
		t.Errorf("timeout: %v", obs)
	}
	obs = st.run("echo $KEEP")
	if !strings.Contains(obs["command_output"].(string), "kept") {
		t.Errorf("the shell did not survive the timeout: %v", obs)
	}

	// The pattern is a regular expression: a bare 876.5 would also match
	// the random digits of a temporary path in the sandbox init's
	// arguments, and the loop would end before the sleep exists.
	st.run(`env -i /usr/bin/setsid /usr/bin/sleep 876.5 </dev/null >/dev/null 2>&1 &
while ! pgrep -f 'sleep 876[.]5' >/dev/null; do sleep 0.05; done`)
	if !waitStarted("876.5") {
		t.Fatal("the background sleep did not start")
	}
	obs = st.run("exit 3")
	if obs["returncode"] != 3 || obs["shell_restarted"] != true {
		t.Errorf("exit: %v", obs)
	}
	waitGone(t, "876.5")
	obs = st.run("echo again=$$; pwd")
	if out := obs["command_output"].(string); !strings.Contains(out, fmt.Sprintf("again=%d", sandbox.FirstPID)) {
		t.Errorf("restarted shell: %q", out)
	}
	st.run(`env -i /usr/bin/setsid /usr/bin/sleep 876.6 </dev/null >/dev/null 2>&1 &
while ! pgrep -f 'sleep 876[.]6' >/dev/null; do sleep 0.05; done`)
	if !waitStarted("876.6") {
		t.Fatal("the second background sleep did not start")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, "876.6")
}

// sleepersOf lists the processes running `sleep marker`.
func sleepersOf(marker string) []string {
	var out []string
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "sleep\x00"+marker+"\x00") {
			out = append(out, f)
		}
	}
	return out
}

// waitStarted gives a process the shell saw start a moment to be seen from
// outside the sandbox too (a loaded machine).
func waitStarted(marker string) bool {
	deadline := time.Now().Add(5 * time.Second)
	for len(sleepersOf(marker)) == 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func waitGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for len(sleepersOf(marker)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("processes with %s outlived their sandbox: %v", marker, sleepersOf(marker))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// BenchmarkPersistentShellSandboxed is BenchmarkPersistentShell under
// bubblewrap: the price of the sandbox on one step.
func BenchmarkPersistentShellSandboxed(b *testing.B) {
	dir := b.TempDir()
	s, err := New(context.Background(), Options{Dir: dir, Timeout: time.Minute, Sandbox: testSandbox(b, dir)})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		obs, err := s.Execute(ctx, i+1, "true")
		if err != nil || obs.Detail("returncode") != 0 {
			b.Fatalf("Execute: %v %v", obs, err)
		}
	}
}

// BenchmarkShellStartSandboxed is the start of a shell (to its first
// prompt) under bubblewrap; BenchmarkShellStart without.
func BenchmarkShellStartSandboxed(b *testing.B) {
	benchStart(b, true)
}

func BenchmarkShellStart(b *testing.B) {
	benchStart(b, false)
}

func benchStart(b *testing.B, boxed bool) {
	dir := b.TempDir()
	opts := Options{Dir: dir, Timeout: time.Minute}
	if boxed {
		opts.Sandbox = testSandbox(b, dir)
	}
	for range b.N {
		s, err := New(context.Background(), opts)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
