package aria

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Golden snapshots of the fixtures in testdata, taken from a real Chromium.
func TestSnapshotGolden(t *testing.T) {
	tests := []struct {
		page string
		want string
	}{
		{"form.html", `
			- heading "Sign in" [level=1]
			- text: Email
			- textbox "Email" [ref=e1]:
			  - /placeholder: you@example.com
			- text: Name
			- textbox "Name" [ref=e2]: Ada
			- text: Postcode
			- textbox "Postcode" [invalid] [ref=e3]: x1
			- checkbox "Remember me" [checked] [ref=e4]
			- radio "Free" [checked] [ref=e5]
			- radio "Pro" [ref=e6]
			- text: Date
			- textbox "Date" [ref=e7]: 2024-05-06
			- text: Country
			- combobox "Country" [ref=e8]:
			  - option "France"
			  - option "Spain" [selected]
			- button "Submit" [disabled] [ref=e9]`},
		{"headings.html", `
			- heading "Title" [level=1]
			- heading "Section" [level=2]
			- heading "Tweaked" [level=4]
			- list:
			  - listitem: Plain text item
			  - listitem: Item with bold words
			  - listitem:
			    - text: Outer
			    - list:
			      - listitem: Inner one
			      - listitem: Inner two
			- paragraph: Closing paragraph.`},
		{"links.html", `
			- navigation "Main":
			  - link "Forgot password?" [ref=e1]:
			    - /url: /reset
			  - link "Docs" [ref=e2]:
			    - /url: https://example.com/docs?q=1#top
			  - link "Jump" [ref=e3]:
			    - /url: "#section"
			- paragraph:
			  - text: Read the
			  - link "terms" [ref=e4]:
			    - /url: /terms
			  - text: first.
			- text: Not a link`},
		{"table.html", `
			- table "People":
			  - caption: People
			  - rowgroup:
			    - row "Name Age Action":
			      - columnheader "Name"
			      - columnheader "Age"
			      - columnheader "Action"
			  - rowgroup:
			    - row "Ada 36 Edit":
			      - cell "Ada"
			      - cell "36"
			      - cell "Edit":
			        - button "Edit" [ref=e1]
			    - row "Alan 41 Edit":
			      - cell "Alan"
			      - cell "41"
			      - cell "Edit":
			        - button "Edit" [ref=e2]`},
		// Open and closed shadow roots both show: Chromium's tree is the
		// flat tree a user sees.
		{"shadow.html", `
			- paragraph: Light text
			- heading "Shadow heading" [level=2]
			- button "Shadow button" [ref=e1]
			- link "Deep link" [ref=e2]:
			  - /url: /deep`},
		// rod's launcher defaults keep the cross-site frame in process;
		// TestOutOfProcessIframe covers it with site isolation on.
		{"iframes.html", `
			- heading "Outer" [level=1]
			- iframe [ref=e1]:
			  - heading "Inside" [level=2]
			  - button "Frame button" [ref=e2]
			  - paragraph: not clicked
			- iframe [ref=e3]:
			  - heading "Inside" [level=2]
			  - button "Frame button" [ref=e4]
			  - paragraph: not clicked
			- button "After frames" [ref=e5]`},
		{"wrappers.html", `
			- button "Deep button" [ref=e1]
			- text: Wrapped text Left Right
			- link "Link in presentation" [ref=e2]:
			  - /url: /x
			- paragraph: Paragraph in none`},
		{"whitespace.html", `
			- paragraph: Lots of space and tabs
			- button "Spaced button" [ref=e1]
			- paragraph: Line one Line two
			- list:
			  - listitem: padded
			- 'heading "needs: quoting" [level=2]'
			- paragraph: "- starts with dash"
			- paragraph: "123"
			- paragraph: "\"quoted\""`},
		// Click handlers, tabindex and an outermost pointer cursor earn a
		// ref on elements without a widget role.
		{"interactive.html", `
			- banner:
			  - heading "Shop" [level=1]
			  - navigation "Main":
			    - list:
			      - listitem:
			        - link "Home" [ref=e1]:
			          - /url: /
			      - listitem:
			        - link "Cart" [ref=e2]:
			          - /url: /cart
			- main:
			  - heading "Products" [level=2]
			  - paragraph: Our finest goods, described at length.
			  - list:
			    - listitem:
			      - heading "Tea" [level=3]
			      - paragraph: Green tea.
			      - button "Add tea" [ref=e3]
			    - listitem:
			      - heading "Coffee" [level=3]
			      - paragraph: Dark roast.
			      - button "Add coffee" [ref=e4]
			  - generic [ref=e5]: Gift card
			  - generic [ref=e6]: Focusable span
			  - generic [ref=e7]: Pointer card
			  - form "Newsletter":
			    - textbox "Email" [ref=e8]
			    - button "Join" [ref=e9]
			- contentinfo:
			  - paragraph: Copyright`},
	}
	for _, tc := range tests {
		t.Run(tc.page, func(t *testing.T) {
			page, ctx := openPage(t, false, tc.page)
			assertSnapshot(t, snapshot(t, ctx, page, NewRegistry(), Options{}), tc.want)
		})
	}
}

func TestSnapshotWithoutRegistryHasNoRefs(t *testing.T) {
	page, ctx := openPage(t, false, "form.html")
	got := snapshot(t, ctx, page, nil, Options{})
	if strings.Contains(got, "[ref=") {
		t.Fatalf("snapshot without a registry shows refs:\n%s", got)
	}
	if !strings.Contains(got, `- button "Submit" [disabled]`) {
		t.Fatalf("snapshot lacks the button:\n%s", got)
	}
}

func TestInteractiveOnly(t *testing.T) {
	page, ctx := openPage(t, false, "interactive.html")
	got := snapshot(t, ctx, page, NewRegistry(), Options{InteractiveOnly: true})
	assertSnapshot(t, got, `
		- banner:
		  - navigation "Main":
		    - link "Home" [ref=e1]:
		      - /url: /
		    - link "Cart" [ref=e2]:
		      - /url: /cart
		- main:
		  - button "Add tea" [ref=e3]
		  - button "Add coffee" [ref=e4]
		  - generic [ref=e5]: Gift card
		  - generic [ref=e6]: Focusable span
		  - generic [ref=e7]: Pointer card
		  - form "Newsletter":
		    - textbox "Email" [ref=e8]
		    - button "Join" [ref=e9]`)
}

func TestInteractiveOnlyKeepsValuesAndChoices(t *testing.T) {
	page, ctx := openPage(t, false, "form.html")
	got := snapshot(t, ctx, page, NewRegistry(), Options{InteractiveOnly: true})
	assertSnapshot(t, got, `
		- textbox "Email" [ref=e1]:
		  - /placeholder: you@example.com
		- textbox "Name" [ref=e2]: Ada
		- textbox "Postcode" [invalid] [ref=e3]: x1
		- checkbox "Remember me" [checked] [ref=e4]
		- radio "Free" [checked] [ref=e5]
		- radio "Pro" [ref=e6]
		- textbox "Date" [ref=e7]: 2024-05-06
		- combobox "Country" [ref=e8]:
		  - option "France"
		  - option "Spain" [selected]
		- button "Submit" [disabled] [ref=e9]`)
}

func TestMaxDepth(t *testing.T) {
	page, ctx := openPage(t, false, "interactive.html")
	tests := []struct {
		depth int
		want  string
	}{
		{1, `
			- banner
			- main
			- contentinfo`},
		{2, `
			- banner:
			  - heading "Shop" [level=1]
			  - navigation "Main"
			- main:
			  - heading "Products" [level=2]
			  - paragraph: Our finest goods, described at length.
			  - list
			  - generic [ref=e1]: Gift card
			  - generic [ref=e2]: Focusable span
			  - generic [ref=e3]: Pointer card
			  - form "Newsletter"
			- contentinfo:
			  - paragraph: Copyright`},
	}
	for _, tc := range tests {
		t.Run(strconv.Itoa(tc.depth), func(t *testing.T) {
			assertSnapshot(t, snapshot(t, ctx, page, NewRegistry(), Options{MaxDepth: tc.depth}), tc.want)
		})
	}
}

func TestMaxCharsMarker(t *testing.T) {
	page, ctx := openPage(t, false, "interactive.html")
	full := snapshot(t, ctx, page, nil, Options{})
	fullLines := strings.Split(full, "\n")
	for _, budget := range []int{1, 20, 80, 150, 400, len(full) - 1} {
		t.Run(strconv.Itoa(budget), func(t *testing.T) {
			got := snapshot(t, ctx, page, nil, Options{MaxChars: budget})
			lines := strings.Split(got, "\n")
			last := lines[len(lines)-1]
			m := regexp.MustCompile(`^\[\.\.\. (\d+) more nodes\]$`).FindStringSubmatch(last)
			if m == nil {
				t.Fatalf("last line %q is not the marker:\n%s", last, got)
			}
			kept := lines[:len(lines)-1]
			// Whole lines of the full snapshot, in order: never a cut line.
			for i, l := range kept {
				if l != fullLines[i] {
					t.Fatalf("line %d %q is not line %d of the full snapshot %q", i, l, i, fullLines[i])
				}
			}
			if n, _ := strconv.Atoi(m[1]); n != len(fullLines)-len(kept) {
				t.Errorf("marker says %d more, %d were left out", n, len(fullLines)-len(kept))
			}
			if len([]rune(got)) > budget && len(kept) > 0 {
				t.Errorf("%d characters for a budget of %d", len([]rune(got)), budget)
			}
		})
	}
	if got := snapshot(t, ctx, page, nil, Options{MaxChars: len(full)}); got != full {
		t.Errorf("a budget the snapshot fits changed it:\n%s", got)
	}
}

// Refs of lines the budget cut are never issued: they do not resolve.
func TestMaxCharsIssuesOnlyShownRefs(t *testing.T) {
	page, ctx := openPage(t, false, "refs.html")
	reg := NewRegistry()
	got := snapshot(t, ctx, page, reg, Options{MaxChars: 45})
	if !strings.HasPrefix(got, `- button "Go" [ref=e1]`) || strings.Contains(got, "e2") {
		t.Fatalf("unexpected cut snapshot:\n%s", got)
	}
	if _, err := reg.Resolve(ctx, page, "e1"); err != nil {
		t.Fatalf("resolve shown ref: %v", err)
	}
	assertStale(t, reg, page, "e2", "unknown ref")
	// The next snapshot numbers on from the last ref shown.
	got = snapshot(t, ctx, page, reg, Options{})
	if !strings.Contains(got, `- button "Doomed" [ref=e2]`) {
		t.Fatalf("numbering did not continue at e2:\n%s", got)
	}
}

func TestScope(t *testing.T) {
	page, ctx := openPage(t, false, "interactive.html")
	for _, tc := range []struct {
		selector string
		want     string
	}{
		{"nav", `
			- navigation "Main":
			  - list:
			    - listitem:
			      - link "Home" [ref=e1]:
			        - /url: /
			    - listitem:
			      - link "Cart" [ref=e2]:
			        - /url: /cart`},
		// A wrapper that is not in the tree itself: its content is.
		{"main li:nth-child(2)", `
			- listitem:
			  - heading "Coffee" [level=3]
			  - paragraph: Dark roast.
			  - button "Add coffee" [ref=e1]`},
		{"footer p", `- paragraph: Copyright`},
	} {
		t.Run(tc.selector, func(t *testing.T) {
			id := backendID(t, page, tc.selector)
			assertSnapshot(t, snapshot(t, ctx, page, NewRegistry(), Options{Scope: id}), tc.want)
		})
	}
}

func TestScopeInsideShadowAndFrame(t *testing.T) {
	page, ctx := openPage(t, false, "shadow.html")
	host := page.MustElement("#host")
	res, err := proto.DOMDescribeNode{ObjectID: host.Object.ObjectID, Depth: intPtr(1), Pierce: true}.Call(page)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Node.ShadowRoots) == 0 {
		t.Fatal("host has no shadow root")
	}
	got := snapshot(t, ctx, page, nil, Options{Scope: res.Node.ShadowRoots[0].BackendNodeID})
	assertSnapshot(t, got, `
		- heading "Shadow heading" [level=2]
		- button "Shadow button"
		- link "Deep link":
		  - /url: /deep`)

	page, ctx = openPage(t, false, "iframes.html")
	frame := page.MustElement(`iframe[title="same"]`).MustFrame()
	btn := frame.MustElement("button")
	got = snapshot(t, ctx, page, nil, Options{Scope: describe(t, btn).BackendNodeID})
	assertSnapshot(t, got, `- button "Frame button"`)
}

func TestBadInput(t *testing.T) {
	page, ctx := openPage(t, false, "refs.html")
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"negative depth", Options{MaxDepth: -1}, "max_depth"},
		{"negative chars", Options{MaxChars: -5}, "max_chars"},
		{"unknown scope", Options{Scope: 987654321}, "scope node 987654321 is not in the page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Snapshot(ctx, page, NewRegistry(), tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := Snapshot(ctx, nil, nil, Options{}); err == nil {
		t.Error("snapshot of a nil page did not fail")
	}
	var nilReg *Registry
	if _, err := nilReg.Resolve(ctx, page, "e1"); err == nil {
		t.Error("resolve on a nil registry did not fail")
	}
	done, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Snapshot(done, page, NewRegistry(), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("snapshot with an ended context: %v", err)
	}
	reg := NewRegistry()
	snapshot(t, ctx, page, reg, Options{})
	if _, err := reg.Resolve(done, page, "e1"); !errors.Is(err, context.Canceled) {
		t.Errorf("resolve with an ended context: %v", err)
	}
	// A failed snapshot loses nothing: the page still snapshots.
	if got := snapshot(t, ctx, page, nil, Options{}); !strings.Contains(got, `button "Go"`) {
		t.Fatalf("snapshot after errors:\n%s", got)
	}
}

func TestResolveAndClick(t *testing.T) {
	page, ctx := openPage(t, false, "refs.html")
	reg := NewRegistry()
	snap := snapshot(t, ctx, page, reg, Options{})
	ref := refOf(t, snap, `button "Go"`)
	el, err := reg.Resolve(ctx, page, ref)
	if err != nil {
		t.Fatalf("resolve %s: %v", ref, err)
	}
	if id := el.MustAttribute("id"); id == nil || *id != "go" {
		t.Fatalf("ref %s resolved to element with id %v", ref, id)
	}
	if err := el.Context(ctx).Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatalf("click: %v", err)
	}
	if got := page.MustElement("#status").MustText(); got != "clicked 1" {
		t.Fatalf("status after click = %q", got)
	}
	// The effect shows in the next snapshot, and the button keeps its ref.
	snap = snapshot(t, ctx, page, reg, Options{})
	if !strings.Contains(snap, "- paragraph: clicked 1") || refOf(t, snap, `button "Go"`) != ref {
		t.Fatalf("after click:\n%s", snap)
	}
}

func TestStaleAfterRemoval(t *testing.T) {
	page, ctx := openPage(t, false, "refs.html")
	reg := NewRegistry()
	snap := snapshot(t, ctx, page, reg, Options{})
	doomed, kept := refOf(t, snap, `button "Doomed"`), refOf(t, snap, `button "Kept"`)
	// Script keeps a handle to one removed node: alive but detached.
	page.MustEval(`() => { window.keep = document.getElementById('doomed'); window.keep.remove(); }`)
	assertStale(t, reg, page, doomed, "element removed")
	if _, err := reg.Resolve(ctx, page, kept); err != nil {
		t.Fatalf("untouched ref %s: %v", kept, err)
	}
	// Replaced by an identical element: still not the element the ref was given to.
	page.MustEval(`() => { const k = document.getElementById('kept'); k.replaceWith(k.cloneNode(true)); }`)
	assertStale(t, reg, page, kept, "element removed")
	snap = snapshot(t, ctx, page, reg, Options{})
	if fresh := refOf(t, snap, `button "Kept"`); fresh == kept {
		t.Fatalf("the clone got the old ref %s", kept)
	}
}

func TestStaleAfterNavigation(t *testing.T) {
	page, ctx := openPage(t, false, "refs.html")
	reg := NewRegistry()
	snap := snapshot(t, ctx, page, reg, Options{})
	goRef := refOf(t, snap, `button "Go"`)
	navigate(t, page, ctx, server.URL+"/other.html")
	assertStale(t, reg, page, goRef, "page navigated")
	// Back on the same URL it is a new document: still stale.
	navigate(t, page, ctx, server.URL+"/refs.html")
	assertStale(t, reg, page, goRef, "page navigated")
	snap = snapshot(t, ctx, page, reg, Options{})
	if fresh := refOf(t, snap, `button "Go"`); refNumber(t, fresh) <= refNumber(t, goRef) {
		t.Fatalf("new document's button got %s, not above %s", fresh, goRef)
	}
}

func TestStaleAfterFrameNavigation(t *testing.T) {
	page, ctx := openPage(t, false, "iframes.html")
	reg := NewRegistry()
	snap := snapshot(t, ctx, page, reg, Options{})
	inner := refsOf(t, snap, `button "Frame button"`)[0]
	page.MustEval(`() => { document.querySelector('iframe[title=same]').src = '/other.html'; }`)
	waitFor(t, page, `() => document.querySelector('iframe[title=same]').contentDocument.title === 'Other'`)
	assertStale(t, reg, page, inner, "frame navigated")
	page.MustEval(`() => document.querySelector('iframe[title=same]').remove()`)
	assertStale(t, reg, page, inner, "element removed")
}

func TestUnknownRefs(t *testing.T) {
	page, ctx := openPage(t, false, "refs.html")
	reg := NewRegistry()
	snapshot(t, ctx, page, reg, Options{})
	for _, ref := range []string{"e999", "e0", "e01", "E1", "1", "", "e", "e-1", "e1x", "ref=e1"} {
		assertStale(t, reg, page, ref, "unknown ref")
	}
	// A ref from another page's registry means nothing here.
	assertStale(t, NewRegistry(), page, "e1", "unknown ref")
}

func TestRefNumbersIncreaseAcrossSnapshots(t *testing.T) {
	page, ctx := openPage(t, false, "refs.html")
	reg := NewRegistry()
	first := refsIn(snapshot(t, ctx, page, reg, Options{}))
	// Unchanged elements keep their refs.
	second := refsIn(snapshot(t, ctx, page, reg, Options{}))
	if strings.Join(first, ",") != strings.Join(second, ",") {
		t.Fatalf("unchanged page: refs %v then %v", first, second)
	}
	max := 0
	for _, r := range first {
		if n := refNumber(t, r); n > max {
			max = n
		}
	}
	// A renamed element and a new one get numbers never used before.
	page.MustEval(`() => { document.getElementById('kept').textContent = 'Renamed';
		const b = document.createElement('button'); b.textContent = 'New'; document.body.append(b); }`)
	snap := snapshot(t, ctx, page, reg, Options{})
	for _, label := range []string{`button "Renamed"`, `button "New"`} {
		if n := refNumber(t, refOf(t, snap, label)); n <= max {
			t.Errorf("%s got e%d, not above e%d", label, n, max)
		}
	}
	if refOf(t, snap, `button "Go"`) != first[0] {
		t.Errorf("unchanged button lost its ref:\n%s", snap)
	}
}

func TestResolveInSameProcessIframe(t *testing.T) {
	page, ctx := openPage(t, false, "iframes.html")
	reg := NewRegistry()
	snap := snapshot(t, ctx, page, reg, Options{})
	refs := refsOf(t, snap, `button "Frame button"`)
	if len(refs) != 2 {
		t.Fatalf("want two frame buttons:\n%s", snap)
	}
	for i, ref := range refs {
		el, err := reg.Resolve(ctx, page, ref)
		if err != nil {
			t.Fatalf("resolve %s: %v", ref, err)
		}
		if err := el.Context(ctx).Click(proto.InputMouseButtonLeft, 1); err != nil {
			t.Fatalf("click %s: %v", ref, err)
		}
		title := []string{"same", "cross"}[i]
		frame := page.MustElement(`iframe[title="` + title + `"]`).MustFrame()
		if got := frame.MustElement("#out").MustText(); got != "frame clicked" {
			t.Fatalf("%s frame after click: %q", title, got)
		}
	}
}

// With site isolation on (Chrome's default), the cross-site frame lives
// in another renderer and is read through its own target.
func TestOutOfProcessIframe(t *testing.T) {
	page, ctx := openPage(t, true, "iframes.html")
	if n := countIframeTargets(t, page); n == 0 {
		t.Fatal("no out-of-process iframe target: isolation did not take effect")
	}
	reg := NewRegistry()
	snap := snapshot(t, ctx, page, reg, Options{})
	assertSnapshot(t, snap, `
		- heading "Outer" [level=1]
		- iframe [ref=e1]:
		  - heading "Inside" [level=2]
		  - button "Frame button" [ref=e2]
		  - paragraph: not clicked
		- iframe [ref=e3]:
		  - heading "Inside" [level=2]
		  - button "Frame button" [ref=e4]
		  - paragraph: not clicked
		- button "After frames" [ref=e5]`)
	el, err := reg.Resolve(ctx, page, "e4")
	if err != nil {
		t.Fatalf("resolve e4: %v", err)
	}
	if err := el.Context(ctx).Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatalf("click e4: %v", err)
	}
	snap = snapshot(t, ctx, page, reg, Options{})
	if !strings.Contains(snap, "  - paragraph: frame clicked\n- button") {
		t.Fatalf("click in the out-of-process frame did not show:\n%s", snap)
	}
	page.MustEval(`() => document.querySelector('iframe[title=cross]').remove()`)
	assertStale(t, reg, page, "e4", "element removed")
}

// ---- helpers

var refPattern = regexp.MustCompile(`\[ref=(e\d+)\]`)

func refsIn(snap string) []string {
	var out []string
	for _, m := range refPattern.FindAllStringSubmatch(snap, -1) {
		out = append(out, m[1])
	}
	return out
}

// refsOf returns the refs of the lines that start with "- "+label.
func refsOf(t testing.TB, snap, label string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(snap, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "- "+label+" ") {
			if m := refPattern.FindStringSubmatch(l); m != nil {
				out = append(out, m[1])
			}
		}
	}
	return out
}

func refOf(t testing.TB, snap, label string) string {
	t.Helper()
	refs := refsOf(t, snap, label)
	if len(refs) != 1 {
		t.Fatalf("want one ref for %s, got %v in:\n%s", label, refs, snap)
	}
	return refs[0]
}

func refNumber(t testing.TB, ref string) int {
	t.Helper()
	n, ok := parseRef(ref)
	if !ok {
		t.Fatalf("bad ref %q", ref)
	}
	return n
}

func assertStale(t testing.TB, reg *Registry, page *rod.Page, ref, reason string) {
	t.Helper()
	el, err := reg.Resolve(page.GetContext(), page, ref)
	var stale *StaleRefError
	if !errors.As(err, &stale) {
		t.Fatalf("resolve %q: got element %v, error %v; want StaleRefError (%s)", ref, el, err, reason)
	}
	if stale.Reason != reason || stale.Ref != ref {
		t.Fatalf("resolve %q: %v; want reason %q", ref, err, reason)
	}
	if !strings.Contains(err.Error(), "take a new aria_snapshot()") {
		t.Fatalf("error does not say what to do: %v", err)
	}
}

func backendID(t testing.TB, page *rod.Page, selector string) proto.DOMBackendNodeID {
	t.Helper()
	return describe(t, page.MustElement(selector)).BackendNodeID
}

func describe(t testing.TB, el *rod.Element) *proto.DOMNode {
	t.Helper()
	node, err := el.Describe(0, false)
	if err != nil {
		t.Fatalf("describe: %v", err)
	}
	return node
}

func intPtr(i int) *int { return &i }

func waitFor(t testing.TB, page *rod.Page, js string) {
	t.Helper()
	if err := page.Wait(rod.Eval(js)); err != nil {
		t.Fatalf("wait for %s: %v", js, err)
	}
}

func countIframeTargets(t testing.TB, page *rod.Page) int {
	t.Helper()
	res, err := proto.TargetGetTargets{}.Call(page.Browser())
	if err != nil {
		t.Fatalf("targets: %v", err)
	}
	n := 0
	for _, ti := range res.TargetInfos {
		if ti.Type == "iframe" {
			n++
		}
	}
	return n
}

// Snapshots may run concurrently (the driver serves several calls at
// once); the registry keeps one ref per unchanged element.
func TestConcurrentSnapshotsShareRegistry(t *testing.T) {
	page, ctx := openPage(t, false, "refs.html")
	reg := NewRegistry()
	const workers = 4
	outs := make([]string, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			outs[i], errs[i] = Snapshot(ctx, page, reg, Options{})
		}(i)
	}
	wg.Wait()
	for i := range outs {
		if errs[i] != nil {
			t.Fatalf("snapshot %d: %v", i, errs[i])
		}
		if outs[i] != outs[0] {
			t.Fatalf("snapshots differ:\n%s\n---\n%s", outs[0], outs[i])
		}
	}
	if got := refsIn(outs[0]); strings.Join(got, ",") != "e1,e2,e3,e4" {
		t.Fatalf("refs %v", got)
	}
}
