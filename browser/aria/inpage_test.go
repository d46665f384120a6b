package aria

import (
	"context"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
)

var noRefs = regexp.MustCompile(` \[ref=e\d+\]`)

// inPage snapshots through the in-page builder only (no fallback).
func inPage(t testing.TB, ctx context.Context, page *rod.Page, reg *Registry, opts Options) (string, *built) {
	t.Helper()
	bt, err := buildInPage(ctx, page, reg, opts)
	if err != nil {
		t.Fatalf("in-page build: %v", err)
	}
	return render(bt, reg, opts), bt
}

// The in-page builder reads the page as Chromium's accessibility tree does
// (the protocol builder is the reference the goldens were taken from).
func TestInPageMatchesAXTree(t *testing.T) {
	names := []string{"form.html", "headings.html", "links.html", "table.html", "shadow.html",
		"wrappers.html", "whitespace.html", "interactive.html", "medium.html", "iframes.html", "refs.html", "mixed.html", "mixed2.html"}
	if extra := os.Getenv("ARIA_COMPARE_URLS"); extra != "" {
		names = append(names, strings.Fields(extra)...)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var page *rod.Page
			var ctx context.Context
			if strings.Contains(name, "://") {
				page, ctx = openPage(t, false, "other.html")
				navigate(t, page, ctx, name)
			} else {
				page, ctx = openPage(t, false, name)
			}
			for _, opts := range []Options{{}, {InteractiveOnly: true}} {
				got, _ := inPage(t, ctx, page, nil, opts)
				ax, err := buildFromAXTree(ctx, page, opts)
				if err != nil {
					t.Fatal(err)
				}
				want := render(ax, nil, opts)
				if os.Getenv("ARIA_COMPARE_DUMP") != "" {
					_ = os.WriteFile(os.Getenv("ARIA_COMPARE_DUMP")+"/"+strconv.Itoa(len(name))+"-inpage.txt", []byte(got), 0o644)
					_ = os.WriteFile(os.Getenv("ARIA_COMPARE_DUMP")+"/"+strconv.Itoa(len(name))+"-ax.txt", []byte(want), 0o644)
				}
				if got != want {
					t.Errorf("in-page and accessibility-tree snapshots differ (%+v):\n%s", opts, lineDiff(got, want))
				}
			}
		})
	}
}

// lineDiff shows the first lines where two snapshots part.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			lo := max(0, i-2)
			return "in-page:\n" + strings.Join(g[lo:min(len(g), i+4)], "\n") + "\nax tree:\n" + strings.Join(w[lo:min(len(w), i+4)], "\n") + "\n(line " + strconv.Itoa(i+1) + ")"
		}
	}
	return ""
}

// With a budget the page sends only the lines that can fit: the output is
// whole lines of the uncut snapshot, in order, then the marker counting
// every line left out, and the page did not send the rest.
func TestInPageBudgetCut(t *testing.T) {
	page, ctx := openPage(t, false, "links1200.html")
	full := snapshot(t, ctx, page, nil, Options{})
	fullLines := strings.Split(full, "\n")
	marker := regexp.MustCompile(`^\[\.\.\. (\d+) more nodes\]$`)
	for _, budget := range []int{1, 100, 12000, len(full) / 2} {
		t.Run(strconv.Itoa(budget), func(t *testing.T) {
			reg := NewRegistry()
			got, bt := inPage(t, ctx, page, reg, Options{MaxChars: budget})
			if bt.more == 0 {
				t.Errorf("the page sent all %d lines for a budget of %d", len(fullLines), budget)
			}
			lines := strings.Split(got, "\n")
			m := marker.FindStringSubmatch(lines[len(lines)-1])
			if m == nil {
				t.Fatalf("no marker at the end:\n%s", got)
			}
			kept := lines[:len(lines)-1]
			for i, l := range kept {
				// Refs differ (a registry here, none for full): compare without them.
				if noRefs.ReplaceAllString(l, "") != fullLines[i] {
					t.Fatalf("line %d %q is not line %d of the uncut snapshot %q", i, l, i, fullLines[i])
				}
			}
			if n, _ := strconv.Atoi(m[1]); n != len(fullLines)-len(kept) {
				t.Errorf("marker says %d more, %d were left out", n, len(fullLines)-len(kept))
			}
			if len([]rune(got)) > budget && len(kept) > 0 {
				t.Errorf("%d characters for a budget of %d", len([]rune(got)), budget)
			}
			if budget >= 12000 && len([]rune(got)) < budget*9/10 {
				t.Errorf("only %d characters of a budget of %d used", len([]rune(got)), budget)
			}
			// The refs shown resolve to the links they name.
			for _, l := range kept {
				if ref := refPattern.FindStringSubmatch(l); ref != nil && strings.Contains(l, `"Item number 7 `) {
					el, err := reg.Resolve(ctx, page, ref[1])
					if err != nil {
						t.Fatalf("resolve %s: %v", ref[1], err)
					}
					if txt := el.MustText(); txt != "Item number 7 of the catalogue" {
						t.Fatalf("%s resolved to %q", ref[1], txt)
					}
				}
			}
		})
	}
}

// An unchanged page answers from the last snapshot; any change to the
// DOM, or to a form control's value (which no mutation reports), builds
// a new one.
func TestInPageCacheInvalidation(t *testing.T) {
	page, ctx := openPage(t, false, "form.html")
	reg := NewRegistry()
	first, bt := inPage(t, ctx, page, reg, Options{})
	again, bt2 := inPage(t, ctx, page, reg, Options{})
	if bt2 != bt || again != first {
		t.Fatalf("unchanged page was built again (same tree: %v)", bt2 == bt)
	}
	// Other options are another snapshot.
	if _, bt3 := inPage(t, ctx, page, reg, Options{InteractiveOnly: true}); bt3 == bt {
		t.Fatal("interactive-only snapshot reused the full one")
	}
	inPage(t, ctx, page, reg, Options{})

	for _, change := range []struct {
		name, js, want string
	}{
		{"text", `() => { document.querySelector('h1').textContent = 'Log in'; }`, `heading "Log in"`},
		{"attribute", `() => { document.querySelector('button').disabled = false; }`, `button "Submit" [ref=`},
		{"value without events", `() => { document.getElementById('name').value = 'Grace'; }`, `textbox "Name" [ref=e2]: Grace`},
		{"checked without events", `() => { document.querySelector('input[type=checkbox]').checked = false; }`, `checkbox "Remember me" [ref=e4]`},
		{"select without events", `() => { document.getElementById('country').selectedIndex = 0; }`, `option "France" [selected]`},
	} {
		t.Run(change.name, func(t *testing.T) {
			_, before := inPage(t, ctx, page, reg, Options{})
			page.MustEval(change.js)
			got, after := inPage(t, ctx, page, reg, Options{})
			if after == before || !strings.Contains(got, change.want) {
				t.Fatalf("after the change (rebuilt: %v), want %q in:\n%s", after != before, change.want, got)
			}
		})
	}

	// Typing reaches the snapshot too, and the cached refs still resolve.
	snap, _ := inPage(t, ctx, page, reg, Options{})
	ref := refOf(t, snap, `textbox "Email"`)
	el, err := reg.Resolve(ctx, page, ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := el.Context(ctx).Input("ada@example.com"); err != nil {
		t.Fatal(err)
	}
	if err := page.Context(ctx).Keyboard.Press(input.Tab); err != nil {
		t.Fatal(err)
	}
	snap, _ = inPage(t, ctx, page, reg, Options{})
	if !strings.Contains(snap, `textbox "Email" [ref=`+ref+"]:\n  - /placeholder: you@example.com\n  - text: ada@example.com") {
		t.Fatalf("typed value missing:\n%s", snap)
	}
	cached, _ := inPage(t, ctx, page, reg, Options{})
	if cached != snap {
		t.Fatalf("cached snapshot differs:\n%s\n---\n%s", cached, snap)
	}
	if _, err := reg.Resolve(ctx, page, refOf(t, cached, `button "Submit"`)); err != nil {
		t.Fatalf("ref from a cached snapshot: %v", err)
	}

	// A new document is a new world: nothing of the old one is reused.
	navigate(t, page, ctx, server.URL+"/refs.html")
	got, _ := inPage(t, ctx, page, reg, Options{})
	if !strings.Contains(got, `button "Go"`) || strings.Contains(got, "Sign in") {
		t.Fatalf("after navigation:\n%s", got)
	}
}

// Refs from the in-page builder resolve to their elements (also inside a
// same-process frame and a closed shadow root) and can be clicked.
func TestInPageRefsResolve(t *testing.T) {
	page, ctx := openPage(t, false, "iframes.html")
	reg := NewRegistry()
	snap, _ := inPage(t, ctx, page, reg, Options{})
	for _, ref := range refsOf(t, snap, `button "Frame button"`) {
		el, err := reg.Resolve(ctx, page, ref)
		if err != nil {
			t.Fatalf("resolve %s: %v", ref, err)
		}
		if err := el.Context(ctx).Click(proto.InputMouseButtonLeft, 1); err != nil {
			t.Fatalf("click %s: %v", ref, err)
		}
	}
	snap, _ = inPage(t, ctx, page, reg, Options{})
	if strings.Count(snap, "paragraph: frame clicked") != 2 {
		t.Fatalf("clicks by ref did not reach both frames:\n%s", snap)
	}

	page, ctx = openPage(t, false, "shadow.html")
	reg = NewRegistry()
	snap, _ = inPage(t, ctx, page, reg, Options{})
	el, err := reg.Resolve(ctx, page, refOf(t, snap, `link "Deep link"`))
	if err != nil {
		t.Fatal(err)
	}
	if href := el.MustAttribute("href"); href == nil || *href != "/deep" {
		t.Fatalf("deep link ref resolved to %v", href)
	}
}
