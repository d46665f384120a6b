package live

import "wright/browser"

// What agents/session (the browser sessions of `wright browser` and
// `wright mcp`) reads of a live environment between steps: the engine's
// browser and current page, for what the runner need not do (a snapshot
// the client asked for, a screenshot, the network log), and the snapshot
// the last observation rests on, so that a snapshot shown by the session
// is what the next change observation is measured against.

// Browser is the engine's browser (nil while none runs). It changes when
// Chromium died and was restarted by a step.
func (e *Env) Browser() *browser.Browser {
	if e.srv == nil {
		return nil
	}
	return e.srv.Browser()
}

// CurrentPage is the tab the namespace's `page` names, nil when it is not
// open.
func (e *Env) CurrentPage() *browser.Page {
	b := e.Browser()
	if b == nil {
		return nil
	}
	e.mu.Lock()
	id := e.pageID
	e.mu.Unlock()
	return b.Page(id)
}

// SeenSnapshot is the whole ARIA snapshot the last observation (or
// ShowSnapshot) was taken from: the page as the client last saw it.
func (e *Env) SeenSnapshot() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.seen.aria
}

// ShowSnapshot records aria, a snapshot of the current page at url taken
// outside a step, as shown to the client, and returns what to show of it:
// the whole of it (full, or when no change text applies) or its changes
// since the snapshot seen last, as an observation would (AriaChanges).
// step numbers it for the headers of later change texts.
func (e *Env) ShowSnapshot(step int, url, aria string, full bool) (text string, changes bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.present(step, pageState{url: url, aria: aria}, full)
}

// ForgetChain forgets how long the change lists since the last whole
// snapshot have grown. Live mode shows the whole page again once they
// outgrow it, since pruning keeps that chain in the model's context; a
// session's client keeps every result anyway, so for it a long chain is
// no reason to send the page again (a change list longer than the page
// still is).
func (e *Env) ForgetChain() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen.chainChars = 0
}
