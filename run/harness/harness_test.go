package harness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"wright/demo"
	"wright/model"
	"wright/model/modeltest"
	"wright/run/agent"
	"wright/run/config"
	"wright/run/harness"
	"wright/run/rundir"
)

// wrightBin is the wright binary the model's shell calls (`wright
// reflect`, `wright driver`), built once for the package.
var wrightBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wright-harness-bin-")
	if err != nil {
		panic(err)
	}
	wrightBin = filepath.Join(dir, "wright")
	if out, err := exec.Command("go", "build", "-o", wrightBin, "../../cmd/wright").CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic("build wright: " + err.Error() + "\n" + string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const testKey = "sk-wright-harness-0123456789abcdef"

// demoRun is one of the runs going on at once, with everything of its own:
// the shop it browses, the scripted agent and the scripted judge.
type demoRun struct {
	i            int
	site         string
	agent, judge *modeltest.Server
	h            *harness.Harness
	events       []agent.Event
	mu           sync.Mutex
	res          rundir.Result
	err          error
}

func newDemoRun(t *testing.T, i int, outDir string) *demoRun {
	site, stop, err := demo.Serve()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	d := &demoRun{i: i, site: site}
	var judgeScript []modeltest.Response
	for _, reply := range demo.JudgeReplies {
		judgeScript = append(judgeScript, modeltest.Reply(reply.Content))
	}
	d.judge = modeltest.New(t, judgeScript...)
	// The first step reports what this run's shell sees; the rest is the
	// demo's recorded solution, then done.
	script := []modeltest.Response{modeltest.Bash("where am I?",
		`echo "run=`+strconv.Itoa(i)+` ws=$WORKSPACE_DIR sock=$WRIGHT_MODEL_SOCKET task=$(cat "$TASK_JSON")"`)}
	for _, a := range demo.Script[:len(demo.Script)-1] {
		script = append(script, modeltest.Bash(a.Thought, a.BashCommand))
	}
	script = append(script, modeltest.Done(model.FieldBash, "judged and done", "$39.99"))
	d.agent = modeltest.New(t, script...)

	cfg, err := config.Load([]string{
		"gate.model={name: judge-" + strconv.Itoa(i) + ", base_url: " + strconv.Quote(d.judge.URL+"/v1") + "}",
		"model.retry={attempts: 2, initial_delay_seconds: 0.01, max_delay_seconds: 0.02}",
	}, map[string]any{"model.name": "agent-" + strconv.Itoa(i), "model.base_url": d.agent.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	d.h, err = harness.Build(cfg, harness.Options{
		OutputDir:  outDir,
		Executable: wrightBin,
		Observer: agent.ObserverFunc(func(e agent.Event) {
			d.mu.Lock()
			d.events = append(d.events, e)
			d.mu.Unlock()
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestThreeRunsAtOnce runs three demo tasks in one process at the same
// time, each with its own shop, agent and judge, and checks that nothing
// crossed: run directories, workspaces, task files, key-proxy sockets,
// browsers (each saw only its own shop), model endpoints and progress.
func TestThreeRunsAtOnce(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", testKey)
	out := t.TempDir() // one output directory for all: names must not clash
	var ds []*demoRun
	for i := 1; i <= 3; i++ {
		ds = append(ds, newDemoRun(t, i, out))
	}
	var wg sync.WaitGroup
	for _, d := range ds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The same task id for all three: the harness must still give
			// each run its own directory.
			d.res, d.err = d.h.Run(context.Background(), harness.Task{ID: "demo", Text: fmt.Sprintf("%s (run %d)", demo.Task, d.i), StartURL: d.site})
		}()
	}
	wg.Wait()

	dirs := map[string]bool{}
	socks := map[string]bool{}
	for _, d := range ds {
		if d.err != nil || d.res.ExitStatus != agent.Submitted {
			t.Fatalf("run %d: %v, %s: %s", d.i, d.err, d.res.ExitStatus, d.res.Message)
		}
		if dirs[d.res.RunDir] {
			t.Fatalf("two runs shared %s", d.res.RunDir)
		}
		dirs[d.res.RunDir] = true
		if d.res.GateLabel == nil || *d.res.GateLabel != 1 || d.res.GateRun == nil || *d.res.GateRun != 1 {
			t.Errorf("run %d: gate label %v run %v, want 1 and 1", d.i, d.res.GateLabel, d.res.GateRun)
		}
		if got, want := d.agent.Calls(), len(demo.Script)+1; got != want {
			t.Errorf("run %d: its agent got %d calls, want %d", d.i, got, want)
		}
		if got := d.judge.Calls(); got != len(demo.JudgeReplies) {
			t.Errorf("run %d: its judge got %d calls, want %d", d.i, got, len(demo.JudgeReplies))
		}
		seen := stepLogs(t, d)
		ws := filepath.Join(d.res.RunDir, "workspace")
		first := fmt.Sprintf("run=%d ws=%s sock=", d.i, ws)
		if !strings.Contains(seen, first) || !strings.Contains(seen, fmt.Sprintf("(run %d)", d.i)) {
			t.Errorf("run %d: its shell did not see its own workspace and task:\n%s", d.i, seen)
		}
		sock := between(seen, first, " task=")
		if sock == "" || socks[sock] {
			t.Errorf("run %d: key-proxy socket %q missing or shared", d.i, sock)
		}
		socks[sock] = true
		if _, err := os.Stat(filepath.Dir(sock)); !os.IsNotExist(err) {
			t.Errorf("run %d: the proxy's temp dir %s outlived the run", d.i, filepath.Dir(sock))
		}
		for _, o := range ds {
			if o != d && (strings.Contains(seen, o.site) || strings.Contains(seen, o.res.RunDir+string(filepath.Separator))) {
				t.Errorf("run %d saw run %d's shop or directory", d.i, o.i)
			}
		}
		if !strings.Contains(seen, "url: "+d.site+"search.html") {
			t.Errorf("run %d: its browser did not search its own shop:\n%s", d.i, seen)
		}
		checkEvents(t, d)
		checkResultFile(t, d)
	}
	if procs := processesMentioning(out); len(procs) > 0 {
		t.Errorf("processes left behind: %v", procs)
	}
}

// stepLogs is the whole output of every step the run's shell ran.
func stepLogs(t *testing.T, d *demoRun) string {
	logs, _ := filepath.Glob(filepath.Join(d.res.RunDir, "workspace", "logs", "step_*.log"))
	if len(logs) != len(demo.Script) {
		t.Errorf("run %d: %d step logs, want %d", d.i, len(logs), len(demo.Script))
	}
	var b strings.Builder
	for _, l := range logs {
		data, _ := os.ReadFile(l)
		b.Write(data)
	}
	return b.String()
}

func between(s, start, end string) string {
	_, rest, ok := strings.Cut(s, start)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, end)
	return v
}

func checkEvents(t *testing.T, d *demoRun) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	steps := 0
	for _, e := range d.events {
		if e.RunDir != d.res.RunDir {
			t.Errorf("run %d heard an event of %s", d.i, e.RunDir)
		}
		if e.Kind == agent.StepEnded {
			steps++
		}
	}
	if len(d.events) == 0 || d.events[0].Kind != agent.RunStarted || d.events[len(d.events)-1].Kind != agent.RunEnded {
		t.Fatalf("run %d: events do not start and end the run: %v", d.i, d.events)
	}
	end := d.events[len(d.events)-1]
	if steps != len(demo.Script) || end.Status != string(agent.Submitted) || end.Usage.TotalTokens == 0 {
		t.Errorf("run %d: %d step ends, last event %+v", d.i, steps, end)
	}
}

func checkResultFile(t *testing.T, d *demoRun) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(d.res.RunDir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["gate_label"] != 1.0 || got["gate_run"] != 1.0 || got["run_dir"] != d.res.RunDir {
		t.Errorf("run %d: result.json %s", d.i, b)
	}
}

// processesMentioning lists processes whose command line names path.
func processesMentioning(path string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), path) {
			out = append(out, strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
