package review

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchByVia(t *testing.T) {
	dir := t.TempDir()
	lines := `{"task_id":"a","attempt":1,"exit_status":"Submitted","passed":true,"cost":0.01,"via":"rerun","agent_cost":0.5}
{"task_id":"b","attempt":1,"exit_status":"Submitted","passed":true,"cost":0.1,"via":"heal","agent_cost":0.4}
{"task_id":"c","attempt":1,"exit_status":"LimitsExceeded","passed":false,"cost":0.6,"via":"agent"}
`
	if err := os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := LoadBench(dir)
	if err != nil {
		t.Fatal(err)
	}
	vs := b.ByVia()
	if len(vs) != 3 || vs[0].Via != "rerun" || vs[2].Via != "agent" || vs[2].Failed != 1 {
		t.Fatalf("by via %+v", vs)
	}
	md := b.Markdown()
	for _, want := range []string{"## By path (script library)", "| rerun | 1 | 1 | 0 | 100% | $0.0100 |", "| agent | 1 | 0 | 1 | 0% |", "$0.7900"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(`{"task_id":"a","attempt":1,"exit_status":"Submitted","passed":true}`+"\n"), 0o644)
	if b, _ := LoadBench(dir); len(b.ByVia()) != 0 || strings.Contains(b.Markdown(), "By path") {
		t.Error("a bench without a library shows paths")
	}
}
