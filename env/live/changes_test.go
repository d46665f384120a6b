package live

import (
	"regexp"
	"strings"
	"testing"

	"wright/env"
)

// A live run with AriaChanges: a click that changes one line yields a
// small change observation whose refs then work; a request, a navigation
// and the first observation of a page show the whole snapshot.
func TestChangeObservations(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/prefs.html", func(o *Options) { o.AriaMode = AriaChanges })

	obs := step(t, e, 1, "pass")
	full := str(obs, "aria_snapshot")
	if obs["aria_kind"] != "full" || !strings.Contains(full, `checkbox "Send me the newsletter"`) {
		t.Fatalf("first observation (%v):\n%s", obs["aria_kind"], full)
	}
	ref := regexp.MustCompile(`checkbox "Send me the newsletter" \[ref=(e\d+)\]`).FindStringSubmatch(full)
	if ref == nil {
		t.Fatalf("no ref on the checkbox:\n%s", full)
	}

	obs = step(t, e, 2, "page.locator('aria-ref="+ref[1]+"').check()")
	wantSuccess(t, obs)
	changes := str(obs, "aria_snapshot")
	wantLine := "~ " // the checkbox line, changed in place, its ref kept
	if obs["aria_kind"] != "changes" || !strings.HasPrefix(changes, "[changes since the snapshot of step 1: 1 changed;") ||
		!strings.Contains(changes, wantLine) || !strings.Contains(changes, `checkbox "Send me the newsletter" [checked] [ref=`+ref[1]+`]`) {
		t.Fatalf("after a check (%v):\n%s", obs["aria_kind"], changes)
	}
	if len(changes)*10 > len(full)*3 {
		t.Errorf("the change observation is %d chars against a %d-char snapshot:\n%s", len(changes), len(full), changes)
	}
	for _, l := range strings.Split(changes, "\n")[1:] {
		if !strings.HasPrefix(l, "~ ") && !strings.HasPrefix(l, "  ") {
			t.Errorf("line %q: only context and the changed line expected", l)
		}
	}

	// The ref from the change observation works, as from a whole one.
	obs = step(t, e, 3, "page.locator('aria-ref="+ref[1]+"').uncheck()\nprint(page.get_by_label('Send me the newsletter').is_checked())")
	wantSuccess(t, obs)
	if out := str(obs, "python_output"); out != "False" || obs["aria_kind"] != "changes" ||
		!strings.Contains(str(obs, "aria_snapshot"), "since the snapshot of step 2") {
		t.Errorf("uncheck by ref: output %q, %v:\n%s", out, obs["aria_kind"], str(obs, "aria_snapshot"))
	}

	// Nothing changed: a one-line change observation.
	obs = step(t, e, 4, "x = 1")
	if s := str(obs, "aria_snapshot"); obs["aria_kind"] != "changes" || !strings.Contains(s, ": none;") || strings.Contains(s, "\n") {
		t.Errorf("no change: %v %q", obs["aria_kind"], s)
	}

	// Asked for: whole. page.aria_snapshot() is whole in any case.
	obs = step(t, e, 5, "request_full_snapshot()\nprint(len(page.aria_snapshot().splitlines()))")
	if obs["aria_kind"] != "full" || str(obs, "aria_snapshot") != full {
		t.Errorf("requested: %v\n%s", obs["aria_kind"], str(obs, "aria_snapshot"))
	}
	if n := str(obs, "python_output"); n != itoa(strings.Count(full, "\n")+1) {
		t.Errorf("page.aria_snapshot() has %s lines, the whole snapshot %d", n, strings.Count(full, "\n")+1)
	}
	if obs = step(t, e, 6, "pass"); obs["aria_kind"] != "changes" {
		t.Errorf("after the requested whole one: %v", obs["aria_kind"])
	}

	// A navigation: whole again, of the new page.
	obs = step(t, e, 7, "page.goto('"+site.URL+"/index.html')")
	if obs["aria_kind"] != "full" || !strings.Contains(str(obs, "aria_snapshot"), `button "Say hello"`) {
		t.Errorf("after a navigation: %v\n%s", obs["aria_kind"], str(obs, "aria_snapshot"))
	}
	// After a compaction the agent asks for a whole one.
	e.RequestFull()
	if obs = step(t, e, 8, "pass"); obs["aria_kind"] != "full" {
		t.Errorf("after RequestFull: %v", obs["aria_kind"])
	}
	if obs = step(t, e, 9, "page.get_by_role('button', name='Say hello').click()"); obs["aria_kind"] != "changes" ||
		!strings.Contains(str(obs, "aria_snapshot"), "~   - status: Clicked") {
		t.Errorf("a status text appearing: %v\n%s", obs["aria_kind"], str(obs, "aria_snapshot"))
	}
}

func TestFullModeAndBadMode(t *testing.T) {
	if _, err := newEnv(Options{Workspace: t.TempDir(), AriaMode: "diff"}); err == nil || !strings.Contains(err.Error(), `"diff": want full or changes`) {
		t.Errorf("bad mode: %v", err)
	}
	// The default is whole snapshots every step.
	var e Env
	e.opts.AriaMode = AriaFull
	snap := "- button \"A\" [ref=e1]"
	for i := 1; i <= 2; i++ {
		if shown, inc := e.present(i, pageState{url: "http://x/", aria: snap}, false); inc || shown != snap {
			t.Errorf("full mode, step %d: %v %q", i, inc, shown)
		}
	}
}

// present's choices without a browser: what the model is shown of each
// snapshot, step after step.
func TestPresent(t *testing.T) {
	var list strings.Builder
	for i := 1; i <= 40; i++ {
		list.WriteString("- link \"Item " + itoa(i) + "\" [ref=e" + itoa(i) + "]\n")
	}
	base := "- heading \"Shop\" [level=1]\n" + list.String() + "- button \"Buy\" [ref=e99]"
	e := &Env{opts: Options{AriaMode: AriaChanges}, pageID: "tab1"}
	show := func(step int, url, aria string, force bool) (string, bool) {
		return e.present(step, pageState{url: url, aria: aria}, force)
	}
	if s, inc := show(1, "http://shop/a", base, false); inc || s != base {
		t.Fatalf("first: %v %q", inc, s)
	}
	one := strings.Replace(base, `"Buy" [ref=e99]`, `"Buy" [disabled] [ref=e99]`, 1)
	if s, inc := show(2, "http://shop/a#top", one, false); !inc || !strings.Contains(s, `~ - button "Buy" [disabled] [ref=e99]`) {
		t.Errorf("a fragment is not a navigation, one line changed: %v\n%s", inc, s)
	}
	if _, inc := show(3, "http://shop/b", one, false); inc {
		t.Error("another URL: want the whole snapshot")
	}
	if _, inc := show(4, "http://shop/b", one, true); inc {
		t.Error("asked for: want the whole snapshot")
	}
	e.pageID = "tab2"
	if _, inc := show(5, "http://shop/b", one, false); inc {
		t.Error("another tab: want the whole snapshot")
	}
	// A change bigger than the snapshot: whole.
	other := strings.ReplaceAll(one, "Item", "Article")
	if s, inc := show(6, "http://shop/b", other, false); inc || s != other {
		t.Errorf("every line changed: want the whole snapshot, got changes:\n%s", s)
	}
	// Changes adding up to more than the whole snapshot they rest on: whole
	// again, and the chain starts over.
	wholes, cur := 0, other
	for step := 7; step < 40; step++ {
		cur = strings.Replace(cur, "Article "+itoa(step-6)+"\"", "Article "+itoa(step-6)+" (seen)\"", 1)
		if _, inc := show(step, "http://shop/b", cur, false); !inc {
			wholes++
		}
	}
	if wholes == 0 || wholes > 3 {
		t.Errorf("%d whole snapshots among 33 one-line changes to a %d-char snapshot", wholes, len(other))
	}
	// An error text is never a base to diff against.
	if _, inc := show(40, "http://shop/b", "", false); inc {
		t.Error("an empty snapshot came as changes")
	}
	if _, inc := show(41, "http://shop/b", cur, false); inc {
		t.Error("after an empty snapshot: want the whole one")
	}
}

// A pruned change observation says it held changes, not the page.
func TestChangePlaceholder(t *testing.T) {
	e := &Env{opts: Options{AriaMode: AriaChanges}}
	obs := e.finish(env.Observation{Details: map[string]any{}}, pageState{aria: "- a", shown: "[changes ...]\n~ - b", incremental: true}, nil, nil)
	if !obs.Incremental || obs.Detail("aria_kind") != "changes" || !strings.HasPrefix(obs.Prunable["aria_snapshot"], "[Changes to the ARIA snapshot pruned") {
		t.Errorf("incremental %v, kind %v, placeholder %q", obs.Incremental, obs.Detail("aria_kind"), obs.Prunable["aria_snapshot"])
	}
	obs = e.finish(env.Observation{Details: map[string]any{}}, pageState{aria: "- a", shown: "- a"}, nil, nil)
	if obs.Incremental || obs.Detail("aria_kind") != "full" || !strings.HasPrefix(obs.Prunable["aria_snapshot"], "[ARIA snapshot pruned") {
		t.Errorf("whole: incremental %v, kind %v, placeholder %q", obs.Incremental, obs.Detail("aria_kind"), obs.Prunable["aria_snapshot"])
	}
}
