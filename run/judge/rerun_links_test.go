package judge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/model/modeltest"
	"wright/run/gate"
)

// TestRerunGateFollowsNoPlantedLink: the rerun gate reads the workspace from
// outside the sandbox, so a hostile model plants links where it reads and
// writes. A final_script.py linked to a host file must not be copied into the
// run folder nor shown back in the gate's answer, and a final_runs/ linked
// out of the workspace must not receive the run.
func TestRerunGateFollowsNoPlantedLink(t *testing.T) {
	needPython(t)
	host := t.TempDir()
	secret := filepath.Join(host, "host-secret.txt")
	writeFile(t, secret, []byte("import sys\nprint('HOST-FILE-CONTENT-7731')\nsys.exit(3)\n"))

	t.Run("script", func(t *testing.T) {
		ws := t.TempDir()
		if err := os.Symlink(secret, filepath.Join(ws, gate.FinalScriptName)); err != nil {
			t.Fatal(err)
		}
		srv := modeltest.New(t) // the judge must not be asked
		g := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Judge: &RunJudge{Client: judgeClient(t, srv.URL), Options: ReflectOptions{Concurrency: 1}}})
		v, err := g.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if v.Pass || !strings.Contains(v.Message, "symbolic link") {
			t.Fatalf("a linked script was taken: pass=%v %q", v.Pass, v.Message)
		}
		if strings.Contains(v.Message, "HOST-FILE-CONTENT") {
			t.Fatalf("the host file reached the model: %q", v.Message)
		}
		if _, err := os.Stat(filepath.Join(ws, gate.FinalRunsDir)); !os.IsNotExist(err) {
			t.Errorf("a run folder was made for a linked script (%v)", err)
		}
	})

	t.Run("final_runs", func(t *testing.T) {
		ws := t.TempDir()
		writeScript(t, ws, 0, 0)
		out := t.TempDir()
		if err := os.Symlink(out, filepath.Join(ws, gate.FinalRunsDir)); err != nil {
			t.Fatal(err)
		}
		srv := modeltest.New(t)
		g := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Judge: &RunJudge{Client: judgeClient(t, srv.URL), Options: ReflectOptions{Concurrency: 1}}})
		v, err := g.Check(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if v.Pass || !strings.Contains(v.Message, "not a folder") {
			t.Fatalf("a linked final_runs was taken: pass=%v %q", v.Pass, v.Message)
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Errorf("the gate wrote outside the workspace: %v", ents)
		}
	})
}
