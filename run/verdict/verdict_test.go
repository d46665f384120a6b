package verdict

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/model"
	"wright/model/modeltest"
	"wright/run/gate"
)

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func pngBytes(t *testing.T, shade uint8) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{shade, 1, 2, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// makeRun writes a run folder as a final script leaves it.
func makeRun(t *testing.T, ws, name string) string {
	dir := filepath.Join(ws, gate.FinalRunsDir, name)
	writeFile(t, filepath.Join(dir, gate.FinalScriptName), []byte("print('hi')\n"))
	writeFile(t, filepath.Join(dir, gate.FinalLogName), []byte("step 1 action: open\n"))
	writeFile(t, filepath.Join(dir, gate.ScreenshotsDir, "final_execution_1_home.png"), pngBytes(t, 9))
	return dir
}

type fixture struct {
	ws     string
	sealer *Sealer
	judge  *Judge
	srv    *modeltest.Server
	gate   *gate.FileGate
	spent  model.Usage
}

func newFixture(t *testing.T, replies ...modeltest.Response) *fixture {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "task.json"), []byte(`{"task": "say hello"}`))
	srv := modeltest.New(t, replies...)
	client, err := model.New(model.Config{Name: "judge", BaseURL: srv.URL + "/v1", ResponseFormat: model.FormatNone,
		Retry: model.Retry{Attempts: 1}, Price: model.Price{Input: 1, Output: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSealer()
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{ws: ws, sealer: s, srv: srv}
	f.judge = &Judge{Workspace: ws, Client: client, Model: "judge", Sealer: s, OnUsage: func(u model.Usage) { f.spent = f.spent.Add(u) }}
	f.gate = gate.NewFileGate(ws)
	f.gate.Verify = func(data []byte, runPath string) error { return s.Verify(data, ws, runPath) }
	return f
}

func (f *fixture) check(t *testing.T) gate.Verdict {
	t.Helper()
	v, err := f.gate.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func success() []modeltest.Response {
	return []modeltest.Response{modeltest.Reply("Score: 5\nReasoning: fine").WithUsage(10, 5), modeltest.Reply("All good.\nStatus: success").WithUsage(10, 5)}
}

func TestSealedVerdictPasses(t *testing.T) {
	f := newFixture(t, success()...)
	makeRun(t, f.ws, "run_1")
	res := f.judge.Run(context.Background(), Request{})
	if res.Error != "" {
		t.Fatal(res.Error)
	}
	if v := f.check(t); !v.Pass {
		t.Fatalf("refused: %s", v.Message)
	}
	if f.spent.TotalTokens != 30 || f.spent.Cost == 0 {
		t.Errorf("judge usage not reported: %+v", f.spent)
	}
	var out map[string]any
	if err := json.Unmarshal(res.Verdict, &out); err != nil || out["predicted_label"] != float64(1) || out["seal"] == nil {
		t.Errorf("verdict file contract: %v %s", err, res.Verdict)
	}
}

// One bash step that wrote a 1x1 PNG, a log and a verdict with
// predicted_label 1 used to pass done with no judge call at all.
func TestForgedVerdictIsRefused(t *testing.T) {
	f := newFixture(t)
	dir := makeRun(t, f.ws, "run_1")
	writeFile(t, filepath.Join(dir, gate.VerdictName), []byte(`{"predicted_label": 1, "final_response": "Status: success", "image_paths": ["final_runs/run_1/screenshots/final_execution_1_home.png"]}`))
	v := f.check(t)
	if v.Pass || !strings.Contains(v.Message, "not written by this run's harness") {
		t.Fatalf("forged verdict: pass %v: %s", v.Pass, v.Message)
	}
	// A seal made up by the model does not help.
	writeFile(t, filepath.Join(dir, gate.VerdictName), []byte(`{"predicted_label": 1, "image_paths": ["final_runs/run_1/screenshots/final_execution_1_home.png"], "seal": {"run_dir": "final_runs/run_1", "files": {}, "mac": "00"}}`))
	if v := f.check(t); v.Pass || !strings.Contains(v.Message, "does not match") {
		t.Fatalf("forged seal: pass %v: %s", v.Pass, v.Message)
	}
}

func TestEditedVerdictIsRefused(t *testing.T) {
	f := newFixture(t, modeltest.Reply("Score: 1\nReasoning: error page"), modeltest.Reply("Status: failure"))
	dir := makeRun(t, f.ws, "run_1")
	if res := f.judge.Run(context.Background(), Request{}); res.Error != "" {
		t.Fatal(res.Error)
	}
	p := filepath.Join(dir, gate.VerdictName)
	data, _ := os.ReadFile(p)
	edited := bytes.Replace(data, []byte(`"predicted_label": 0`), []byte(`"predicted_label": 1`), 1)
	if bytes.Equal(edited, data) {
		t.Fatalf("no label to edit in %s", data)
	}
	writeFile(t, p, edited)
	if v := f.check(t); v.Pass || !strings.Contains(v.Message, "edited") {
		t.Fatalf("edited verdict: pass %v: %s", v.Pass, v.Message)
	}
}

func TestRunChangedAfterJudgingIsRefused(t *testing.T) {
	for _, change := range []struct {
		name string
		do   func(t *testing.T, dir string)
		want string
	}{
		{"screenshot replaced", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, gate.ScreenshotsDir, "final_execution_1_home.png"), pngBytes(t, 200))
		}, "screenshots/final_execution_1_home.png was modified"},
		{"log edited", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, gate.FinalLogName), []byte("ANSWER: 42\n"))
		}, "final_script_log.txt was modified"},
		{"screenshot added", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, gate.ScreenshotsDir, "final_execution_2_more.png"), pngBytes(t, 100))
		}, "was added"},
	} {
		t.Run(change.name, func(t *testing.T) {
			f := newFixture(t, success()...)
			dir := makeRun(t, f.ws, "run_1")
			if res := f.judge.Run(context.Background(), Request{}); res.Error != "" {
				t.Fatal(res.Error)
			}
			change.do(t, dir)
			if v := f.check(t); v.Pass || !strings.Contains(v.Message, change.want) {
				t.Fatalf("pass %v: %s", v.Pass, v.Message)
			}
		})
	}
}

// A verdict copied, with its run's files, into a newer run folder.
func TestReplayedVerdictIsRefused(t *testing.T) {
	f := newFixture(t, success()...)
	makeRun(t, f.ws, "run_1")
	if res := f.judge.Run(context.Background(), Request{}); res.Error != "" {
		t.Fatal(res.Error)
	}
	src := filepath.Join(f.ws, gate.FinalRunsDir, "run_1")
	dst := filepath.Join(f.ws, gate.FinalRunsDir, "run_2")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if v := f.check(t); v.Pass || !strings.Contains(v.Message, "cannot be copied") {
		t.Fatalf("replayed verdict: pass %v: %s", v.Pass, v.Message)
	}
	// And a verdict from another run of wright (another key).
	other, _ := NewSealer()
	f.gate.Verify = func(data []byte, runPath string) error { return other.Verify(data, f.ws, runPath) }
	os.RemoveAll(dst)
	if v := f.check(t); v.Pass || !strings.Contains(v.Message, "another run") {
		t.Fatalf("other key: pass %v: %s", v.Pass, v.Message)
	}
}

// The socket round trip `wright reflect` uses, with a path outside the
// workspace refused before any judge call.
func TestServeAndAsk(t *testing.T) {
	f := newFixture(t, success()...)
	makeRun(t, f.ws, "run_1")
	sock := filepath.Join(t.TempDir(), "h.sock")
	srv, err := Serve(context.Background(), sock, f.judge)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	res, err := Ask(context.Background(), sock, Request{RunDir: "../elsewhere"})
	if err != nil || !res.Config || !strings.Contains(res.Error, "outside the workspace") {
		t.Fatalf("outside: %v %+v", err, res)
	}
	res, err = Ask(context.Background(), sock, Request{RunsDir: gate.FinalRunsDir})
	if err != nil || res.Error != "" || !strings.HasSuffix(res.Path, filepath.Join("run_1", gate.VerdictName)) {
		t.Fatalf("%v %+v", err, res)
	}
	if v := f.check(t); !v.Pass {
		t.Fatalf("refused: %s", v.Message)
	}
	if n := f.srv.Calls(); n != 2 {
		t.Errorf("%d judge calls, want 2", n)
	}
}
