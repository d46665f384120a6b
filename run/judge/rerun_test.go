package judge

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"wright/model/modeltest"
	"wright/run/gate"
)

// shotScript is a real final_script.py: it writes two PNG screenshots (made
// with zlib, no browser needed) into $RUN_DIR/screenshots, prints its
// answer, and exits with the code in argv or 0. It also records the
// environment it saw, so the test can check the gate's variables.
const shotScript = `import os, sys, struct, zlib

def png(path, shade):
    w, h = 4, 3
    raw = b"".join(b"\x00" + bytes([shade, 80, 160]) * w for _ in range(h))
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

if "--help" in sys.argv:
    print("usage: final_script.py [--help]")
    sys.exit(HELP_EXIT)
run = os.environ["RUN_DIR"]
assert os.environ["WRIGHT_RUN_DIR"] == run
shots = os.path.join(run, "screenshots")
os.makedirs(shots, exist_ok=True)
png(os.path.join(shots, "final_execution_1_home.png"), 10)
png(os.path.join(shots, "final_execution_2_answer.png"), 200)
print("cwd", os.getcwd())
print("trace", os.environ.get("WRIGHT_TRACE", "-"))
print("video dir [" + os.environ.get("WRIGHT_VIDEO", "") + "]")
print("ANSWER: 42")
sys.stdout.flush()
if EXIT_CODE:
    print("Traceback (most recent call last):\nValueError: the price was not found", file=sys.stderr)
sys.exit(EXIT_CODE)
`

func writeScript(t *testing.T, ws string, exitCode, helpExit int) {
	t.Helper()
	src := strings.ReplaceAll(shotScript, "HELP_EXIT", strconv.Itoa(helpExit))
	src = strings.ReplaceAll(src, "EXIT_CODE", strconv.Itoa(exitCode))
	writeFile(t, filepath.Join(ws, gate.FinalScriptName), []byte(src))
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not in PATH")
	}
}

func TestRerunGatePass(t *testing.T) {
	needPython(t)
	ws := t.TempDir()
	makeRun(t, ws, "run_2", "final_execution_1_old.png") // the gate makes run_3
	writeScript(t, ws, 0, 0)
	srv := modeltest.New(t,
		modeltest.Reply("Score: 4\nReasoning: home"),
		modeltest.Reply("Score: 5\nReasoning: answer visible"),
		modeltest.Reply("Status: success"),
	)
	g := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Judge: &RunJudge{Client: judgeClient(t, srv.URL), Options: ReflectOptions{Concurrency: 1}}})
	v, err := g.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Pass {
		t.Fatalf("refused: %s", v.Message)
	}
	run := filepath.Join(ws, gate.FinalRunsDir, "run_3")
	log, _ := os.ReadFile(filepath.Join(run, gate.FinalLogName))
	if !strings.Contains(string(log), "ANSWER: 42") || !strings.Contains(string(log), "cwd "+ws) {
		t.Errorf("log: %q", log)
	}
	if _, err := os.Stat(filepath.Join(run, gate.FinalScriptName)); err != nil {
		t.Error("the script was not copied into the run folder")
	}
	// The verdict the gate wrote satisfies the file gate too.
	if fv, _ := gate.NewFileGate(ws).Check(context.Background()); !fv.Pass {
		t.Errorf("file gate refuses the rerun gate's run: %s", fv.Message)
	}
	if n := len(srv.Requests()[2].Chat().Messages[1].ImageURLs()); n != 2 {
		t.Errorf("the judge saw %d screenshots, want the new run's 2", n)
	}
}

// TestRerunGateTrace: with Trace, the run is told (WRIGHT_TRACE) to record
// its Playwright trace into its own folder; without, it is not.
func TestRerunGateTrace(t *testing.T) {
	needPython(t)
	for _, traced := range []bool{true, false} {
		ws := t.TempDir()
		writeScript(t, ws, 0, 0)
		srv := modeltest.New(t, modeltest.Reply("Score: 4\nReasoning: a"), modeltest.Reply("Score: 5\nReasoning: b"),
			modeltest.Reply("Status: success"))
		g := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Trace: traced,
			Judge: &RunJudge{Client: judgeClient(t, srv.URL), Options: ReflectOptions{Concurrency: 1}}})
		if _, err := g.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
		log, _ := os.ReadFile(filepath.Join(ws, gate.FinalRunsDir, "run_1", gate.FinalLogName))
		want := "trace -"
		if traced {
			want = "trace " + filepath.Join(ws, gate.FinalRunsDir, "run_1", gate.TraceName)
		}
		if !strings.Contains(string(log), want+"\n") {
			t.Errorf("traced=%v: the log lacks %q:\n%s", traced, want, log)
		}
	}
}

func TestRerunGateScriptFails(t *testing.T) {
	needPython(t)
	ws := t.TempDir()
	writeScript(t, ws, 3, 0)
	srv := modeltest.New(t) // the judge must not be asked
	v, err := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Judge: &RunJudge{Client: judgeClient(t, srv.URL)}}).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ran final_script.py from scratch into final_runs/run_1", "exited with code 3", "ValueError: the price was not found", "ANSWER: 42", "run_2"} {
		if !strings.Contains(v.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, v.Message)
		}
	}
	if v.Pass || srv.Calls() != 0 {
		t.Errorf("pass %v, judge calls %d", v.Pass, srv.Calls())
	}
}

func TestRerunGateJudgeSaysFailure(t *testing.T) {
	needPython(t)
	ws := t.TempDir()
	writeScript(t, ws, 0, 0)
	srv := modeltest.New(t,
		modeltest.Reply("Score: 2\nReasoning: x").Forever(), // stage 2 too: no Status line
	)
	v, err := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Judge: &RunJudge{Client: judgeClient(t, srv.URL)}}).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v.Pass || !strings.Contains(v.Message, "no verdict") || !strings.Contains(v.Message, "Score: 2") {
		t.Errorf("message:\n%s", v.Message)
	}

	srv2 := modeltest.New(t, modeltest.Reply("Score: 2\nReasoning: x"), modeltest.Reply("Score: 2\nReasoning: y"),
		modeltest.Reply("The answer 42 is not on any screenshot.\nStatus: failure"))
	v, err = gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Judge: &RunJudge{Client: judgeClient(t, srv2.URL)}}).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"into final_runs/run_2 (exit 0)", "verdict is failure", "The answer 42 is not on any screenshot.", "run_3"} {
		if !strings.Contains(v.Message, want) {
			t.Errorf("message lacks %q:\n%s", want, v.Message)
		}
	}
}

func TestRerunGateNoScreenshots(t *testing.T) {
	needPython(t)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, gate.FinalScriptName), []byte("print('did it')\n"))
	srv := modeltest.New(t)
	v, err := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Judge: &RunJudge{Client: judgeClient(t, srv.URL)}}).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v.Pass || !strings.Contains(v.Message, "nothing for the judge to look at") || !strings.Contains(v.Message, "$RUN_DIR/screenshots/") {
		t.Errorf("message:\n%s", v.Message)
	}
}

func TestRerunGateCrafted(t *testing.T) {
	needPython(t)
	ws := t.TempDir()
	writeScript(t, ws, 0, 2)
	srv := modeltest.New(t)
	v, err := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Judge: &RunJudge{Client: judgeClient(t, srv.URL)}, Crafted: true}).Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v.Pass || !strings.Contains(v.Message, "--help` and it exited with code 2") || !strings.Contains(v.Message, "usage: final_script.py") {
		t.Errorf("message:\n%s", v.Message)
	}

	writeScript(t, ws, 0, 0)
	srv = modeltest.New(t, modeltest.Reply("Score: 5\nReasoning: ok"), modeltest.Reply("Score: 5\nReasoning: ok"), modeltest.Reply("Status: success"))
	v, err = gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Judge: &RunJudge{Client: judgeClient(t, srv.URL)}, Crafted: true}).Check(context.Background())
	if err != nil || !v.Pass {
		t.Errorf("crafted pass: %+v %v", v, err)
	}
}

// A script that hangs is stopped at the timeout, with every process it
// started, and the refusal says so.
func TestRerunGateTimeout(t *testing.T) {
	needPython(t)
	ws := t.TempDir()
	pidFile := filepath.Join(ws, "child.pid")
	writeFile(t, filepath.Join(ws, gate.FinalScriptName), []byte(`import os, subprocess, sys, time
# The pid as wright sees it: /proc is the host's, the script may be in a
# PID namespace of its own.
child = subprocess.Popen(["sh", "-c", "read p _ < /proc/self/stat; echo $p > child.pid.tmp; mv child.pid.tmp child.pid; exec sleep 300"])
while not os.path.exists("child.pid"):
    time.sleep(0.01)
print("waiting for a page that never loads", flush=True)
time.sleep(300)
`))
	srv := modeltest.New(t)
	// The timeout leaves a loaded machine time to start Python and its
	// child before the script hangs on purpose.
	g := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Judge: &RunJudge{Client: judgeClient(t, srv.URL)}, Timeout: 15 * time.Second})
	v, err := g.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v.Pass || !strings.Contains(v.Message, "did not finish within 15s and was stopped") || !strings.Contains(v.Message, "waiting for a page that never loads") {
		t.Errorf("message:\n%s", v.Message)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(data))
	// The grandchild dies (it may linger as a zombie until init reaps it).
	// A SIGKILL takes a moment to land, hence the wait; the bound is only
	// there so a survivor fails the test instead of hanging it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the script's child %s survived the timeout: %s", pid, st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRerunGateNoScript(t *testing.T) {
	srv := modeltest.New(t)
	v, err := gate.NewRerunGate(gate.RerunOptions{Workspace: t.TempDir(), Judge: &RunJudge{Client: judgeClient(t, srv.URL)}}).Check(context.Background())
	if err != nil || v.Pass || !strings.Contains(v.Message, "There is no final_script.py") {
		t.Errorf("%+v %v", v, err)
	}
	if _, err := gate.NewRerunGate(gate.RerunOptions{Workspace: t.TempDir()}).Check(context.Background()); err == nil {
		t.Error("no client must be an error")
	}
}

// gate.video: the script's driver is asked (WRIGHT_VIDEO) to film every
// page into the run's video folder; without it, nothing is asked.
func TestRerunGateVideo(t *testing.T) {
	needPython(t)
	for _, on := range []bool{false, true} {
		ws := t.TempDir()
		writeScript(t, ws, 0, 0)
		srv := modeltest.New(t,
			modeltest.Reply("Score: 4\nReasoning: home"),
			modeltest.Reply("Score: 5\nReasoning: answer visible"),
			modeltest.Reply("Status: success"),
		)
		g := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Video: on, Env: []string{"PATH=" + os.Getenv("PATH"), "WRIGHT_VIDEO="},
			Judge: &RunJudge{Client: judgeClient(t, srv.URL), Options: ReflectOptions{Concurrency: 1}}})
		if _, err := g.Check(context.Background()); err != nil {
			t.Fatal(err)
		}
		run := filepath.Join(ws, gate.FinalRunsDir, "run_1")
		log, _ := os.ReadFile(filepath.Join(run, gate.FinalLogName))
		want := "video dir []"
		if on {
			want = "video dir [" + filepath.Join(run, gate.VideoDir) + "]"
		}
		if !strings.Contains(string(log), want) {
			t.Errorf("video %v: log %q lacks %q", on, log, want)
		}
	}
}
