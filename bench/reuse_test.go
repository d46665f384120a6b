package bench

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestSummaryByVia(t *testing.T) {
	c1, c2 := 0.5, 0.4
	recs := []Record{
		{TaskID: "a", Attempt: 1, ExitStatus: "Submitted", Passed: bp(true), Cost: 0.01, Via: ViaRerun, AgentCost: &c1},
		{TaskID: "b", Attempt: 1, ExitStatus: "Submitted", Passed: bp(false), Cost: 0.02, Via: ViaRerun},
		{TaskID: "c", Attempt: 1, ExitStatus: "Submitted", Passed: bp(true), Cost: 0.10, Via: ViaHeal, AgentCost: &c2},
		{TaskID: "d", Attempt: 1, ExitStatus: "LimitsExceeded", Passed: bp(false), Cost: 0.60, Via: ViaAgent},
	}
	s := Summarize(recs, nil)
	if r := s.ByVia[ViaRerun]; r.Attempts != 2 || r.Passed != 1 || r.Failed != 1 || *r.SuccessRate != 0.5 {
		t.Errorf("rerun: %+v", r)
	}
	if r := s.ByVia[ViaHeal]; r.Attempts != 1 || r.Passed != 1 {
		t.Errorf("heal: %+v", r)
	}
	// Saved against the agent runs that made the scripts: (0.5-0.01)+(0.4-0.10).
	if s.CostSaved == nil || !near(*s.CostSaved, 0.79) {
		t.Errorf("cost saved: %v", s.CostSaved)
	}
	md := s.Markdown()
	if !strings.Contains(md, "| rerun | 2 | 50.0% | 1 | 1 |") || !strings.Contains(md, "$0.7900") {
		t.Errorf("markdown:\n%s", md)
	}
	// A bench without a library says nothing about paths.
	plain := Summarize([]Record{{TaskID: "a", ExitStatus: "Submitted", Passed: bp(true)}}, nil)
	if plain.ByVia != nil || plain.CostSaved != nil || strings.Contains(plain.Markdown(), "By path") {
		t.Errorf("no library: %+v", plain.ByVia)
	}
}

func TestDecodeScriptTask(t *testing.T) {
	s, err := parse("s.jsonl", []byte(`{"task_id": "a", "task": "x", "start_url": "http://h/", "script": "price", "params": {"item": "Desk lamp", "n": 2}}
{"task_id": "b", "task": "x", "start_url": "http://h/", "script": "../up"}
{"task_id": "c", "task": "x", "start_url": "http://h/", "params": {"item": "x"}}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 1 || s.Tasks[0].Script != "price" || !reflect.DeepEqual(paramArgs(s.Tasks[0].Params), []string{"item=Desk lamp", "n=2"}) {
		t.Fatalf("tasks %+v", s.Tasks)
	}
	if len(s.Invalid) != 2 || !strings.Contains(s.Invalid[0].Reason, "script name") || !strings.Contains(s.Invalid[1].Reason, "params without a script") {
		t.Errorf("invalid %v", s.Invalid)
	}
	b, _ := json.Marshal(Record{Via: ViaHeal, ScriptVersion: 2})
	if !strings.Contains(string(b), `"via":"heal","script_version":2`) {
		t.Errorf("record %s", b)
	}
}
