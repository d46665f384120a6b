package driver

import (
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"wright/browser"
	"wright/browser/trace"
)

// tracer is one context's Playwright trace in progress (browser/trace):
// the recorder and its subscription to the browser's events.
type tracer struct {
	rec         *trace.Recorder
	unsubscribe func()
}

// tracers are the traces in progress, by browser and context id. They
// live on the server, not the connection, as a context does.
type tracers struct {
	mu sync.Mutex
	m  map[string]*tracer
}

func tracerKey(browserID, contextID string) string { return browserID + "\x00" + contextID }

func (t *tracers) get(key string) *tracer {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.m[key]
}

// snapshotTimeout bounds a DOM snapshot or screenshot, so a page that
// hangs slows an action by at most this, and the action still runs.
const snapshotTimeout = 5 * time.Second

type tracingParams struct {
	Browser string `json:"browser"`
	Context string `json:"context"`
}

// tracingOf finds the trace in progress of the params' context.
func tracingOf(c *conn, p tracingParams) (*browser.Browser, *tracer, error) {
	b, err := c.s.browserParam(p.Browser)
	if err != nil {
		return nil, nil, err
	}
	_, bid := c.s.current()
	t := c.s.tracing.get(tracerKey(bid, p.Context))
	if t == nil {
		return b, nil, invalid("tracing is not started for this context: call tracing.start first")
	}
	return b, t, nil
}

// tracingStart answers tracing.start.
func tracingStart(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		tracingParams
		Name        string      `json:"name"`
		Snapshots   bool        `json:"snapshots"`
		Screenshots bool        `json:"screenshots"`
		Language    string      `json:"sdk_language"`
		Viewport    *trace.Size `json:"viewport"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	b, err := c.s.browserParam(p.Browser)
	if err != nil {
		return nil, err
	}
	_, bid := c.s.current()
	key := tracerKey(bid, p.Context)
	rec := trace.New(p.Name, trace.Options{Snapshots: p.Snapshots, Screenshots: p.Screenshots,
		BrowserName: "chromium", Platform: runtime.GOOS, SDKLanguage: p.Language, Viewport: p.Viewport})
	t := &tracer{rec: rec}
	c.s.tracing.mu.Lock()
	defer c.s.tracing.mu.Unlock()
	if c.s.tracing.m[key] != nil {
		return nil, invalid("tracing has been already started")
	}
	if c.s.tracing.m == nil {
		c.s.tracing.m = map[string]*tracer{}
	}
	contextID := p.Context
	t.unsubscribe = b.Subscribe(func(ev browser.Event) {
		if page := eventPage(ev); page != "" {
			if pg := b.Page(page); pg != nil && pg.ContextID() == contextID {
				rec.Observe(ev)
			}
		}
	}, false)
	c.s.tracing.m[key] = t
	return map[string]any{}, nil
}

// eventPage is the page of the events a trace records ("" for others).
func eventPage(ev browser.Event) string {
	switch e := ev.(type) {
	case *browser.ConsoleEvent:
		return e.Page
	case *browser.RequestEvent:
		return e.Page
	case *browser.ResponseEvent:
		return e.Page
	case *browser.RequestFinishedEvent:
		return e.Page
	case *browser.RequestFailedEvent:
		return e.Page
	}
	return ""
}

// tracingStartChunk answers tracing.start_chunk.
func tracingStartChunk(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		tracingParams
		Name  string `json:"name"`
		Title string `json:"title"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	_, t, err := tracingOf(c, p.tracingParams)
	if err != nil {
		return nil, err
	}
	name, err := t.rec.StartChunk(p.Name, p.Title)
	if err != nil {
		return nil, invalid("%v", err)
	}
	return map[string]any{"name": name}, nil
}

// tracingStopChunk answers tracing.stop_chunk: the chunk goes to a zip at
// "path" (none: it is discarded) and, with "traces_dir", its event files
// into that directory.
func tracingStopChunk(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		tracingParams
		Path      string   `json:"path"`
		TracesDir string   `json:"traces_dir"`
		Sources   []string `json:"sources"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	_, t, err := tracingOf(c, p.tracingParams)
	if err != nil {
		return nil, err
	}
	a, err := t.rec.StopChunk()
	if err != nil {
		return nil, invalid("%v", err)
	}
	// Every file goes through the server's path policy, redacted of
	// secret values as it is written.
	root := c.s.files()
	if p.TracesDir != "" {
		if !filepath.IsAbs(p.TracesDir) {
			return nil, invalid("tracing: traces_dir must be an absolute path, got %q", p.TracesDir)
		}
		for name, data := range a.Files() {
			if err := root.writeFile("the traces folder", filepath.Join(p.TracesDir, name), c.s.redactRecording(data)); err != nil {
				return nil, err
			}
		}
	}
	if p.Path != "" {
		// A source outside the root, or reached through a link, is left
		// out as an unreadable one is: the trace is still written.
		sources := map[string][]byte{}
		for _, src := range p.Sources {
			if data, err := root.readFile("a trace source", src); err == nil {
				sources[src] = data
			}
		}
		data, err := a.Zip(sources)
		if err != nil {
			return nil, browser.Errorf(browser.ErrBrowser, "%v", err)
		}
		if err := root.writeFile("write the trace", p.Path, c.s.redactZipped(p.Path, data)); err != nil {
			return nil, err
		}
	}
	return map[string]any{"name": a.Name}, nil
}

// tracingStop answers tracing.stop: the trace ends (a chunk still open is
// discarded). Stopping a context that is not tracing is no error, as in
// Playwright.
func tracingStop(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p tracingParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	_, bid := c.s.current()
	key := tracerKey(bid, p.Context)
	c.s.tracing.mu.Lock()
	t := c.s.tracing.m[key]
	delete(c.s.tracing.m, key)
	c.s.tracing.mu.Unlock()
	if t != nil {
		t.unsubscribe()
	}
	return map[string]any{}, nil
}

// tracingGroup answers tracing.group.
func tracingGroup(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		tracingParams
		Name     string            `json:"name"`
		Location *trace.StackFrame `json:"location"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	_, t, err := tracingOf(c, p.tracingParams)
	if err != nil {
		return nil, err
	}
	t.rec.Group(p.Name, p.Location)
	return map[string]any{}, nil
}

// tracingGroupEnd answers tracing.group_end.
func tracingGroupEnd(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p tracingParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	_, t, err := tracingOf(c, p)
	if err != nil {
		return nil, err
	}
	t.rec.GroupEnd()
	return map[string]any{}, nil
}

// tracingBefore answers tracing.before: the client is about to run one
// call of its API (an action); with "snapshot" the action's page's DOM is
// recorded as it starts. It answers the action's call id, for
// tracing.after.
func tracingBefore(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		tracingParams
		Action   trace.Action `json:"action"`
		Snapshot bool         `json:"snapshot"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	_, t, err := tracingOf(c, p.tracingParams)
	if err != nil {
		return nil, err
	}
	var snap *trace.Snapshot
	if p.Snapshot && t.rec.Options().Snapshots {
		snap = c.domSnapshot(ctx, p.Action.PageID)
	}
	return map[string]any{"call_id": t.rec.Begin(p.Action, snap)}, nil
}

// tracingAfter answers tracing.after: the action ended, with "error" when
// it failed.
func tracingAfter(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		tracingParams
		CallID   string `json:"call_id"`
		Page     string `json:"page"`
		Error    string `json:"error"`
		Snapshot bool   `json:"snapshot"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	_, t, err := tracingOf(c, p.tracingParams)
	if err != nil {
		return nil, err
	}
	opts := t.rec.Options()
	var snap *trace.Snapshot
	if p.Snapshot && opts.Snapshots {
		snap = c.domSnapshot(ctx, p.Page)
	}
	var shot *trace.Screenshot
	if p.Snapshot && opts.Screenshots {
		shot = c.traceScreenshot(ctx, p.Page)
	}
	t.rec.End(p.CallID, p.Error, p.Page, snap, shot)
	return map[string]any{}, nil
}

// domSnapshot takes the page's DOM snapshot, or nil when there is no such
// page or it cannot be had (closed, navigating, hung): an action's trace
// then lacks that snapshot, and the action is not failed for it.
func (c *conn) domSnapshot(ctx context.Context, pageID string) *trace.Snapshot {
	if pageID == "" {
		return nil
	}
	pg, err := c.s.page(pageID)
	if err != nil {
		return nil
	}
	raw, err := pg.Evaluate(ctx, trace.CaptureJS, nil, snapshotTimeout)
	if err != nil {
		return nil
	}
	var snap trace.Snapshot
	if json.Unmarshal(raw, &snap) != nil || len(snap.HTML) == 0 {
		return nil
	}
	return &snap
}

// traceScreenshot is a small JPEG of the page for the viewer's film strip.
func (c *conn) traceScreenshot(ctx context.Context, pageID string) *trace.Screenshot {
	if pageID == "" {
		return nil
	}
	pg, err := c.s.page(pageID)
	if err != nil {
		return nil
	}
	jpeg, err := pg.Capture(ctx, browser.ShotOptions{Format: "jpeg", Quality: 50}, snapshotTimeout)
	if err != nil {
		return nil
	}
	var size trace.Size
	raw, err := pg.Evaluate(ctx, "() => ({width: window.innerWidth, height: window.innerHeight})", nil, snapshotTimeout)
	if err == nil {
		_ = json.Unmarshal(raw, &size)
	}
	return &trace.Screenshot{JPEG: jpeg, Width: size.Width, Height: size.Height}
}
