package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"wright/internal/peerpages"
)

// The model reads a role and a name in aria_snapshot() and targets the
// element through get_by_role(role, name=name, exact=True): the two must
// agree. These tests take the snapshot of a page and, for every line with
// a role, a name and a ref, check that the role selector get_by_role sends
// finds exactly the elements the snapshot lists under that role and name
// (in the frame the line is in), in the same order, each ref's element in
// its place. Named lines without a ref (headings, groups, options of a
// native select) are held to the same count.

// snapLine is one element line of a snapshot.
type snapLine struct {
	role, name, ref string
	frame           string // the ref of the innermost iframe holding it, "" for the page
	text            string
}

var (
	snapItem  = regexp.MustCompile(`^(\s*)- (.*)$`)
	snapRole  = regexp.MustCompile(`^[a-z][a-z-]*`)
	snapAttr  = regexp.MustCompile(`^ \[([a-z-]+)(?:=([^\]]*))?\]`)
	truncated = "…"
)

// parseSnapshot reads the element lines of an aria snapshot: the key of
// each (unquoted from YAML's single quotes when it is quoted), its role,
// its JSON-quoted name and its ref.
func parseSnapshot(t *testing.T, snap string) []snapLine {
	t.Helper()
	type open struct {
		indent int
		ref    string
	}
	var frames []open
	var out []snapLine
	for _, raw := range strings.Split(snap, "\n") {
		m := snapItem.FindStringSubmatch(raw)
		if m == nil {
			continue
		}
		indent, rest := len(m[1]), m[2]
		for len(frames) > 0 && frames[len(frames)-1].indent >= indent {
			frames = frames[:len(frames)-1]
		}
		key := rest
		if strings.HasPrefix(rest, "'") {
			end := 1
			for end < len(rest) {
				if rest[end] == '\'' {
					if end+1 < len(rest) && rest[end+1] == '\'' {
						end += 2
						continue
					}
					break
				}
				end++
			}
			key = strings.ReplaceAll(rest[1:end], "''", "'")
		}
		role := snapRole.FindString(key)
		if role == "" || role == "text" || strings.HasPrefix(key, "text:") {
			continue
		}
		l := snapLine{role: role, text: raw}
		k := key[len(role):]
		if strings.HasPrefix(k, ` "`) {
			dec := json.NewDecoder(strings.NewReader(k[1:]))
			if err := dec.Decode(&l.name); err != nil {
				t.Fatalf("line %q: the name is not a JSON string: %v", raw, err)
			}
			k = k[1+int(dec.InputOffset()):]
		}
		for {
			a := snapAttr.FindStringSubmatch(k)
			if a == nil {
				break
			}
			if a[1] == "ref" {
				l.ref = a[2]
			}
			k = k[len(a[0]):]
		}
		if len(frames) > 0 {
			l.frame = frames[len(frames)-1].ref
		}
		if role == "iframe" && l.ref != "" {
			frames = append(frames, open{indent, l.ref})
		}
		out = append(out, l)
	}
	return out
}

// agreement is what checkAgreement found on one page.
type agreement struct {
	checked    int      // lines with a role, a name and a ref, each resolved to its element
	counted    int      // named lines without a ref, whose role and name only are counted
	mismatches []string // what did not agree
}

// checkAgreement snapshots p and resolves every named, ref'd line through
// the role selector get_by_role(role, name=name, exact=True) sends.
func checkAgreement(t *testing.T, p *Page) agreement {
	t.Helper()
	ctx, cancel := context.WithTimeout(bg, 2*time.Minute)
	defer cancel()
	snap, err := p.AriaSnapshot(ctx, AriaOptions{}, 30*time.Second)
	if err != nil {
		t.Fatalf("aria snapshot: %v", err)
	}
	lines := parseSnapshot(t, snap)
	type groupKey struct{ frame, role, name string }
	groups := map[groupKey][]snapLine{}
	var order []groupKey
	for _, l := range lines {
		if l.name == "" {
			continue
		}
		k := groupKey{l.frame, l.role, l.name}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], l)
	}
	var res agreement
	for _, k := range order {
		g := groups[k]
		refs := 0
		for _, l := range g {
			if l.ref != "" {
				refs++
			}
		}
		res.checked += refs
		res.counted += len(g) - refs
		if strings.HasSuffix(k.name, truncated) && len([]rune(k.name)) > 900 {
			res.mismatches = append(res.mismatches, fmt.Sprintf("%s: the name is shortened in the snapshot; get_by_role cannot match it exactly", g[0].text))
			continue
		}
		name, _ := json.Marshal(k.name)
		sel := "role=" + k.role + "[name=" + string(name) + "]"
		if k.frame != "" {
			sel = "aria-ref=" + k.frame + " >> internal:control=enter-frame >> " + sel
		}
		if msg := sameElements(ctx, p, sel, g); msg != "" {
			res.mismatches = append(res.mismatches, msg)
		}
	}
	if res.checked == 0 {
		t.Fatalf("no line with a role, a name and a ref in the snapshot:\n%s", snap)
	}
	return res
}

// sameElements resolves sel and compares its matches, in order, with the
// snapshot's lines g: as many, and each ref'd line's element in its place.
func sameElements(ctx context.Context, p *Page, sel string, g []snapLine) string {
	l, err := p.Locator(sel)
	if err != nil {
		return fmt.Sprintf("%s: selector %s: %v", g[0].text, sel, err)
	}
	o := p.begin(ctx, 30*time.Second)
	defer o.end()
	hs, err := l.resolveNow(o)
	if err != nil {
		return fmt.Sprintf("%s: resolve %s: %v", g[0].text, sel, err)
	}
	describe := func() string {
		return strings.Join(p.describe(o, hs, 6), "; ")
	}
	if len(hs) != len(g) {
		return fmt.Sprintf("%s: %s finds %d elements, the snapshot lists %d: %s", strings.TrimSpace(g[0].text), sel, len(hs), len(g), describe())
	}
	for i, line := range g {
		if line.ref == "" {
			continue
		}
		ref, err := p.resolveRef(o, line.ref)
		if err != nil {
			return fmt.Sprintf("%s: resolve the ref: %v", line.text, err)
		}
		want, err := p.nodeID(o, ref)
		if err != nil {
			return fmt.Sprintf("%s: the ref's node: %v", line.text, err)
		}
		got, err := p.nodeID(o, hs[i])
		if err != nil {
			return fmt.Sprintf("%s: match %d's node: %v", line.text, i, err)
		}
		if got != want {
			return fmt.Sprintf("%s: match %d of %s is another element: %s", strings.TrimSpace(line.text), i, sel, describe())
		}
	}
	return ""
}

func reportAgreement(t *testing.T, page string, a agreement) {
	t.Helper()
	t.Logf("%s: %d lines with a ref resolved to their element, %d named lines without one counted, %d mismatches", page, a.checked, a.counted, len(a.mismatches))
	for _, m := range a.mismatches {
		t.Errorf("%s: %s", page, m)
	}
}

// TestRoleAgreementEdgeCases runs the check on a page of the constructs
// where role and name computations go wrong.
func TestRoleAgreementEdgeCases(t *testing.T) {
	p := testPage(t)
	if _, err := p.Goto(bg, site.URL+"/role_edges.html?other="+other, Load, 0); err != nil {
		t.Fatal(err)
	}
	// The iframes load after the page: wait for both documents.
	for _, sel := range []string{"#same >> internal:control=enter-frame >> #frame-ready", "#cross >> internal:control=enter-frame >> #frame-ready"} {
		if err := loc(t, p, sel).WaitFor(bg, stateAttached, 20*time.Second); err != nil {
			t.Fatalf("wait for %s: %v", sel, err)
		}
	}
	a := checkAgreement(t, p)
	reportAgreement(t, "role_edges.html", a)
	if a.checked < 40 {
		t.Errorf("only %d lines checked: the page lost its cases", a.checked)
	}
	// The other way round: what the snapshot hides, get_by_role does not find.
	snap, err := p.AriaSnapshot(bg, AriaOptions{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Ghost", "Gone", "Aria hidden", "Invisible", "Inert button", "Skipped content", "Skipped too", "In closed details"} {
		if strings.Contains(snap, `"`+name+`"`) {
			t.Errorf("the snapshot shows the hidden button %q", name)
		}
		if n, err := loc(t, p, `role=button[name="`+name+`"]`).Count(bg); err != nil || n != 0 {
			t.Errorf("get_by_role finds the hidden button %q %d times (%v)", name, n, err)
		}
		if n, err := loc(t, p, `role=button[name="`+name+`"][include-hidden]`).Count(bg); err != nil || n != 1 {
			t.Errorf("get_by_role with include_hidden finds the hidden button %q %d times, want 1 (%v)", name, n, err)
		}
	}
}

// TestRoleAgreementPeerPages runs the check on pages no one here wrote: the
// npm pages of bench/measure/perf, installed from npm on first use.
func TestRoleAgreementPeerPages(t *testing.T) {
	needBrowser(t)
	ctx, cancel := context.WithTimeout(bg, 5*time.Minute)
	defer cancel()
	dir, err := peerpages.Dir(ctx)
	if errors.Is(err, peerpages.ErrUnavailable) {
		t.Skipf("cannot install the npm pages: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	for _, page := range peerpages.Pages {
		t.Run(page, func(t *testing.T) {
			p := testPage(t)
			if _, err := p.Goto(bg, srv.URL+"/"+page, Load, 0); err != nil {
				t.Fatal(err)
			}
			if page == "todomvc/examples/vanillajs/index.html" {
				// The one TodoMVC whose scripts ship in the package (the
				// jQuery one lacks its bower_components: a static page).
				addTodos(t, p)
			}
			reportAgreement(t, page, checkAgreement(t, p))
		})
	}
}

// addTodos fills an empty TodoMVC list (one completed), so that its
// checkboxes, labels and buttons are in the snapshot too.
func addTodos(t *testing.T, p *Page) {
	t.Helper()
	for _, item := range []string{"Buy milk", `Quote "this" \ that`} {
		box := loc(t, p, "#new-todo")
		if err := box.Fill(bg, item, false, 10*time.Second); err != nil {
			t.Fatalf("fill a todo: %v", err)
		}
		if err := box.Press(bg, "Enter", 10*time.Second); err != nil {
			t.Fatalf("add a todo: %v", err)
		}
	}
	if err := loc(t, p, "#todo-list li >> nth=0 >> .toggle").Click(bg, ClickOptions{Timeout: 10 * time.Second}); err != nil {
		t.Fatalf("complete a todo: %v", err)
	}
}

// BenchmarkRoleSelector measures get_by_role with a name on the page of
// role and name edge cases with 1,200 links added (role=, names and
// hidden checks all computed by the role engine for every candidate).
func BenchmarkRoleSelector(b *testing.B) {
	p := open(b, "/role_edges.html")
	if _, err := p.Evaluate(bg, `() => { const ul = document.createElement('ul');
		for (let i = 1; i <= 1200; i++) ul.insertAdjacentHTML('beforeend', '<li><a href="/item/' + i + '">Item number ' + i + ' of the catalogue</a></li>');
		document.body.append(ul); }`, nil, 0); err != nil {
		b.Fatal(err)
	}
	l, err := p.Locator(`role=link[name="Item number 600 of the catalogue"]`)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if n, err := l.Count(bg); err != nil || n != 1 {
			b.Fatalf("count: %d, %v", n, err)
		}
	}
}
