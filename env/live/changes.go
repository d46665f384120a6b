package live

import (
	"fmt"
	"strings"

	"wright/env/live/snapdiff"
)

// ARIA snapshot modes (Options.AriaMode, env.aria_snapshot).
const (
	// AriaFull puts the whole snapshot in every observation.
	AriaFull = "full"
	// AriaChanges puts the whole snapshot in the first observation of a
	// page and after a navigation, and otherwise only what changed since
	// the snapshot the model saw last.
	AriaChanges = "changes"
)

// AriaModes lists the values Options.AriaMode takes.
var AriaModes = []string{AriaFull, AriaChanges}

// Kinds of the aria_snapshot an observation carries (its aria_kind key).
const (
	kindFull    = "full"
	kindChanges = "changes"
)

// seenSnapshot is the last snapshot the model was shown, whole or as
// changes: what the next change observation is taken against.
type seenSnapshot struct {
	aria   string // the whole snapshot, even when only changes were shown
	url    string // without its fragment
	pageID string
	step   int
	// fullChars is the size of the last whole snapshot shown, and
	// chainChars what the change observations since it added up to: once
	// the chain outgrows the snapshot it rests on, a whole one is cheaper
	// to keep in the context (and lets pruning drop the chain).
	fullChars, chainChars int
}

// RequestFull makes the next observation carry the whole ARIA snapshot.
// The agent calls it after a compaction, which took every earlier snapshot
// out of the model's context; the runner's request_full_snapshot() does
// the same for the model.
func (e *Env) RequestFull() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.wantFull = true
}

// present decides what of the step's snapshot the model is shown: the
// whole of it, or its changes since the last one it saw. It returns the
// text for the observation and whether that text is changes.
func (e *Env) present(step int, st pageState, forceFull bool) (string, bool) {
	url, _, _ := strings.Cut(st.url, "#")
	prev := e.seen
	full := func() (string, bool) {
		e.seen = seenSnapshot{aria: st.aria, url: url, pageID: e.pageID, step: step, fullChars: len(st.aria)}
		if st.aria == "" {
			e.seen = seenSnapshot{} // an error text: nothing to diff against next time
		}
		return st.aria, false
	}
	want := e.wantFull || forceFull
	e.wantFull = false
	if e.opts.AriaMode != AriaChanges || want || st.aria == "" || prev.aria == "" ||
		prev.pageID != e.pageID || prev.url != url {
		return full()
	}
	d := snapdiff.Diff(prev.aria, st.aria)
	if d.TooFar {
		return full()
	}
	text := changeText(prev.step, d)
	if len(text) >= len(st.aria) || prev.chainChars+len(text) > prev.fullChars {
		return full()
	}
	e.seen.aria, e.seen.step = st.aria, step
	e.seen.chainChars += len(text)
	return text, true
}

// changeText is what a change observation's aria_snapshot holds: a header
// that says what it is measured against, then the marked lines.
func changeText(since int, d snapdiff.Result) string {
	if d.Same() {
		return fmt.Sprintf("[changes since the snapshot of step %d: none; the page's snapshot is as it was]", since)
	}
	return fmt.Sprintf("[changes since the snapshot of step %d: %s; other lines are as they were]\n%s", since, d.Summary(), d.Text)
}
