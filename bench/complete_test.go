package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"wright/bench/results"
)

// shardDir writes a shard directory: its bench.json and one record per
// (task, exit status).
func shardDir(t *testing.T, root, shard string, selected int, recs ...results.Record) string {
	t.Helper()
	d := filepath.Join(root, "shard-"+strings.ReplaceAll(shard, "/", "of"))
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if shard != "" {
		if err := WriteRepro(d, &Repro{Shard: shard, Selected: selected, Repeat: 1}); err != nil {
			t.Fatal(err)
		}
	}
	var buf []byte
	for _, r := range recs {
		b, _ := json.Marshal(r)
		buf = append(append(buf, b...), '\n')
	}
	if err := os.WriteFile(filepath.Join(d, ResultsFile), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestCheckComplete(t *testing.T) {
	done := func(id string) results.Record { return results.Record{TaskID: id, Attempt: 1, ExitStatus: "Submitted"} }
	cut := func(id string) results.Record {
		return results.Record{TaskID: id, Attempt: 1, ExitStatus: "Interrupted"}
	}
	root := t.TempDir()
	a := shardDir(t, root, "1/2", 2, done("a"), done("b"))
	b := shardDir(t, root, "2/2", 2, done("c"), cut("d"), done("d")) // requeued: d ran again
	if err := CheckComplete([]string{a, b}); err != nil {
		t.Errorf("a complete split: %v", err)
	}
	cases := map[string]struct {
		dirs []string
		want string
	}{
		"a shard missing":        {[]string{a}, "shard 2/2 is missing"},
		"not a shard of a split": {[]string{a, shardDir(t, root, "2/2x", 0)}, "not i/n"},
		"interrupted last":       {[]string{a, shardDir(t, t.TempDir(), "2/2", 2, done("c"), cut("d"))}, "finished 1 of its 2 attempts"},
		"the same shard twice":   {[]string{a, shardDir(t, t.TempDir(), "1/2", 2, done("a"), done("b")), b}, "are both shard 1/2"},
		"another split":          {[]string{a, b, shardDir(t, t.TempDir(), "3/3", 1, done("e"))}, "a split into 2"},
		"never started":          {[]string{a, shardDir(t, t.TempDir(), "", 0)}, "never started"},
	}
	for name, c := range cases {
		err := CheckComplete(c.dirs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
