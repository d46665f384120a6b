package session

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"wright/browser"
	"wright/env"
)

// act runs exec in the runner as one action and returns what changed. code
// is the action's portable line, kept for Script when it succeeds.
func (s *Session) act(ctx context.Context, tool, exec, code string) (Result, error) {
	return s.actConsole(ctx, tool, exec, code, false)
}

// actConsole is act; allConsole shows every console line of the step, not
// only the errors (run_code, whose prints and logs are the point).
func (s *Session) actConsole(ctx context.Context, tool, exec, code string, allConsole bool) (Result, error) {
	obs, err := s.exec(ctx, exec)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", tool, err)
	}
	// A ref the action could not use came from a snapshot shown before it.
	before := s.newest
	res := s.observed(obs, allConsole)
	res.Code = code
	res.Data["code"] = code
	if obs.Success {
		s.lines = append(s.lines, code)
		return res, nil
	}
	return res, s.actionError(tool, obs, res, before)
}

// observed turns a step's observation into a result: what the code printed,
// the page's URL and title when they moved, the notices, the snapshot (its
// changes, or the whole after a navigation) and the new console errors.
func (s *Session) observed(obs env.Observation, allConsole bool) Result {
	var b strings.Builder
	url, _ := obs.Details["url"].(string)
	title, _ := obs.Details["title"].(string)
	aria, _ := obs.Details["aria_snapshot"].(string)
	kind, _ := obs.Details["aria_kind"].(string)
	if out := strings.TrimSpace(obs.Output); out != "" {
		b.WriteString("Output:\n" + out + "\n")
	}
	moved := url != s.lastURL || title != s.lastTitle
	if moved {
		fmt.Fprintf(&b, "Page: %s (title %q)\n", url, title)
		s.lastURL, s.lastTitle = url, title
	}
	var notices []string
	for _, n := range obs.Notices {
		// The Page line says it already.
		if strings.HasPrefix(n, "The page moved to ") {
			continue
		}
		notices = append(notices, n)
		b.WriteString("Note: " + n + "\n")
	}
	if r, _ := obs.Details["restart_note"].(string); r != "" {
		b.WriteString("Note: " + r + "\n")
		notices = append(notices, r)
	}
	if aria != "" {
		if kind == "changes" {
			aria = shortHeader(aria)
			b.WriteString(aria + "\n")
		} else {
			shown := s.showWhole(aria)
			b.WriteString("Snapshot:\n" + shown + "\n")
			b.WriteString(s.cutNote())
			aria = shown
		}
		s.newest = fmt.Sprintf("the one in the result of call %d", s.step)
	}
	var errs []string
	c, _ := obs.Details["console_output"].(string)
	if c != "" {
		for _, l := range strings.Split(c, "\n") {
			if isErrorLine(l) {
				errs = append(errs, l)
			}
		}
	}
	switch {
	case allConsole && c != "":
		b.WriteString("Console:\n" + c + "\n")
	case len(errs) > 0:
		b.WriteString("Console errors:\n" + strings.Join(errs, "\n") + "\n")
	}
	exc, _ := obs.Details["exception"].(string)
	data := map[string]any{
		"ok": obs.Success, "url": url, "title": title, "moved": moved,
		"snapshot": aria, "snapshot_kind": kind, "notices": nonNil(notices),
		"console_errors": nonNil(errs), "console": c, "output": obs.Output, "elapsed_ms": obs.Elapsed.Milliseconds(),
	}
	if exc != "" {
		data["error"] = exc
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

// actionError is a failed action's error text: the exception's last
// lines, and for a stale ref where the newest snapshot is.
func (s *Session) actionError(tool string, obs env.Observation, res Result, newest string) error {
	exc, _ := obs.Details["exception"].(string)
	if obs.Detail("timed_out") == true {
		exc = strings.TrimSpace(exc)
	}
	msg := lastLines(exc, 6)
	if strings.Contains(exc, "StaleRef") {
		return fmt.Errorf("%s: %s\nThe newest snapshot is %s: use a ref from it, or call snapshot for a fresh one.%s", tool, msg, newest, tail(res.Text))
	}
	if msg == "" {
		msg = "the action failed"
	}
	return fmt.Errorf("%s: %s%s", tool, msg, tail(res.Text))
}

// tail puts what the page shows after a failed action under its error.
func tail(text string) string {
	if text == "" {
		return ""
	}
	return "\n\n" + text
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// showWhole is what a result shows of a whole snapshot: all of it, or its
// first ActionChars characters (whole lines), remembered so that later
// results can say where the rest is.
func (s *Session) showWhole(aria string) string {
	s.cutAt, s.cutOf, s.cutCall, s.outlined = 0, 0, 0, false
	if len(aria) <= s.opt.ActionChars {
		return aria
	}
	// A long page is shown first by what can be acted on (the same refs);
	// its text is one snapshot call away.
	if o := s.outline(); o != "" && len(o) <= s.opt.ActionChars {
		s.cutAt, s.cutOf, s.cutCall, s.outlined = 0, len(aria), s.step, true
		return o
	}
	end := s.opt.ActionChars
	if i := strings.LastIndexByte(aria[:end], '\n'); i > 0 {
		end = i
	}
	s.cutAt, s.cutOf, s.cutCall = end, len(aria), s.step
	return aria[:end]
}

// Live mode's change header names the step it is measured against; a
// session's client measures against its last result, so the header says
// only what changed (it heads every result: the shorter the better).
var (
	changeHeader = regexp.MustCompile(`^\[changes since the snapshot of step \d+: (.*?); other lines are as they were\]`)
	noneHeader   = regexp.MustCompile(`^\[changes since the snapshot of step \d+: none; the page's snapshot is as it was\]`)
)

func shortHeader(text string) string {
	if noneHeader.MatchString(text) {
		return noneHeader.ReplaceAllString(text, "[no changes]")
	}
	return changeHeader.ReplaceAllString(text, "[changes: $1]")
}

// outline is the current page's interactive-only snapshot, "" when it
// cannot be taken.
func (s *Session) outline() string {
	p := s.env.CurrentPage()
	if p == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	o, err := p.AriaSnapshot(ctx, browser.AriaOptions{InteractiveOnly: true}, 5*time.Second)
	if err != nil {
		return ""
	}
	return o
}

// cutNote says, while the last whole snapshot shown was cut, how to read
// the rest; "" otherwise.
func (s *Session) cutNote() string {
	if s.cutOf == 0 {
		return ""
	}
	if s.outlined {
		return fmt.Sprintf("[the page's snapshot at call %d is %d characters: only its interactive elements were shown. All of it: snapshot mode=full (max_chars and offset page through it) or snapshot to_file=true]\n",
			s.cutCall, s.cutOf)
	}
	return fmt.Sprintf("[the whole snapshot of call %d was cut: characters 0 to %d of %d shown. For the rest: snapshot mode=full offset=%d; for all of it: snapshot to_file=true]\n",
		s.cutCall, s.cutAt, s.cutOf, s.cutAt)
}

// A snapshot line: "- role "name" ... [ref=eN]".
var refLine = regexp.MustCompile(`^\s*- ([a-z]+)(?: ("(?:[^"\\]|\\.)*"))?.*\[ref=(e[0-9]+)\]`)

// portable is how a fresh script finds the element ref names:
// get_by_role with the role and name the newest snapshot gave it, when
// that matches exactly one element of the page now; else fallback (the
// ref itself, which only this session knows).
func (s *Session) portable(ref, fallback string) string {
	role, name := roleName(s.env.SeenSnapshot(), ref)
	if role == "" || name == "" {
		return fallback
	}
	p := s.env.CurrentPage()
	if p == nil {
		return fallback
	}
	sel := "internal:role=" + role + "[name=" + jsQuote(name) + "s]"
	l, err := p.Locator(sel)
	if err != nil {
		return fallback
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if n, err := l.Count(ctx); err != nil || n != 1 {
		return fallback
	}
	return "page.get_by_role(" + pyStr(role) + ", name=" + pyStr(name) + ", exact=True)"
}

// roleName reads the role and name of ref's line in snapshot.
func roleName(snapshot, ref string) (role, name string) {
	mark := "[ref=" + ref + "]"
	for _, line := range strings.Split(snapshot, "\n") {
		if !strings.Contains(line, mark) {
			continue
		}
		m := refLine.FindStringSubmatch(line)
		if m == nil || m[3] != ref {
			return "", ""
		}
		if m[2] != "" {
			if err := json.Unmarshal([]byte(m[2]), &name); err != nil {
				return m[1], ""
			}
		}
		return m[1], name
	}
	return "", ""
}

// jsQuote quotes a name for a role selector: backslash escapes only.
func jsQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
