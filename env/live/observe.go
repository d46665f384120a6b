package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"wright/browser"
	"wright/env"
)

const (
	// consoleLimit bounds console_output; the newest lines are kept.
	consoleLimit = 4000
	// loopRuns is how many identical steps in a row, with the page
	// unchanged, make a loop notice.
	loopRuns = 3
	// settleTimeout bounds the wait for a navigation the code started but
	// did not wait for, so the observation shows where it went.
	settleTimeout = 3 * time.Second
	// deathWait is how long a failed browser call waits to learn whether
	// Chromium is dying (the process's exit is noticed a moment later).
	deathWait = 1500 * time.Millisecond
)

// tabsBefore is what the page looked like before a step.
type tabsBefore struct {
	url string
	ids map[string]bool
}

func (e *Env) snapshotTabs() tabsBefore {
	t := tabsBefore{url: e.lastURL, ids: map[string]bool{}}
	if b := e.srv.Browser(); b != nil {
		for _, p := range b.Pages() {
			t.ids[p.ID()] = true
		}
		if p := b.Page(e.pageID); p != nil {
			t.url = p.URL()
		}
	}
	return t
}

// pageState is what the observation shows of the current page.
type pageState struct {
	url, title, aria, ariaErr string
	// shown is what the observation carries of aria (all of it, or its
	// changes: incremental), set by present.
	shown       string
	incremental bool
	shot        string // absolute path, "" when none
	shotErr     string
}

// observe builds the step's observation. Chromium found dead is restarted
// here and the observation says so.
func (e *Env) observe(ctx context.Context, step int, code string, res stepResult, before tabsBefore) (env.Observation, error) {
	obs := env.Observation{
		Success:   res.success,
		Elapsed:   res.elapsed,
		OutputKey: "python_output",
		Details:   map[string]any{"exception": res.exception, "timed_out": res.timedOut},
	}
	if res.exitCode != nil {
		obs.Details["exit_code"] = res.exitCode
	}
	var notices []string
	notices, e.notices = e.notices, nil
	notices = append(notices, res.notices...)
	if res.pythonEnded != "" {
		e.restartNotes = append(e.restartNotes, fmt.Sprintf("The Python process ended during this step (%s) and a fresh one was started: variables, imports and functions from earlier steps are gone; `page`, `browser`, `task` and `run_command` are bound again.", res.pythonEnded))
	}
	out, err := e.formatOutput(step, res.output, res.dropped)
	obs.Output = out
	if err != nil {
		return obs, err
	}

	var st pageState
	var tabs []map[string]any
	var logs pageLogs
	for attempt := 0; ; attempt++ {
		b := e.srv.Browser()
		var ok bool
		var cur *browser.Page
		if b != nil && b.Err() == nil {
			cur, notices = e.currentPage(ctx, b, res.pageID, notices)
		}
		if cur != nil {
			st, ok = e.readPage(ctx, cur, step)
		}
		if ctx.Err() != nil {
			return e.finish(obs, st, tabs, notices), ctx.Err()
		}
		if ok || attempt > 0 || !dying(b) {
			if b != nil {
				logs = collectLogs(b, e.pageID)
				tabs = e.listTabs(ctx, b, st)
			}
			break
		}
		// Chromium died during the step: start a new one and look again.
		if err := e.restartBrowser(ctx); err != nil {
			return e.finish(obs, st, tabs, notices), err
		}
		res.pageID = "" // the code's page was in the old browser
		before.ids = map[string]bool{}
		for _, p := range e.srv.Browser().Pages() {
			before.ids[p.ID()] = true
		}
	}

	obs.Details["console_output"] = logs.console
	notices = append(notices, logs.notices...)
	notices = append(notices, e.takeNetBlocked()...)
	if res.pageLost && res.pythonEnded == "" && e.py != nil {
		notices = append(notices, fmt.Sprintf("`page` no longer names an open tab of the browser, so this observation shows the tab it named before (%s). Point it at a tab again, e.g. page = browser.pages[0].", st.url))
	}
	for _, p := range tabs {
		if id, _ := p["id"].(string); id != "" && !before.ids[id] && p["current"] != true {
			notices = append(notices, fmt.Sprintf("A new tab opened during this step: tab %v at %v. `page` still points to the tab you were on; to work in the new one: page = browser.pages[%v]", p["index"], p["url"], p["index"]))
		}
	}
	if st.url != "" && before.url != "" && st.url != before.url {
		notices = append(notices, fmt.Sprintf("The page moved to %s since the last step (it was at %s).", st.url, before.url))
	}
	if e.loop.update(code, st.url+"\x00"+st.aria) >= loopRuns {
		notices = append(notices, fmt.Sprintf("The same code has now run %d times in a row and the page did not change (same URL, same ARIA snapshot). Repeating it will not help: read the last error and the snapshot, then try a different approach.", e.loop.runs))
	}
	if st.url != "" {
		e.lastURL = st.url
	}
	st.shown, st.incremental = e.present(step, st, res.wantFull || len(e.restartNotes) > 0)
	return e.finish(obs, st, tabs, notices), nil
}

// finish fills in the page keys, the notices and the restart notes.
func (e *Env) finish(obs env.Observation, st pageState, tabs []map[string]any, notices []string) env.Observation {
	obs.Details["url"] = st.url
	obs.Details["title"] = st.title
	aria, kind := st.aria, kindFull
	if st.incremental {
		aria, kind = st.shown, kindChanges
	}
	if aria == "" && st.ariaErr != "" {
		aria = "(no ARIA snapshot: " + st.ariaErr + ")"
		e.seen = seenSnapshot{} // the next one is shown whole
	}
	obs.Details["aria_snapshot"] = aria
	obs.Details["aria_kind"] = kind
	// A change observation rests on the ones before it back to the last
	// whole snapshot: pruning keeps that chain (env.Observation.Incremental).
	obs.Incremental = st.incremental
	placeholder := ARIAPlaceholder(aria)
	if st.incremental {
		placeholder = fmt.Sprintf("[Changes to the ARIA snapshot pruned to save context (%d chars). The page has moved on since; a later whole snapshot, and the changes after it, show the current page.]", len(aria))
	}
	obs.Prunable = map[string]string{"aria_snapshot": placeholder}
	obs.Screenshot = st.shot
	if st.shot != "" {
		rel, _ := filepath.Rel(e.ws, st.shot)
		obs.Details["screenshot"] = filepath.ToSlash(rel)
	} else if st.shotErr != "" {
		obs.Details["screenshot_error"] = st.shotErr
	}
	if tabs == nil {
		tabs = []map[string]any{}
	}
	obs.Details["tabs"] = tabs
	if notices == nil {
		notices = []string{}
	}
	obs.Notices = notices
	obs.Details["restarted"] = len(e.restartNotes) > 0
	obs.Details["restart_note"] = strings.Join(e.restartNotes, " ")
	e.restartNotes = nil
	if _, ok := obs.Details["console_output"]; !ok {
		obs.Details["console_output"] = ""
	}
	return obs
}

// dying reports whether b is gone or about to be: a failed call may come
// a moment before the process's exit is noticed.
func dying(b *browser.Browser) bool {
	if b == nil || b.Err() != nil {
		return true
	}
	select {
	case <-b.Done():
		return true
	case <-time.After(deathWait):
		return false
	}
}

// currentPage is the page the step ended on: the one the namespace's
// `page` names; if the code closed it, the newest open tab (or a new blank
// one), and `page` is rebound to it.
func (e *Env) currentPage(ctx context.Context, b *browser.Browser, fromCode string, notices []string) (*browser.Page, []string) {
	open := b.Pages()
	find := func(id string) *browser.Page {
		for _, p := range open {
			if p.ID() == id && id != "" {
				return p
			}
		}
		return nil
	}
	if p := find(fromCode); p != nil {
		e.pageID = p.ID()
		return p, notices
	}
	if fromCode == "" || fromCode == e.pageID {
		if p := find(e.pageID); p != nil {
			return p, notices
		}
	}
	var p *browser.Page
	if len(open) > 0 {
		p = open[len(open)-1]
	} else {
		np, err := b.NewPage(ctx)
		if err != nil {
			return nil, notices
		}
		p = np
	}
	e.pageID = p.ID()
	if e.py != nil && e.py.alive() {
		if err := e.bind(ctx, false); err != nil {
			notices = append(notices, "Could not rebind `page` in Python: "+err.Error())
		}
	}
	where := p.URL()
	if where == "" {
		where = "about:blank"
	}
	notices = append(notices, fmt.Sprintf("The tab `page` pointed to is closed; `page` now points to the tab at %s.", where))
	return p, notices
}

// readPage reads the URL, title, ARIA snapshot and a viewport screenshot.
// ok is false when a call failed in a way that may mean Chromium died.
// The screenshot is taken concurrently with the rest; unless the model
// sees it, the observation does not wait for it (see shot.go).
func (e *Env) readPage(ctx context.Context, p *browser.Page, step int) (pageState, bool) {
	var st pageState
	e.settleShot() // an earlier attempt of this observation
	// A click that started a navigation returns before the new page has
	// loaded; give it a moment so the observation shows where it went.
	_ = p.WaitForLoadState(ctx, browser.Load, settleTimeout)
	shotPath, shotDone := e.startShot(ctx, p, step)
	ok := true
	tctx, cancel := context.WithTimeout(ctx, observeTimeout)
	defer cancel()
	type titled struct {
		title string
		err   error
	}
	titleC := make(chan titled, 1)
	go func() { // beside the snapshot: one round trip less
		t, err := p.Title(tctx)
		titleC <- titled{t, err}
	}()
	aria, err := p.AriaSnapshot(ctx, browser.AriaOptions{MaxChars: e.opts.AriaChars}, observeTimeout)
	if err != nil && ctx.Err() == nil && p.Browser().Err() == nil {
		// A navigation between the snapshot's calls: once more.
		time.Sleep(200 * time.Millisecond)
		aria, err = p.AriaSnapshot(ctx, browser.AriaOptions{MaxChars: e.opts.AriaChars}, observeTimeout)
	}
	if err != nil {
		ok = false
		st.ariaErr = err.Error()
	}
	st.aria = aria
	if t := <-titleC; t.err != nil {
		ok = false
	} else {
		st.title = t.title
	}
	rel, _ := filepath.Rel(e.ws, shotPath)
	if e.opts.AttachScreenshot {
		if err := <-shotDone; err != nil {
			ok = false
			st.shotErr = err.Error()
		} else {
			st.shot = shotPath
		}
	} else {
		st.shot = shotPath
		e.pending = &pendingShot{step: step, path: filepath.ToSlash(rel), done: shotDone}
	}
	// The URL last: the title, snapshot and screenshot waited for any
	// navigation in flight.
	st.url = p.URL()
	return st, ok
}

// listTabs lists the open tabs; the current one's title is the one just
// read (one round trip less per step).
func (e *Env) listTabs(ctx context.Context, b *browser.Browser, cur pageState) []map[string]any {
	tabs := []map[string]any{}
	for i, p := range b.Pages() {
		title := cur.title
		if p.ID() != e.pageID || cur.ariaErr != "" {
			tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			title, _ = p.Title(tctx)
			cancel()
		}
		tabs = append(tabs, map[string]any{"index": i, "id": p.ID(), "url": p.URL(), "title": title, "current": p.ID() == e.pageID})
	}
	return tabs
}

type pageLogs struct {
	console string
	notices []string // dialogs handled, navigations blocked
}

// The engine reports what the URL policy refused outside goto (links,
// redirects, scripts, popups) as console errors worded like these.
var blockedPrefixes = []string{"wright: blocked a navigation to ", "wright: blocked a new tab at ", "wright: closed a popup at "}

// blockedNotice turns such a console line into a notice, "" for any other.
func blockedNotice(text string) string {
	for _, p := range blockedPrefixes {
		rest, ok := strings.CutPrefix(text, p)
		if !ok {
			continue
		}
		url, reason, _ := strings.Cut(rest, " ")
		if _, r, ok := strings.Cut(reason, "by the URL policy: "); ok {
			reason = r
		}
		if p != blockedPrefixes[0] {
			return fmt.Sprintf("A new tab at %s was blocked: %s.", url, reason)
		}
		return fmt.Sprintf("A navigation to %s was blocked: %s. The tab may show Chromium's error page; page.go_back() returns to where you were.", url, reason)
	}
	return ""
}

// collectLogs takes (and clears) every open tab's console messages, page
// errors and dialogs since the last step.
func collectLogs(b *browser.Browser, current string) pageLogs {
	var lines []string
	var out pageLogs
	for i, p := range b.Pages() {
		prefix := ""
		if p.ID() != current {
			prefix = fmt.Sprintf("[tab %d] ", i)
		}
		for _, m := range p.ConsoleMessages(true) {
			if n := blockedNotice(m.Text); n != "" {
				out.notices = append(out.notices, n)
			}
			line := fmt.Sprintf("%s[%s] %s", prefix, m.Type, m.Text)
			if m.URL != "" {
				line += fmt.Sprintf(" (%s:%d)", m.URL, m.Line)
			}
			lines = append(lines, line)
		}
		for _, pe := range p.PageErrors(true) {
			lines = append(lines, fmt.Sprintf("%s[pageerror] %s", prefix, pe.Message))
		}
		for _, d := range p.Dialogs(true) {
			n := fmt.Sprintf("A dialog was handled: %s %q (wright accepts dialogs as they open", d.Type, d.Message)
			if d.Type == "prompt" {
				n += fmt.Sprintf("; the prompt was answered with its default value %q", d.DefaultValue)
			}
			out.notices = append(out.notices, n+").")
		}
	}
	text := strings.Join(lines, "\n")
	if utf8.RuneCountInString(text) > consoleLimit {
		r := []rune(text)
		text = fmt.Sprintf("[... %d earlier characters of console output omitted ...]\n", len(r)-consoleLimit) + string(r[len(r)-consoleLimit:])
	}
	out.console = text
	return out
}

// restartBrowser launches a new Chromium at the URL the old one was on and
// rebinds the runner. The note goes into the next observation.
func (e *Env) restartBrowser(ctx context.Context) error {
	reason := "it was not running"
	url := e.lastURL
	if old := e.srv.Browser(); old != nil {
		if err := old.Err(); err != nil {
			reason = strings.TrimSuffix(strings.TrimPrefix(err.Error(), "the browser is gone: "), "; launch a new one")
		}
		if p := old.Page(e.pageID); p != nil && p.URL() != "" {
			url = p.URL()
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_ = old.Close(cctx)
		cancel()
	}
	b, err := e.srv.Launch(ctx)
	if err != nil {
		return fmt.Errorf("restart the browser: %w", err)
	}
	page, err := e.firstPage(ctx, b)
	if err != nil {
		return fmt.Errorf("restart the browser: open a tab: %w", err)
	}
	note := fmt.Sprintf("Chromium stopped (%s) and was restarted", reason)
	if url != "" && url != "about:blank" {
		if _, err := page.Goto(ctx, url, browser.Load, e.opts.Browser.Timeout); err != nil {
			note += fmt.Sprintf("; going back to %s failed: %v", url, err)
		} else {
			note += " at " + url
		}
	}
	e.pageID = page.ID()
	e.lastURL = page.URL()
	if e.py != nil && e.py.alive() {
		if err := e.bind(ctx, true); err != nil {
			// The next step starts a fresh runner, bound from scratch.
			e.py.kill()
			e.py = nil
		}
	}
	e.restartNotes = append(e.restartNotes, note+". `page` and `browser` now point to the new browser; other tabs, cookies, logins and form input are gone, and pages or locators kept in your own variables no longer work.")
	return nil
}

// formatOutput keeps the head and tail of a long output and writes the
// whole of it to logs/step_NNNN.log.
func (e *Env) formatOutput(step int, out string, dropped int) (string, error) {
	out = strings.ToValidUTF8(out, "\uFFFD")
	out = strings.TrimSuffix(out, "\n")
	if e.opts.Redact != nil {
		out = e.opts.Redact(out)
	}
	if out == "" && dropped == 0 {
		return "", nil
	}
	logRel := fmt.Sprintf("logs/step_%04d.log", step)
	whole := out
	if dropped > 0 {
		whole = fmt.Sprintf("%s\n[... %d bytes were not kept ...]", out, dropped)
	}
	if err := os.WriteFile(filepath.Join(e.ws, filepath.FromSlash(logRel)), []byte(whole+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("write %s: %w", logRel, err)
	}
	r := []rune(out)
	limit := e.opts.OutputLimit
	if len(r) <= limit && dropped == 0 {
		return out, nil
	}
	head, tail := limit/2, limit-limit/2
	if head+tail > len(r) {
		head, tail = len(r), 0
	}
	omitted := len(r) - head - tail + dropped
	return fmt.Sprintf("%s\n[... %d characters omitted; the whole output is in %s ...]\n%s", string(r[:head]), omitted, logRel, string(r[len(r)-tail:])), nil
}

// loopState notices the same code run again and again on an unchanged page.
type loopState struct {
	code, sig string
	runs      int
}

func (l *loopState) update(code, sig string) int {
	code = strings.TrimSpace(code)
	if code == l.code && sig == l.sig {
		l.runs++
	} else {
		l.code, l.sig, l.runs = code, sig, 1
	}
	return l.runs
}

// recordStep writes steps/step_NNNN.py and appends the step to script.py.
func (e *Env) recordStep(step int, file, code string) error {
	text := code
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(file, []byte(e.redact(text)), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(file), err)
	}
	f, err := os.OpenFile(e.scriptPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("append to script.py: %w", err)
	}
	defer f.Close()
	var b strings.Builder
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
		b.WriteString("# script.py: every python_code step of this live browser run, in the order it ran.\n")
		b.WriteString("# wright bound `page`, `browser`, `task` and `run_command`; steps/ holds each step on its own.\n")
	}
	fmt.Fprintf(&b, "\n# ---- step %d · %s · on %s ----\n%s", step, time.Now().Format("2006-01-02 15:04:05"), e.lastURL, text)
	if _, err := f.WriteString(e.redact(b.String())); err != nil {
		return fmt.Errorf("append to script.py: %w", err)
	}
	return nil
}

// appendOutcome notes under the step in script.py how it ended.
func (e *Env) appendOutcome(obs env.Observation) {
	outcome := "ok"
	switch {
	case obs.Detail("timed_out") == true:
		outcome = "timed out"
	case !obs.Success:
		exc, _ := obs.Detail("exception").(string)
		lines := strings.Split(strings.TrimSpace(exc), "\n")
		outcome = "failed: " + lines[len(lines)-1]
	}
	f, err := os.OpenFile(e.scriptPath, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(e.redact(fmt.Sprintf("# -> %s\n", outcome)))
}

// redact applies Options.Redact to text bound for a run file: the step
// header carries the page's URL, which a GET form fills with what was typed.
func (e *Env) redact(text string) string {
	if e.opts.Redact == nil {
		return text
	}
	return e.opts.Redact(text)
}

// ARIAPlaceholder replaces an old ARIA snapshot when the context is pruned:
// it says the snapshot showed the page as it was then, so the model does
// not act on a stale page state.
func ARIAPlaceholder(snapshot string) string {
	return fmt.Sprintf("[ARIA snapshot pruned to save context (%d chars). It showed the page as it was then; the latest observation shows the current page.]", len(snapshot))
}
