package bench

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadJSONLFieldNamesAndInvalidLines(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "s.jsonl", strings.Join([]string{
		`{"task_id": "a", "confirmed_task": "Find a book", "website": "http://x/", "level": "easy", "reference_length": 4, "web_name": "shop"}`,
		`{"id": 7, "ques": "How much?", "web": "http://y/"}`,
		``,
		`{"task_id": "nourl", "task": "no start"}`,
		`not json`,
		`{"task_id": "c", "intent": "Do it", "start_url": "http://z/", "eval": {"answer": {"must_include": ["42"]}, "url": "/done"}}`,
		`{"task_id": "a", "task": "dup", "start_url": "http://x/"}`,
		`{"task_id": "d", "task_description": "T", "start_url": "http://d/", "eval": {"bogus": 1}}`,
	}, "\n"))
	s, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tk := range s.Tasks {
		ids = append(ids, tk.ID)
	}
	if strings.Join(ids, ",") != "a,7,c" {
		t.Fatalf("tasks = %v", ids)
	}
	a := s.Tasks[0]
	if a.Text != "Find a book" || a.StartURL != "http://x/" || a.Level != "easy" || a.ReferenceLength != 4 || a.Site != "shop" {
		t.Errorf("task a = %+v", a)
	}
	if s.Tasks[1].Text != "How much?" || s.Tasks[1].StartURL != "http://y/" {
		t.Errorf("task 7 = %+v", s.Tasks[1])
	}
	c := s.Tasks[2]
	if a, ok := c.Eval.Check("answer").(*AnswerCheck); !ok || a.MustInclude[0] != "42" || c.Eval.Check("url") != (URLCheck{Want: "/done"}) {
		t.Errorf("eval of c = %+v", c.Eval)
	}
	want := []string{"s.jsonl:4: no start URL", "s.jsonl:5: not a JSON object", "s.jsonl:8: eval:", "s.jsonl:7: task id \"a\" is also used at " + p + ":1"}
	if len(s.Invalid) != len(want) {
		t.Fatalf("invalid = %v", s.Invalid)
	}
	got := ""
	for _, p := range s.Invalid {
		got += p.String() + "\n"
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("invalid list lacks %q:\n%s", w, got)
		}
	}
	if len(s.Digest) != 64 {
		t.Errorf("digest %q", s.Digest)
	}
}

func TestLoadJSONArrayAndJSForms(t *testing.T) {
	p := write(t, t.TempDir(), "s.json", `[
	 {"task_id": "x", "task": "t", "start_url": "http://a/", "eval": {"js": "document.title == 'A'"}},
	 {"task_id": "y", "task": "t", "start_url": "http://a/", "eval": {"js": [{"expr": "1", "url": "http://a/b"}, "2"], "judge": "be strict"}}
	]`)
	s, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 2 || s.Tasks[0].Eval.Check("js").(JSChecks)[0].Expr != "document.title == 'A'" {
		t.Fatalf("tasks = %+v", s.Tasks)
	}
	y := s.Tasks[1].Eval
	js, _ := y.Check("js").(JSChecks)
	if j, ok := y.Check("judge").(*JudgeCheck); len(js) != 2 || js[0].URL != "http://a/b" || js[1].Expr != "2" || !ok || j.Rubric != "be strict" {
		t.Errorf("eval y = %+v", y)
	}
}

func TestLoadWebArenaDirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "10.json", `{"task_id": 10, "intent": "What is the top product?", "start_url": "__SHOPPING__/admin", "sites": ["shopping"],
	  "eval": {"eval_types": ["string_match"], "reference_answers": {"must_include": ["Sprite"], "fuzzy_match": "N/A"}, "reference_url": "", "program_html": []}}`)
	write(t, dir, "2.json", `{"task_id": 2, "intent": "Go to the orders page", "start_url": "__SHOPPING__",
	  "eval": {"eval_types": ["url_match", "program_html"], "reference_url": "__SHOPPING__/orders", "url_note": "GOLD in PRED",
	   "program_html": [{"url": "last", "locator": "document.querySelector('h1').outerText", "required_contents": {"must_include": ["Orders"]}}]}}`)
	write(t, dir, "3.json", `{"task_id": 3, "intent": "Fuzzy", "start_url": "__GITLAB__/x",
	  "eval": {"eval_types": ["string_match"], "reference_answers": {"fuzzy_match": ["about ten"]}}}`)
	s, err := Load(dir, Options{Sites: map[string]string{"shopping": "http://127.0.0.1:7770/"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tasks) != 2 || s.Tasks[0].ID != "2" || s.Tasks[1].ID != "10" {
		t.Fatalf("tasks (numeric order) = %+v", s.Tasks)
	}
	two := s.Tasks[0]
	js, _ := two.Eval.Check("js").(JSChecks)
	if two.StartURL != "http://127.0.0.1:7770" || two.Eval.Check("url") != (URLCheck{Want: "http://127.0.0.1:7770/orders"}) || len(js) != 1 || js[0].URL != "" {
		t.Errorf("task 2 = %+v %+v", two, two.Eval)
	}
	if len(js) == 1 && !strings.Contains(js[0].Expr, "document.querySelector('h1').outerText") {
		t.Errorf("program_html expr = %s", js[0].Expr)
	}
	ten := s.Tasks[1]
	if a, ok := ten.Eval.Check("answer").(*AnswerCheck); ten.Site != "shopping" || !ok || a.MustInclude[0] != "Sprite" || len(ten.Eval.Unsupported) != 0 {
		t.Errorf("task 10 = %+v %+v", ten, ten.Eval)
	}
	if len(s.Invalid) != 1 || !strings.Contains(s.Invalid[0].Reason, "--sites") {
		t.Errorf("invalid = %v", s.Invalid)
	}
}

func TestSelectShardsPartitionTheFilteredSuite(t *testing.T) {
	var tasks []Task
	for i := range 10 {
		tasks = append(tasks, Task{ID: string(rune('a' + i))})
	}
	seen := map[string]int{}
	for i := 1; i <= 3; i++ {
		for _, tk := range (Selection{Shard: Shard{i, 3}}).Select(tasks) {
			seen[tk.ID]++
		}
	}
	if len(seen) != 10 {
		t.Fatalf("shards cover %d of 10", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("%s in %d shards", id, n)
		}
	}
	got := (Selection{Filter: regexp.MustCompile("[aceg]"), Shard: Shard{2, 2}, Limit: 1}).Select(tasks)
	if len(got) != 1 || got[0].ID != "c" {
		t.Errorf("filter+shard+limit = %+v", got)
	}
	if _, err := ParseShard("4/3"); err == nil {
		t.Error("4/3 accepted")
	}
	if sh, err := ParseShard("2/5"); err != nil || sh != (Shard{2, 5}) {
		t.Errorf("ParseShard = %v %v", sh, err)
	}
}
