// Package deploy holds the files that run a bench past one machine (a
// container image, a Kubernetes Indexed Job, a Slurm array). No container
// engine or cluster exists where the tests run, so these tests run the
// manifests' commands with the variables a cluster sets, and read the
// manifests as the cluster would.
package deploy

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a stand-in for the wright binary that writes its arguments,
// one per line, where ARGS_OUT says: the shard scripts' job is to build the
// right command, which this checks.
func recorder(t *testing.T) (bin, out string) {
	t.Helper()
	dir := t.TempDir()
	bin = filepath.Join(dir, "wright")
	out = filepath.Join(dir, "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$ARGS_OUT\"\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, out
}

func run(t *testing.T, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return b.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return b.String(), 0
}

func TestShardScriptTakesTheSchedulersIndex(t *testing.T) {
	bin, out := recorder(t)
	base := []string{"WRIGHT=" + bin, "ARGS_OUT=" + out, "SUITE=tasks.jsonl", "OUT=/data/results", "SHARDS=4",
		"JOB_COMPLETION_INDEX=", "SLURM_ARRAY_TASK_ID="}
	for _, c := range []struct{ index, want string }{
		{"JOB_COMPLETION_INDEX=0", "bench tasks.jsonl -o /data/results/shard-1 --shard 1/4 --parallel 2"},
		{"JOB_COMPLETION_INDEX=3", "bench tasks.jsonl -o /data/results/shard-4 --shard 4/4 --parallel 2"},
		{"SLURM_ARRAY_TASK_ID=1", "bench tasks.jsonl -o /data/results/shard-2 --shard 2/4 --parallel 2"},
	} {
		msg, code := run(t, append(base, c.index), "./shard.sh", "--parallel", "2")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.index, code, msg)
		}
		got, _ := os.ReadFile(out)
		if strings.Join(strings.Fields(string(got)), " ") != c.want {
			t.Errorf("%s: ran %q, want %q", c.index, got, c.want)
		}
	}
	for _, bad := range []string{"JOB_COMPLETION_INDEX=4", ""} {
		if msg, code := run(t, append(base, bad), "./shard.sh"); code != 2 {
			t.Errorf("index %q: exit %d (%s), want 2", bad, code, msg)
		}
	}
}

func TestSlurmArrayRunsItsShard(t *testing.T) {
	bin, out := recorder(t)
	root, _ := filepath.Abs("..")
	env := []string{"WRIGHT=" + bin, "ARGS_OUT=" + out, "SLURM_ARRAY_TASK_ID=2", "SLURM_SUBMIT_DIR=" + root,
		"JOB_COMPLETION_INDEX=", "SUITE=s.jsonl", "OUT=/scratch/r"}
	if msg, code := run(t, env, "bash", "slurm/bench.sbatch", "--model", "m"); code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	got, _ := os.ReadFile(out)
	want := "bench s.jsonl -o /scratch/r/shard-3 --shard 3/4 --parallel 2 --task-timeout 30m --model m"
	if strings.Join(strings.Fields(string(got)), " ") != want {
		t.Errorf("ran %q", got)
	}
	// An array submitted with another size (sbatch --array=0-2) is split
	// into that many shards.
	if msg, code := run(t, append(env, "SLURM_ARRAY_TASK_COUNT=3"), "bash", "slurm/bench.sbatch"); code != 0 {
		t.Fatalf("exit %d: %s", code, msg)
	}
	got, _ = os.ReadFile(out)
	if !strings.Contains(strings.Join(strings.Fields(string(got)), " "), "-o /scratch/r/shard-3 --shard 3/3 ") {
		t.Errorf("with 3 array tasks, ran %q", got)
	}
	// Without Slurm's count, the array covers exactly SHARDS indexes.
	b, _ := os.ReadFile("slurm/bench.sbatch")
	if !strings.Contains(string(b), "#SBATCH --array=0-3") || !strings.Contains(string(b), `export SHARDS="${SLURM_ARRAY_TASK_COUNT:-4}"`) {
		t.Error("the array range and SHARDS disagree")
	}
}

// TestShardsEndToEnd runs two real shards of the built-in suite with the
// recorded model, as the Job's pods would, then the merge.
func TestShardsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs browsers")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "wright")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/wright").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	results := filepath.Join(dir, "results")
	env := []string{"WRIGHT=" + bin, "SUITE=builtin:demo", "OUT=" + results, "SHARDS=2", "SLURM_ARRAY_TASK_ID="}
	for _, i := range []string{"0", "1"} {
		if msg, code := run(t, append(env, "JOB_COMPLETION_INDEX="+i), "./shard.sh", "--model", "builtin:recorded", "--filter", "demo-(about|login|shipping)$"); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", i, code, msg)
		}
	}
	if msg, code := run(t, env, "./merge.sh"); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, msg)
	}
	b, err := os.ReadFile(filepath.Join(results, "merged", "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Total, Passed int
	}
	json.Unmarshal(b, &sum)
	if sum.Total != 3 || sum.Passed != 3 {
		t.Errorf("merged summary: %s", b)
	}
}
