package gate

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFileGate(t *testing.T) {
	shots := []string{"final_execution_1_home.png", "final_execution_2_result.png"}
	cases := []struct {
		name  string
		setup func(t *testing.T, ws string) // ws exists and is empty
		pass  bool
		want  []string // substrings of the refusal
	}{
		{
			name: "pass",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_1", shots...)
				writeVerdict(t, ws, "run_1", "1", "Status: success", nil)
			},
			pass: true,
		},
		{
			name:  "no final_runs",
			setup: func(t *testing.T, ws string) {},
			want:  []string{"no final_runs/ folder", "mkdir -p final_runs/run_1", "RUN_DIR=", "reflect --workspace-dir", "final_runs/run_1/self_reflect_result.json"},
		},
		{
			name: "no run folders",
			setup: func(t *testing.T, ws string) {
				writeFile(t, filepath.Join(ws, FinalRunsDir, "notes.txt"), []byte("x"))
				os.MkdirAll(filepath.Join(ws, FinalRunsDir, "run_x"), 0o755)
				os.MkdirAll(filepath.Join(ws, FinalRunsDir, "old_run_4"), 0o755)
			},
			want: []string{"holds no run_<N> folder", "final_runs/run_1"},
		},
		{
			name:  "no verdict",
			setup: func(t *testing.T, ws string) { makeRun(t, ws, "run_2", shots...) },
			want:  []string{"final_runs/run_2, has no judge verdict", "final_runs/run_2/self_reflect_result.json is missing", "Judge it now", "reflect --workspace-dir", "--output " + "WS/final_runs/run_2/self_reflect_result.json"},
		},
		{
			name:  "no verdict and no screenshots",
			setup: func(t *testing.T, ws string) { makeRun(t, ws, "run_1") },
			want:  []string{"has no judge verdict", "holds no screenshots", "$RUN_DIR/screenshots/", "final_runs/run_2"},
		},
		{
			name: "unreadable verdict",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_1", shots...)
				writeFile(t, filepath.Join(ws, FinalRunsDir, "run_1", VerdictName), []byte(`{"predicted_label": 1,`))
			},
			want: []string{"is not a valid verdict", "unexpected end of JSON input", "Do not write this file by hand", "reflect --workspace-dir"},
		},
		{
			name: "label of the wrong type",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_1", shots...)
				writeVerdict(t, ws, "run_1", `"yes"`, "", nil)
			},
			want: []string{"predicted_label must be 1, 0 or null, found \"yes\""},
		},
		{
			name: "label missing",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_1", shots...)
				writeFile(t, filepath.Join(ws, FinalRunsDir, "run_1", VerdictName), []byte(`{"final_response": "x"}`))
			},
			want: []string{"has no predicted_label field"},
		},
		{
			name: "label 0",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_3", shots...)
				writeVerdict(t, ws, "run_3", "0", "The cart page shows 2 items, the task asked for 3.\nStatus: failure", nil)
			},
			want: []string{"verdict on final_runs/run_3 is failure (predicted_label: 0)", "The cart page shows 2 items, the task asked for 3.", "Fix final_script.py", "mkdir -p final_runs/run_4", "final_runs/run_4/self_reflect_result.json"},
		},
		{
			name: "label null",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_1", shots...)
				writeVerdict(t, ws, "run_1", "null", "I am not sure what happened.", nil)
			},
			want: []string{"predicted_label: null", "no readable \"Status: success|failure\" line", "I am not sure what happened.", "final_runs/run_2"},
		},
		{
			name: "stale: screenshot touched after the verdict",
			setup: func(t *testing.T, ws string) {
				dir := makeRun(t, ws, "run_1", shots...)
				writeVerdict(t, ws, "run_1", "1", "Status: success", nil)
				setTime(t, filepath.Join(dir, ScreenshotsDir, shots[1]), base.Add(time.Minute))
			},
			want: []string{"is stale", "final_runs/run_1/screenshots/final_execution_2_result.png was modified after self_reflect_result.json", "final_runs/run_2"},
		},
		{
			name: "stale: log rewritten after the verdict",
			setup: func(t *testing.T, ws string) {
				dir := makeRun(t, ws, "run_1", shots...)
				writeVerdict(t, ws, "run_1", "1", "Status: success", nil)
				setTime(t, filepath.Join(dir, FinalLogName), base.Add(time.Minute))
			},
			want: []string{"is stale", "final_runs/run_1/final_script_log.txt was modified after"},
		},
		{
			name: "stale: script replaced after the verdict",
			setup: func(t *testing.T, ws string) {
				dir := makeRun(t, ws, "run_1", shots...)
				writeVerdict(t, ws, "run_1", "1", "Status: success", nil)
				setTime(t, filepath.Join(dir, FinalScriptName), base.Add(time.Minute))
			},
			want: []string{"is stale", "final_runs/run_1/final_script.py was modified after"},
		},
		{
			name: "stale even when the verdict is a failure",
			setup: func(t *testing.T, ws string) {
				dir := makeRun(t, ws, "run_1", shots...)
				writeVerdict(t, ws, "run_1", "0", "Status: failure", nil)
				setTime(t, filepath.Join(dir, ScreenshotsDir, shots[0]), base.Add(time.Minute))
			},
			want: []string{"is stale"},
		},
		{
			name: "a verdict on a run without screenshots",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_1")
				writeVerdict(t, ws, "run_1", "1", "Status: success", nil)
			},
			want: []string{"final_runs/run_1 holds no screenshots, so no judge can have seen the run", "final_runs/run_2"},
		},
		{
			name: "image_paths from an older run",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_1", shots...)
				makeRun(t, ws, "run_2", shots...)
				writeVerdict(t, ws, "run_2", "1", "Status: success", []string{
					"final_runs/run_1/screenshots/final_execution_1_home.png",
					"final_runs/run_1/screenshots/final_execution_2_result.png",
				})
			},
			want: []string{"did not judge that run's screenshots", "not screenshots of final_runs/run_2: final_runs/run_1/screenshots/final_execution_1_home.png", "did not see these screenshots of final_runs/run_2: screenshots/final_execution_1_home.png, screenshots/final_execution_2_result.png"},
		},
		{
			name: "image_paths missing a screenshot",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_1", shots...)
				writeVerdict(t, ws, "run_1", "1", "Status: success", []string{"final_runs/run_1/screenshots/final_execution_1_home.png"})
			},
			want: []string{"did not see these screenshots of final_runs/run_1: screenshots/final_execution_2_result.png"},
		},
		{
			name: "absolute image_paths are fine",
			setup: func(t *testing.T, ws string) {
				dir := makeRun(t, ws, "run_1", shots...)
				writeVerdict(t, ws, "run_1", "1", "Status: success", []string{
					filepath.Join(dir, ScreenshotsDir, shots[0]), filepath.Join(dir, ScreenshotsDir, shots[1]),
				})
			},
			pass: true,
		},
		{
			name: "newest is run_10, not run_9",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_9", shots...)
				writeVerdict(t, ws, "run_9", "1", "Status: success", nil)
				makeRun(t, ws, "run_10", shots...)
			},
			want: []string{"final_runs/run_10, has no judge verdict"},
		},
		{
			name: "run_003 is 3, older than run_10",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_003", shots...)
				makeRun(t, ws, "run_10", shots...)
				writeVerdict(t, ws, "run_10", "1", "Status: success", nil)
			},
			pass: true,
		},
		{
			name: "run_004 is newer than run_3",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_3", shots...)
				writeVerdict(t, ws, "run_3", "1", "Status: success", nil)
				makeRun(t, ws, "run_004", shots...)
				writeVerdict(t, ws, "run_004", "0", "Status: failure", nil)
			},
			want: []string{"verdict on final_runs/run_004 is failure", "final_runs/run_5"},
		},
		{
			name: "run_3 and run_003 clash",
			setup: func(t *testing.T, ws string) {
				makeRun(t, ws, "run_3", shots...)
				makeRun(t, ws, "run_003", shots...)
				writeVerdict(t, ws, "run_3", "1", "Status: success", nil)
			},
			want: []string{"two folders numbered 3 (run_003 and run_3)", "final_runs/run_4"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			tc.setup(t, ws)
			v, err := NewFileGate(ws).Check(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if v.Pass != tc.pass {
				t.Fatalf("pass = %v, want %v; message:\n%s", v.Pass, tc.pass, v.Message)
			}
			if tc.pass {
				if v.Message != "" {
					t.Errorf("a pass carries a message: %q", v.Message)
				}
				return
			}
			msg := strings.ReplaceAll(v.Message, ws, "WS")
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message lacks %q:\n%s", w, msg)
				}
			}
		})
	}
}

func TestFileGateWorkspaceProblems(t *testing.T) {
	v, err := NewFileGate("").Check(context.Background())
	if err != nil || v.Pass || !strings.Contains(v.Message, "no workspace directory") {
		t.Errorf("empty workspace: %+v, %v", v, err)
	}
	missing := filepath.Join(t.TempDir(), "gone")
	v, err = NewFileGate(missing).Check(context.Background())
	if err != nil || v.Pass || !strings.Contains(v.Message, "does not exist") || !strings.Contains(v.Message, "mkdir -p "+missing) {
		t.Errorf("missing workspace: %+v, %v", v, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewFileGate(t.TempDir()).Check(ctx); err == nil {
		t.Error("a cancelled context should be an error")
	}
}

// The suggested command names the workspace's own judge config when there
// is one, and quotes a path with spaces so it pastes into bash.
func TestFileGateCommandLine(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "my work")
	makeRun(t, ws, "run_1", "final_execution_1_a.png")
	writeFile(t, filepath.Join(ws, ReflectConfig), []byte("{}"))
	g := NewFileGate(ws)
	g.Command = "./wright"
	v, _ := g.Check(context.Background())
	want := "./wright reflect --workspace-dir '" + ws + "' --config '" + filepath.Join(ws, ReflectConfig) +
		"' --auto-latest-run final_runs --output '" + filepath.Join(ws, "final_runs/run_1/self_reflect_result.json") + "'"
	if !strings.Contains(v.Message, want) {
		t.Errorf("message lacks\n  %s\n%s", want, v.Message)
	}
}

// A relative workspace is made absolute, so the command lines work from any
// directory the model's shell is in.
func TestFileGateRelativeWorkspace(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	makeRun(t, "ws", "run_1", "final_execution_1_a.png")
	v, _ := NewFileGate("ws").Check(context.Background())
	if !strings.Contains(v.Message, "--workspace-dir "+filepath.Join(dir, "ws")) {
		t.Errorf("relative workspace not made absolute:\n%s", v.Message)
	}
}

func TestOpenGate(t *testing.T) {
	v, err := Open{}.Check(context.Background())
	if err != nil || !v.Pass {
		t.Errorf("Open: %+v, %v", v, err)
	}
}

// The file gate runs on every done; it only stats and reads a few files.
func BenchmarkFileGateCheck(b *testing.B) {
	ws := b.TempDir()
	var shots []string
	for i := 1; i <= 12; i++ {
		shots = append(shots, "final_execution_"+strconv.Itoa(i)+"_s.png")
	}
	for i := 1; i <= 20; i++ {
		makeRun(b, ws, "run_"+strconv.Itoa(i), shots...)
	}
	writeVerdict(b, ws, "run_20", "1", "Status: success", nil)
	g := NewFileGate(ws)
	b.ResetTimer()
	for b.Loop() {
		if v, err := g.Check(context.Background()); err != nil || !v.Pass {
			b.Fatal(v.Message, err)
		}
	}
}
