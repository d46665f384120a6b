package aria

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-rod/rod/lib/proto"
)

// These tests need no browser: quoting, rendering, pruning, cutting and
// ref numbering on hand-built trees.

func TestYAMLValueQuoting(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"Sign in", "Sign in"},
		{"", `""`},
		{" lead", `" lead"`},
		{"trail ", `"trail "`},
		{"- dash", `"- dash"`},
		{"a: b", `"a: b"`},
		{"ends:", `"ends:"`},
		{"a:b", "a:b"},
		{"http://x.y/z", "http://x.y/z"},
		{"a #b", `"a #b"`},
		{"a#b", "a#b"},
		{"#top", `"#top"`},
		{"line\nbreak", `"line\nbreak"`},
		{"tab\there", "tab\there"},
		{"ctl\x01", `"ctl\x01"`},
		{`"q"`, `"\"q\""`},
		{`back\slash`, `back\slash`},
		{`{brace}`, `"{brace}"`},
		{"`tick`", "\"`tick`\""},
		{"[bracket", `"[bracket"`},
		{"a]", "a]"},
		{"&amp", `"&amp"`},
		{"*star", `"*star"`},
		{"!bang", `"!bang"`},
		{"%pct", `"%pct"`},
		{"@at", `"@at"`},
		{"'single", `"'single"`},
		{"123", `"123"`},
		{"-5", `"-5"`},
		{"1.5e3", `"1.5e3"`},
		{".5", `".5"`},
		{"0x1F", `"0x1F"`},
		{"Infinity", `"Infinity"`},
		{"12 items", "12 items"},
		{"yes", `"yes"`},
		{"No", `"No"`},
		{"null", `"null"`},
		{"on", `"on"`},
		{"offline", "offline"},
		{"Émoji 😀", "Émoji 😀"},
		{"nbsp\u00a0end", "nbsp\u00a0end"},
	}
	for _, tc := range tests {
		if got := yamlValue(tc.in); got != tc.want {
			t.Errorf("yamlValue(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestYAMLKeyQuoting(t *testing.T) {
	tests := []struct{ in, want string }{
		{`button "Go" [ref=e1]`, `button "Go" [ref=e1]`},
		{`heading "a: b" [level=2]`, `'heading "a: b" [level=2]'`},
		{`link "it's: here"`, `'link "it''s: here"'`},
		{`text "a #1 pick"`, `'text "a #1 pick"'`},
		{`text "#1"`, `text "#1"`},
	}
	for _, tc := range tests {
		if got := yamlKey(tc.in); got != tc.want {
			t.Errorf("yamlKey(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestJSONString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Go", `"Go"`},
		{`say "hi"`, `"say \"hi\""`},
		{`a\b`, `"a\\b"`},
		{"<b>&</b>", `"<b>&</b>"`}, // no HTML escaping, as JSON.stringify
		{"nl\n", `"nl\n"`},
		{"\x01", `"\u0001"`},
		{"😀", `"😀"`},
	}
	for _, tc := range tests {
		if got := jsonString(tc.in); got != tc.want {
			t.Errorf("jsonString(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestNormalizeSpace(t *testing.T) {
	tests := []struct{ in, want string }{
		{"  a  b  ", "a b"},
		{"a\n\t b", "a b"},
		{"zero\u200bwidth", "zerowidth"},
		{"soft\u00adhyphen", "softhyphen"},
		{"\u00a0nbsp\u00a0", "nbsp"},
		{"", ""},
		{"   ", ""},
	}
	for _, tc := range tests {
		if got := normalizeSpace(tc.in); got != tc.want {
			t.Errorf("normalizeSpace(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseRef(t *testing.T) {
	good := map[string]int{"e1": 1, "e42": 42, "e1000000": 1000000}
	for in, want := range good {
		if n, ok := parseRef(in); !ok || n != want {
			t.Errorf("parseRef(%q) = %d, %v", in, n, ok)
		}
	}
	for _, in := range []string{"", "e", "e0", "e01", "E1", "1", "e-1", "e+1", "e1 ", " e1", "f1", "e1.0", "e99999999999999999999999"} {
		if _, ok := parseRef(in); ok {
			t.Errorf("parseRef(%q) accepted", in)
		}
	}
}

// sample builds a small tree: a nav with links, a paragraph, a textbox.
func sample() *node {
	link := func(name, url string, id int) *node {
		return &node{role: "link", name: name, actionable: true, props: []prop{{"url", url}},
			key: refKey{backend: proto.DOMBackendNodeID(id)}}
	}
	nav := &node{role: "navigation", name: "Main", kids: []item{
		{n: &node{role: "list", kids: []item{
			{n: &node{role: "listitem", kids: []item{{n: link("Home", "/", 1)}}}},
			{n: &node{role: "listitem", kids: []item{{n: link("About", "/about", 2)}}}},
		}}},
	}}
	para := &node{role: "paragraph", kids: []item{{text: "Hello"}, {n: link("you", "#you", 3)}, {text: "there"}}}
	box := &node{role: "textbox", name: "Email", actionable: true, kids: []item{{text: "a@b.c"}},
		key: refKey{backend: 4}}
	return &node{role: "fragment", kids: []item{{n: nav}, {n: para}, {n: box}, {text: "tail text"}}}
}

func renderPlain(root *node, depth int) string {
	r := &renderer{maxDepth: depth}
	r.render(root)
	var lines []string
	for _, l := range r.lines {
		lines = append(lines, l.text)
	}
	return strings.Join(lines, "\n")
}

func TestRender(t *testing.T) {
	assertSnapshot(t, renderPlain(sample(), 0), `
		- navigation "Main":
		  - list:
		    - listitem:
		      - link "Home":
		        - /url: /
		    - listitem:
		      - link "About":
		        - /url: /about
		- paragraph:
		  - text: Hello
		  - link "you":
		    - /url: "#you"
		  - text: there
		- textbox "Email": a@b.c
		- text: tail text`)
	assertSnapshot(t, renderPlain(sample(), 2), `
		- navigation "Main":
		  - list
		- paragraph:
		  - text: Hello
		  - link "you"
		  - text: there
		- textbox "Email": a@b.c
		- text: tail text`)
}

func TestRenderStates(t *testing.T) {
	root := &node{role: "fragment", kids: []item{
		{n: &node{role: "checkbox", name: "A", checked: "true"}},
		{n: &node{role: "checkbox", name: "B", checked: "mixed", disabled: true}},
		{n: &node{role: "button", name: "C", pressed: "true", expanded: true}},
		{n: &node{role: "button", name: "D", pressed: "mixed"}},
		{n: &node{role: "heading", name: "E", level: 3}},
		{n: &node{role: "option", name: "F", selected: true}},
		{n: &node{role: "textbox", name: "G", invalid: "true", disabled: true}},
		{n: &node{role: "textbox", name: "H", invalid: "spelling"}},
		{n: &node{role: "heading", name: strings.Repeat("x", 1000)}},
	}}
	got := renderPlain(root, 0)
	want := dedent(`
		- checkbox "A" [checked]
		- checkbox "B" [checked=mixed] [disabled]
		- button "C" [expanded] [pressed]
		- button "D" [pressed=mixed]
		- heading "E" [level=3]
		- option "F" [selected]
		- textbox "G" [disabled] [invalid]
		- textbox "H" [invalid=spelling]`)
	if !strings.HasPrefix(got, want+"\n") {
		t.Fatalf("got:\n%s\nwant prefix:\n%s", got, want)
	}
	last := got[strings.LastIndex(got, "\n")+1:]
	if last != `- heading "`+strings.Repeat("x", maxNameRunes)+`…"` {
		t.Errorf("long name not shortened: %d chars", len(last))
	}
}

func TestFinishMergesText(t *testing.T) {
	n := &node{role: "listitem", kids: []item{{text: " a "}, {text: "\n"}, {text: "b"}, {text: " "}}}
	finish(n)
	if len(n.kids) != 1 || n.kids[0].text != "a b" {
		t.Fatalf("kids %+v", n.kids)
	}
	// Text that only repeats the name goes.
	b := &node{role: "button", name: "Save", kids: []item{{text: " Save "}}}
	finish(b)
	if len(b.kids) != 0 {
		t.Fatalf("button kept its name as text: %+v", b.kids)
	}
	// A row is named from its cells.
	row := &node{role: "row", kids: []item{{n: &node{role: "cell", name: "Ada"}}, {n: &node{role: "cell", kids: []item{{text: "36"}}}}}}
	finish(row)
	if row.name != "Ada 36" {
		t.Fatalf("row name %q", row.name)
	}
}

func TestInteractiveOnlyPrune(t *testing.T) {
	assertSnapshot(t, renderPlain(interactiveOnly(sample()), 0), `
		- navigation "Main":
		  - link "Home":
		    - /url: /
		  - link "About":
		    - /url: /about
		- link "you":
		  - /url: "#you"
		- textbox "Email": a@b.c`)
	// A nameless clickable keeps the text of its content.
	card := &node{role: "generic", actionable: true, kids: []item{{n: &node{role: "heading", name: "Tea", level: 3}}, {n: &node{role: "paragraph", kids: []item{{text: "Green"}}}}}}
	root := &node{role: "fragment", kids: []item{{n: card}, {n: &node{role: "paragraph", kids: []item{{text: "gone"}}}}}}
	assertSnapshot(t, renderPlain(interactiveOnly(root), 0), `- generic: Tea Green`)
}

func TestCut(t *testing.T) {
	// Four lines of 11 characters: 47 with the newlines. The marker
	// "[... N more nodes]" is 18.
	lines := []line{{text: "- aaaaaaaaa"}, {text: "- bbbbbbbbb"}, {text: "- ccccccccc"}, {text: "- ddddddddd"}}
	tests := []struct {
		max        int
		kept       int
		wantMarker string
	}{
		{0, 4, ""},
		{47, 4, ""},
		{1000, 4, ""},
		{46, 2, "[... 2 more nodes]"}, // 23+1+18 = 42; three lines would need 54
		{42, 2, "[... 2 more nodes]"},
		{41, 1, "[... 3 more nodes]"},
		{30, 1, "[... 3 more nodes]"}, // 11+1+18
		{29, 0, "[... 4 more nodes]"},
		{18, 0, "[... 4 more nodes]"},
		{1, 0, "[... 4 more nodes]"}, // too small even for the marker: the marker alone
	}
	for _, tc := range tests {
		kept, marker := cut(lines, tc.max)
		if kept != tc.kept || marker != tc.wantMarker {
			t.Errorf("cut(%d) = %d, %q; want %d, %q", tc.max, kept, marker, tc.kept, tc.wantMarker)
		}
	}
}

func TestRegistryNumbering(t *testing.T) {
	reg := NewRegistry()
	a := &node{role: "button", name: "A", key: refKey{backend: 1}, loader: "L"}
	b := &node{role: "button", name: "B", key: refKey{backend: 2}, loader: "L"}
	is := reg.begin("L")
	if ra, rb := is.refFor(a), is.refFor(b); ra != "e1" || rb != "e2" {
		t.Fatalf("first refs %s %s", ra, rb)
	}
	is.commit([]*node{a}) // b's line was cut: e2 is not issued
	if reg.last != 1 || len(reg.refs) != 1 {
		t.Fatalf("after commit: last %d, %d refs", reg.last, len(reg.refs))
	}
	is = reg.begin("L")
	a2 := &node{role: "button", name: "A", key: refKey{backend: 1}, loader: "L"}
	if r := is.refFor(a2); r != "e1" {
		t.Fatalf("same element got %s, want its old e1", r)
	}
	if r := is.refFor(b); r != "e2" {
		t.Fatalf("b got %s", r)
	}
	renamed := &node{role: "button", name: "A2", key: refKey{backend: 1}, loader: "L"}
	if r := is.refFor(renamed); r != "e3" {
		t.Fatalf("renamed element got %s, want a new e3", r)
	}
	is.commit([]*node{a2, b, renamed})
	// After navigation (another loader) the same backend id is a new element.
	is = reg.begin("L2")
	moved := &node{role: "button", name: "A", key: refKey{backend: 1}, loader: "L2"}
	if r := is.refFor(moved); r != "e4" {
		t.Fatalf("element of a new document got %s", r)
	}
	is.commit([]*node{moved})
}

func TestRegistryLimitExpiresOldest(t *testing.T) {
	reg := NewRegistry()
	reg.limit = 2
	for i := 1; i <= 3; i++ {
		is := reg.begin("L")
		n := &node{role: "button", key: refKey{backend: proto.DOMBackendNodeID(i)}, loader: "L"}
		is.refFor(n)
		is.commit([]*node{n})
	}
	if _, ok := reg.refs[1]; ok || len(reg.refs) != 2 {
		t.Fatalf("refs kept: %v", reg.refs)
	}
	// Resolving needs no page for refs that are gone.
	_, err := reg.resolve(context.Background(), nil, "e1")
	var stale *StaleRefError
	if !errors.As(err, &stale) || stale.Reason != "expired" {
		t.Fatalf("expired ref: %v", err)
	}
	_, err = reg.resolve(context.Background(), nil, "e9")
	if !errors.As(err, &stale) || stale.Reason != "unknown ref" {
		t.Fatalf("never issued ref: %v", err)
	}
}
