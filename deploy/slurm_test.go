//go:build linux

package deploy

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A one-machine Slurm cluster (Debian's slurm-wlm and munge, which `make
// deps` installs): munged, slurmctld and slurmd run in the foreground,
// owned by the test, with every file in a temporary directory, and are
// stopped when it ends.
type slurmCluster struct {
	dir, conf string
	env       []string
	procs     []*exec.Cmd
	logs      map[string]*bytes.Buffer
}

// needSlurm skips only where slurmd cannot run at all.
func needSlurm(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starts a Slurm cluster and browsers")
	}
	if runtime.GOOS != "linux" {
		t.Skip("Slurm's daemons run on Linux only")
	}
	if os.Geteuid() != 0 {
		t.Skip("slurmd runs jobs as their users and must be root here; run the test as root")
	}
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "squeue"} {
		if _, err := exec.LookPath(bin); err != nil {
			if _, err := os.Stat(filepath.Join("/usr/sbin", bin)); err != nil {
				t.Skipf("%s is not installed (make deps installs Debian's slurm-wlm and munge)", bin)
			}
		}
	}
}

func sbin(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return filepath.Join("/usr/sbin", name)
}

func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var out []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}

func startSlurm(t *testing.T) *slurmCluster {
	t.Helper()
	// Unix socket paths are short: the cluster lives in a short temp path.
	dir, err := os.MkdirTemp("", "wright-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	c := &slurmCluster{dir: dir, conf: filepath.Join(dir, "slurm.conf"), logs: map[string]*bytes.Buffer{}}
	t.Cleanup(func() { c.stop(t); os.RemoveAll(dir) })
	for _, d := range []string{"state", "spool", "munge"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := make([]byte, 1024)
	rand.Read(key)
	keyFile := filepath.Join(dir, "munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "munge", "munge.sock")
	c.start(t, "munged", sbin("munged"), "-F", "--force", "--key-file="+keyFile, "--socket="+sock,
		"--pid-file="+filepath.Join(dir, "munge", "munged.pid"), "--log-file="+filepath.Join(dir, "munge", "munged.log"),
		"--seed-file="+filepath.Join(dir, "munge", "munged.seed"))
	waitFor(t, 30*time.Second, "munged's socket", func() bool { _, err := os.Stat(sock); return err == nil })

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	ports := freePorts(t, 2)
	// proctrack/linuxproc and task/none: no cgroups in a container.
	// config_overrides: the node is what this file says (3 jobs of one
	// CPU and 1 GB each fit whatever the machine reports).
	conf := fmt.Sprintf(`ClusterName=wrighttest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/slurmctld.log
SlurmdLogFile=%[5]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
KillWait=10
JobRequeue=1
NodeName=wrightnode NodeAddr=127.0.0.1 NodeHostname=%[1]s CPUs=4 RealMemory=8000 State=UNKNOWN
PartitionName=test Nodes=wrightnode Default=YES MaxTime=INFINITE State=UP
`, host, ports[0], ports[1], sock, dir)
	if err := os.WriteFile(c.conf, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	c.env = append(os.Environ(), "SLURM_CONF="+c.conf)
	c.start(t, "slurmctld", sbin("slurmctld"), "-D", "-i", "-f", c.conf)
	c.start(t, "slurmd", sbin("slurmd"), "-D", "-f", c.conf, "-N", "wrightnode")
	waitFor(t, 60*time.Second, "the node to be idle", func() bool {
		out, _ := c.cmd("sinfo", "-h", "-n", "wrightnode", "-o", "%T")
		return strings.TrimSpace(out) == "idle"
	})
	return c
}

func (c *slurmCluster) start(t *testing.T, name, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = c.env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	b := &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = b, b
	// Their own process group: the stop signals them and what they started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	c.logs[name] = b
	c.procs = append(c.procs, cmd)
}

// stop ends the jobs, then the daemons, newest first, and shows their logs
// when the test failed.
func (c *slurmCluster) stop(t *testing.T) {
	if c.env != nil {
		c.cmd("scancel", "--full", "--user=root")
	}
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		syscall.Kill(-p.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			syscall.Kill(-p.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	if t.Failed() {
		for _, f := range []string{"slurmctld.log", "slurmd.log"} {
			b, _ := os.ReadFile(filepath.Join(c.dir, f))
			t.Logf("--- %s (last 4 KB):\n%s", f, tail(b, 4096))
		}
		for name, b := range c.logs {
			t.Logf("--- %s output:\n%s", name, tail(b.Bytes(), 2048))
		}
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// cmd runs a Slurm client command against this cluster.
func (c *slurmCluster) cmd(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (c *slurmCluster) must(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := c.cmd(name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(out)
}

func waitFor(t *testing.T, limit time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", limit, what)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// jobState is a job's (or array task's) state as scontrol sees it.
func (c *slurmCluster) jobState(id string) string {
	out, _ := c.cmd("scontrol", "show", "job", "-o", id)
	for _, f := range strings.Fields(out) {
		if s, ok := strings.CutPrefix(f, "JobState="); ok {
			return s
		}
	}
	return ""
}

// results reads a bench directory's results.jsonl: the latest record per
// task, and how many records each task has.
func benchResults(t *testing.T, dir string) (final map[string]string, lines map[string]int) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	final, lines = map[string]string{}, map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var r struct {
			TaskID     string `json:"task_id"`
			ExitStatus string `json:"exit_status"`
			Passed     *bool  `json:"passed"`
			Error      string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		lines[r.TaskID]++
		state := r.ExitStatus
		if r.Passed != nil {
			state += fmt.Sprintf(" passed=%v", *r.Passed)
		}
		if r.Error != "" {
			state += " error"
		}
		final[r.TaskID] = state
	}
	return final, lines
}

// TestSlurmClusterRunsTheArrayAndMerge submits the project's Slurm array
// over the demo suite (11 tasks, recorded model) as 3 array tasks, the
// array's size given at submission, then the merge as a job that depends on
// the array (afterany) and checks completeness itself. One array task is
// requeued while it runs. The merged results equal one process's run of
// the same suite: the same tasks, the same outcomes, each exactly once.
func TestSlurmClusterRunsTheArrayAndMerge(t *testing.T) {
	needSlurm(t)
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	bin := filepath.Join(work, "wright")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/wright").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// The reference: the whole suite in one process.
	single := filepath.Join(work, "single")
	if msg, code := run(t, nil, bin, "bench", "builtin:demo", "--model", "builtin:recorded", "-o", single, "--parallel", "2"); code != 0 {
		t.Fatalf("one-process bench: exit %d: %s", code, msg)
	}
	want, _ := benchResults(t, single)
	if len(want) < 9 {
		t.Fatalf("the demo suite ran %d tasks, want at least 9", len(want))
	}

	c := startSlurm(t)
	results := filepath.Join(work, "results")
	c.env = append(c.env, "WRIGHT="+bin, "SUITE=builtin:demo", "OUT="+results)
	logs := filepath.Join(work, "logs")
	os.MkdirAll(logs, 0o755)
	submit := exec.Command("sbatch", "--parsable", "--array=0-2", "--cpus-per-task=1", "--mem=1000",
		"--output="+filepath.Join(logs, "shard-%A_%a.log"), "--chdir="+root, "--requeue",
		filepath.Join(root, "deploy", "slurm", "bench.sbatch"), "--model", "builtin:recorded", "--parallel", "1")
	// The script finds shard.sh from the directory it was submitted in.
	submit.Env, submit.Dir = c.env, root
	out, err := submit.CombinedOutput()
	if err != nil {
		t.Fatalf("sbatch: %v\n%s", err, out)
	}
	array := strings.TrimSpace(strings.Split(string(out), ";")[0])
	merge := c.must(t, "sbatch", "--parsable", "--dependency=afterany:"+array, "--output="+filepath.Join(logs, "merge-%j.log"),
		"--chdir="+root, "--wrap", "deploy/merge.sh")
	shardLog := func() string {
		b, _ := os.ReadFile(filepath.Join(logs, "shard-"+array+"_1.log"))
		return string(tail(b, 2048))
	}

	// Requeue array task 1 once it has finished at least one attempt, so
	// the requeued task resumes a shard that already holds results.
	task1 := array + "_1"
	shard2 := filepath.Join(results, "shard-2", "results.jsonl")
	waitFor(t, 5*time.Minute, "array task 1 to run and record an attempt", func() bool {
		b, _ := os.ReadFile(shard2)
		s := c.jobState(task1)
		if s == "FAILED" || s == "COMPLETED" {
			t.Fatalf("array task 1 ended %s before the requeue:\n%s", s, shardLog())
		}
		return s == "RUNNING" && bytes.Count(b, []byte("\n")) >= 1
	})
	if s := c.jobState(task1); s == "RUNNING" {
		c.must(t, "scontrol", "requeue", task1)
	} else {
		t.Fatalf("array task 1 is %s before the requeue", s)
	}
	waitFor(t, 10*time.Minute, "the merge job to end", func() bool {
		s := c.jobState(merge)
		return s == "COMPLETED" || s == "FAILED" || s == "CANCELLED" || s == "TIMEOUT" || s == "OUT_OF_MEMORY"
	})
	info := c.must(t, "scontrol", "show", "job", "-o", task1)
	mergeLog, _ := filepath.Glob(filepath.Join(logs, "merge-*.log"))
	var mergeOut []byte
	if len(mergeLog) == 1 {
		mergeOut, _ = os.ReadFile(mergeLog[0])
	}
	if s := c.jobState(merge); s != "COMPLETED" {
		t.Fatalf("the merge job ended %s:\n%s", s, mergeOut)
	}
	if !strings.Contains(info, "Restarts=1") {
		t.Errorf("array task 1 was not restarted once: %s", info)
	}

	got, lines := benchResults(t, filepath.Join(results, "merged"))
	var ids []string
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if got[id] != want[id] {
			t.Errorf("%s: merged %q, one process %q", id, got[id], want[id])
		}
		if lines[id] != 1 {
			t.Errorf("%s: %d records in the merged results, want 1", id, lines[id])
		}
	}
	if len(got) != len(want) {
		t.Errorf("merged %d tasks, one process %d", len(got), len(want))
	}
	var sum struct{ Total, Passed int }
	b, _ := os.ReadFile(filepath.Join(results, "merged", "summary.json"))
	json.Unmarshal(b, &sum)
	if sum.Total != len(want) {
		t.Errorf("merged summary counts %d attempts, want %d: %s", sum.Total, len(want), b)
	}
}
