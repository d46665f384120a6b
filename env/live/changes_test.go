package live

import (
	"regexp"
	"strings"
	"testing"
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
