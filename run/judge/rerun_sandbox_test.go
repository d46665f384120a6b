package judge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/model/modeltest"
	"wright/run/gate"
	"wright/trust/sandbox"
)

// The rerun gate runs the model's final script in the same sandbox as the
// model's shell: the script still makes its run folder, and it sees only
// its own processes and cannot write outside the workspace.
func TestRerunGateUnderSandbox(t *testing.T) {
	needPython(t)
	if ok, why := sandbox.BwrapAvailable(); !ok {
		t.Skip("bubblewrap cannot run here: " + why)
	}
	bin := wrightBinary(t)
	ws := t.TempDir()
	writeScript(t, ws, 0, 0)
	probe := `
import os
print("pid", os.getpid())
try:
    open("/usr/probe", "w")
    print("WROTE-USR")
except OSError:
    pass
`
	b, _ := os.ReadFile(filepath.Join(ws, gate.FinalScriptName))
	writeFile(t, filepath.Join(ws, gate.FinalScriptName), []byte(strings.Replace(string(b), "run = os.environ", probe+"run = os.environ", 1)))
	srv := modeltest.New(t,
		modeltest.Reply("Score: 4\nReasoning: home"),
		modeltest.Reply("Score: 5\nReasoning: answer visible"),
		modeltest.Reply("Status: success"),
	)
	box := &sandbox.Spec{Writable: []string{ws}, ReadOnly: []string{bin}, Wright: bin}
	g := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Sandbox: box, Judge: &RunJudge{Client: judgeClient(t, srv.URL), Options: ReflectOptions{Concurrency: 1}}})
	v, err := g.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Pass {
		t.Fatalf("refused: %s", v.Message)
	}
	log, _ := os.ReadFile(filepath.Join(ws, gate.FinalRunsDir, "run_1", gate.FinalLogName))
	if !strings.Contains(string(log), "ANSWER: 42") || !strings.Contains(string(log), "pid 2\n") || strings.Contains(string(log), "WROTE") {
		t.Errorf("log: %q", log)
	}
}

// A crafted tool with an output schema under the sandbox: the capture of
// what run() returned lives outside the workspace and must still be
// writable there, and the gate's Args reach the tool's command line.
func TestRerunGateCraftedSchemaUnderSandbox(t *testing.T) {
	needPython(t)
	if ok, why := sandbox.BwrapAvailable(); !ok {
		t.Skip("bubblewrap cannot run here: " + why)
	}
	bin := wrightBinary(t)
	ws := t.TempDir()
	writeToolScript(t, ws, `float(args.price)`)
	b, _ := os.ReadFile(filepath.Join(ws, gate.FinalScriptName))
	writeFile(t, filepath.Join(ws, gate.FinalScriptName), []byte(strings.Replace(string(b), "args = parser.parse_args()", `parser.add_argument("--price", default="1")
    args = parser.parse_args()`, 1)))
	srv := modeltest.New(t, modeltest.Reply("Score: 5\nReasoning: the book page"), modeltest.Reply("Status: success"))
	box := &sandbox.Spec{Writable: []string{ws}, ReadOnly: []string{bin}, Wright: bin}
	g := gate.NewRerunGate(gate.RerunOptions{Workspace: ws, Sandbox: box, Schema: schemaFor(t), Crafted: true, Args: []string{"--price", "12.5"},
		Judge: &RunJudge{Client: judgeClient(t, srv.URL), Options: ReflectOptions{Concurrency: 1}}})
	v, err := g.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !v.Pass {
		t.Fatalf("refused (%s): %s", v.Reason, v.Message)
	}
	data, _ := os.ReadFile(filepath.Join(ws, gate.FinalRunsDir, "run_1", "result.json"))
	if !strings.Contains(string(data), "12.5") {
		t.Errorf("the gate's Args did not reach the script: %s", data)
	}
}
