package main

import (
	"math"
	"strings"
	"testing"
)

// A whole snapshot as the peer writes it: YAML, a ref on most nodes.
const peerSnapshot = `### Page
- Page URL: http://127.0.0.1/todo
### Snapshot
` + "```yaml" + `
- generic [ref=e1]:
  - heading "todos" [level=1] [ref=e19]
  - textbox "What needs to be done?" [active] [ref=e20]
  - list [ref=e30]:
    - listitem [ref=e31]:
      - checkbox "Toggle Todo" [ref=e32]
      - text: Buy milk
    - listitem [ref=e33]:
      - checkbox "Toggle Todo" [ref=e34]
  - link "Say \"hi\"" [ref=f2e7] [cursor=pointer]:
` + "```"

// A change list as wright writes it: a marker before each line.
const wrightChanges = `[changes since the snapshot of step 6: 2 added, 1 removed; other lines are as they were]
  - textbox "What needs to be done?" [ref=e4]
  - list:
    - listitem:
-     - checkbox "✔" [ref=e9]
+     - checkbox "✔" [ref=e13]
+   - listitem:
+     - checkbox "✔" [ref=e14]
~ - strong: "2"
- - button "Gone" [ref=e3]
# page.keyboard.press("Enter")`

func TestParseElementsOfAWholeSnapshot(t *testing.T) {
	got := parseElements(peerSnapshot)
	want := []element{
		{"generic", "", "e1"}, {"heading", "todos", "e19"}, {"textbox", "What needs to be done?", "e20"},
		{"list", "", "e30"}, {"listitem", "", "e31"}, {"checkbox", "Toggle Todo", "e32"},
		{"listitem", "", "e33"}, {"checkbox", "Toggle Todo", "e34"}, {"link", `Say "hi"`, "f2e7"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d elements %v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("element %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseElementsSkipsRemovedLines(t *testing.T) {
	got := parseElements(wrightChanges)
	var refs []string
	for _, e := range got {
		refs = append(refs, e.Role+":"+e.Ref)
	}
	if s := strings.Join(refs, " "); s != "textbox:e4 checkbox:e13 checkbox:e14" {
		t.Errorf("got %s; the removed e9 and e3 must be left out, context and added lines kept", s)
	}
}

func TestFindRefTakesTheNewestOutputThatShowsTheElement(t *testing.T) {
	outputs := []string{peerSnapshot, "nothing with refs here", wrightChanges}
	cases := []struct {
		t    target
		want string
		ok   bool
	}{
		{target{Role: "textbox", Name: "What needs to be done?"}, "e4", true}, // the change list is newer
		{target{Role: "checkbox", Name: "✔", Nth: 1}, "e14", true},
		{target{Role: "checkbox", Name: "Toggle Todo", Nth: 1}, "e34", true},
		{target{Role: "heading", Name: "to", Prefix: true}, "e19", true},
		{target{Role: "heading", Name: "to"}, "", false},
		{target{Role: "button", Name: "Gone"}, "", false}, // removed
	}
	for _, c := range cases {
		got, ok := findRef(outputs, c.t)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %q %v, want %q %v", c.t, got, ok, c.want, c.ok)
		}
	}
}

func TestStepStatsTakesMediansPerStep(t *testing.T) {
	reps := [][]call{
		{{Page: "p", Logical: "navigate", Chars: 100, MS: 10, Action: true}, {Page: "p", Logical: "snapshot", Kind: "snapshot", Chars: 50, MS: 1}},
		{{Page: "p", Logical: "navigate", Chars: 100, MS: 30, Action: true}, {Page: "p", Logical: "snapshot", Kind: "snapshot", Chars: 60, MS: 3, Error: "boom"}},
		{{Page: "p", Logical: "navigate", Chars: 120, MS: 20, Action: true}, {Page: "p", Logical: "snapshot", Kind: "snapshot", Chars: 70, MS: 2}},
	}
	got := stepStats(reps)
	if got[0].Chars != 100 || got[0].MS != 20 || got[1].Chars != 60 || got[1].MS != 2 {
		t.Errorf("medians: got %+v", got)
	}
	if got[1].Error != "boom" {
		t.Errorf("an error of any repetition must be kept: %+v", got[1])
	}
	tot := sum(got)
	if tot.Chars != 160 || tot.ActionMS != 20 || tot.ReadMS != 2 || tot.Errors != 1 || tot.PerPageChars["p"] != 160 {
		t.Errorf("totals: %+v", tot)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median of an even count: %v", m)
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing must be NaN")
	}
}

func TestRatioTable(t *testing.T) {
	out := ratioTable([]row{
		{Measure: "chars", Wright: 30, Peer: 100, Target: 0.35},
		{Measure: "tools/list", Wright: 70, Peer: 100, Target: 0.6},
		{Measure: "ms", Wright: 12.5, Peer: 25, Format: "%.1f"},
	})
	for _, want := range []string{
		"| chars | 30 | 100 | 0.30x | ≤ 0.35x | met |",
		"| tools/list | 70 | 100 | 0.70x | ≤ 0.60x | not met |",
		"| ms | 12.5 | 25.0 | 0.50x |  |  |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if r := (row{Wright: 1}).verdict(); r != "" {
		t.Errorf("no target, no verdict: %q", r)
	}
}

func TestDialectsSayEveryStep(t *testing.T) {
	for _, pg := range pages() {
		for _, st := range pg.Steps {
			for _, d := range []dialect{wrightDialect, playwrightDialect} {
				tool, args := d.call(st, "http://x/", "e1", "t")
				if tool == "" || args == nil {
					t.Errorf("%s: %s says nothing for %s", pg.Name, d.Name, st)
				}
				if st.Kind == "click" && args["ref"] != "e1" && args["target"] != "e1" {
					t.Errorf("%s: %s's click lost the ref: %v", pg.Name, d.Name, args)
				}
			}
		}
	}
}

func TestLooksFailed(t *testing.T) {
	if !looksFailed("### Error\nError: Ref e3 not found") || !looksFailed("fill: Traceback (most recent call last):\n  File") {
		t.Error("a failure was not seen")
	}
	if looksFailed("### Page\n- Page URL: http://x/") {
		t.Error("a plain result was taken for a failure")
	}
}
