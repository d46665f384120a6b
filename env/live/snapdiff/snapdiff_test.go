package snapdiff

import (
	"fmt"
	"strings"
	"testing"
)

const page = `- banner:
  - heading "Shop" [level=1]
  - navigation "Main":
    - link "Home" [ref=e1]:
      - /url: /
    - link "Cart (0)" [ref=e2]:
      - /url: /cart
- main:
  - heading "Products" [level=2]
  - list:
    - listitem:
      - text: Tea
      - button "Add Tea" [ref=e3]
    - listitem:
      - text: Coffee
      - button "Add Coffee" [ref=e4]
  - checkbox "Gift wrap" [ref=e5]
  - textbox "Note" [ref=e6]`

func TestDiff(t *testing.T) {
	tests := []struct {
		name                   string
		cur                    string
		want                   string
		added, removed, change int
	}{
		{
			name: "changed line keeps its ref and is placed under its ancestors",
			cur:  strings.Replace(page, `checkbox "Gift wrap" [ref=e5]`, `checkbox "Gift wrap" [checked] [ref=e5]`, 1),
			want: `  - main:
    - list:
~   - checkbox "Gift wrap" [checked] [ref=e5]`,
			change: 1,
		},
		{
			name: "added line after its sibling",
			cur:  strings.Replace(page, "  - textbox \"Note\" [ref=e6]", "  - textbox \"Note\" [ref=e6]\n  - status: Added to cart", 1),
			want: `  - main:
    - textbox "Note" [ref=e6]
+   - status: Added to cart`,
			added: 1,
		},
		{
			name: "removed lines",
			cur:  strings.Replace(page, "    - listitem:\n      - text: Coffee\n      - button \"Add Coffee\" [ref=e4]\n", "", 1),
			want: `  - main:
    - list:
      - listitem:
-     - listitem:
-       - text: Coffee
-       - button "Add Coffee" [ref=e4]`,
			removed: 3,
		},
		{
			name: "a name change deep in the tree, and a second hunk elsewhere",
			cur: strings.NewReplacer(`link "Cart (0)" [ref=e2]`, `link "Cart (1)" [ref=e2]`,
				`textbox "Note" [ref=e6]`, `textbox "Note" [ref=e6]: by Friday`).Replace(page),
			want: `  - banner:
    - navigation "Main":
      - link "Home" [ref=e1]:
~     - link "Cart (1)" [ref=e2]:
  - main:
    - checkbox "Gift wrap" [ref=e5]
~   - textbox "Note" [ref=e6]: by Friday`,
			change: 2,
		},
		{
			name: "a text line without a ref changes in place",
			cur:  strings.Replace(page, "- text: Tea", "- text: Green tea", 1),
			want: `  - main:
    - list:
      - listitem:
~       - text: Green tea`,
			change: 1,
		},
		{
			name: "an element replaced by another is a removal and an addition",
			cur:  strings.Replace(page, `button "Add Tea" [ref=e3]`, `button "Remove Tea" [ref=e7]`, 1),
			want: `  - main:
    - list:
      - listitem:
        - text: Tea
-       - button "Add Tea" [ref=e3]
+       - button "Remove Tea" [ref=e7]`,
			added: 1, removed: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Diff(page, tc.cur)
			if got.Text != tc.want {
				t.Errorf("text:\n%s\nwant:\n%s", got.Text, tc.want)
			}
			if got.Added != tc.added || got.Removed != tc.removed || got.Changed != tc.change {
				t.Errorf("counts +%d -%d ~%d, want +%d -%d ~%d", got.Added, got.Removed, got.Changed, tc.added, tc.removed, tc.change)
			}
			for _, l := range strings.Split(got.Text, "\n") {
				if refOf(l) != "" && !strings.Contains(tc.cur+page, strings.TrimSpace(l[2:])) {
					t.Errorf("line %q is in neither snapshot", l)
				}
			}
		})
	}
}

func TestDiffSameAndSummary(t *testing.T) {
	r := Diff(page, page)
	if !r.Same() || r.Text != "" || r.Summary() != "no change" {
		t.Errorf("equal snapshots: %+v %q", r, r.Summary())
	}
	r = Result{Added: 2, Changed: 1}
	if r.Summary() != "2 added, 1 changed" {
		t.Errorf("summary %q", r.Summary())
	}
	if r := Diff("", page); r.Added != strings.Count(page, "\n")+1 || r.Removed != 0 {
		t.Errorf("from nothing: %+v", r)
	}
}

func TestDiffTooFar(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 2100; i++ {
		fmt.Fprintf(&a, "- link \"old %d\" [ref=e%d]\n", i, i)
		fmt.Fprintf(&b, "- link \"new %d\" [ref=e%d]\n", i, 5000+i)
	}
	if r := Diff(a.String(), b.String()); !r.TooFar || r.Text != "" {
		t.Errorf("two unrelated 2,100-line snapshots: TooFar %v, %d chars of text", r.TooFar, len(r.Text))
	}
}

func TestDiffIsSmallForOneChange(t *testing.T) {
	var b strings.Builder
	b.WriteString("- main:\n")
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&b, "  - listitem:\n    - link \"Item %d\" [ref=e%d]\n", i, i+1)
	}
	prev := b.String()
	cur := strings.Replace(prev, `link "Item 200" [ref=e201]`, `link "Item 200 (seen)" [ref=e201]`, 1)
	r := Diff(prev, cur)
	if r.Changed != 1 || r.Added+r.Removed != 0 {
		t.Fatalf("counts %+v", r)
	}
	if len(r.Text)*20 > len(cur) {
		t.Errorf("one changed line of %d chars gave %d chars of changes:\n%s", len(cur), len(r.Text), r.Text)
	}
	if !strings.Contains(r.Text, "~     - link \"Item 200 (seen)\" [ref=e201]") || !strings.Contains(r.Text, "  - main:") {
		t.Errorf("changes:\n%s", r.Text)
	}
}

func TestRefOf(t *testing.T) {
	for in, want := range map[string]string{
		`- button "Go" [ref=e12]`: "e12", `- link "x" [ref=e3]:`: "e3", `- text: [ref=e]`: "", `- text: [ref=e1`: "", "- text: plain": "",
	} {
		if got := refOf(in); got != want {
			t.Errorf("refOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestContextLinesAreClipped(t *testing.T) {
	long := "- code: " + strings.Repeat("cy.get('.action').click() ", 20)
	prev := long + "\n- button \"Go\" [ref=e1]"
	r := Diff(prev, long+"\n- button \"Go\" [disabled] [ref=e1]")
	lines := strings.Split(r.Text, "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "cy.get('.actio …") || len([]rune(lines[0])) > 2+contextRunes+2 {
		t.Errorf("changes:\n%s", r.Text)
	}
	if lines[1] != `~ - button "Go" [disabled] [ref=e1]` {
		t.Errorf("the changed line is not whole: %q", lines[1])
	}
}

// BenchmarkDiff: a 12,000-character snapshot (about 330 lines) with one
// changed line, and with a third of its lines changed.
func BenchmarkDiff(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("- main:\n")
	for i := 0; sb.Len() < 12000; i++ {
		fmt.Fprintf(&sb, "  - listitem:\n    - link \"Item %d\" [ref=e%d]\n", i, i+1)
	}
	prev := sb.String()
	one := strings.Replace(prev, `"Item 100"`, `"Item 100 (seen)"`, 1)
	third := strings.ReplaceAll(prev, "0\" [ref", "0 (seen)\" [ref")
	for _, c := range []struct{ name, cur string }{{"one-line", one}, {"many-lines", third}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				Diff(prev, c.cur)
			}
		})
	}
}
