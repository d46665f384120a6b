package driver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"

	"github.com/go-rod/rod/lib/proto"

	"wright/browser"
)

// Chromium's own performance trace (Playwright's browser.start_tracing):
// the browser-wide Tracing domain of CDP, recorded into a stream Chromium
// keeps and read back whole on stop. It is the browser's, not a page's: one
// recording at a time on a browser.

// defaultTraceCategories are what a trace records when the script names
// none: the timeline a performance panel shows (tasks, frames, script
// runs, console and user timing marks, V8's sampled stacks).
var defaultTraceCategories = []string{
	"-*", "devtools.timeline", "v8.execute", "disabled-by-default-devtools.timeline",
	"disabled-by-default-devtools.timeline.frame", "toplevel", "blink.console", "blink.user_timing",
	"latencyInfo", "disabled-by-default-devtools.timeline.stack", "disabled-by-default-v8.cpu_profiler",
}

// screenshotTraceCategory adds the compositor's frames to a trace.
const screenshotTraceCategory = "disabled-by-default-devtools.screenshot"

// browserTraces are the browsers recording a trace now.
var browserTraces = struct {
	mu sync.Mutex
	on map[*browser.Browser]bool
}{on: map[*browser.Browser]bool{}}

// browserStartTracing answers browser.start_tracing.
func browserStartTracing(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Browser     string   `json:"browser"`
		Page        string   `json:"page"` // accepted: Chromium's trace is the browser's whole
		Screenshots bool     `json:"screenshots"`
		Categories  []string `json:"categories"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	b, err := c.s.browserParam(p.Browser)
	if err != nil {
		return nil, err
	}
	if c.s.sharedBrowser() || c.s.opts.Browser.Secrets != nil {
		// The trace holds every target of the browser (the warm browser's
		// are other scripts' too) and, with screenshots, what pages showed,
		// secrets typed into them included.
		return nil, browser.Errorf(browser.ErrInvalidParams, "browser.start_tracing: refused on a browser that holds other scripts' pages or this run's secrets: a Chromium trace records every page of the browser, screenshots included")
	}
	if p.Page != "" {
		if _, err := c.s.page(p.Page); err != nil {
			return nil, err
		}
	}
	cats := p.Categories
	if len(cats) == 0 {
		cats = append([]string(nil), defaultTraceCategories...)
	}
	if p.Screenshots {
		cats = append(cats, screenshotTraceCategory)
	}
	browserTraces.mu.Lock()
	defer browserTraces.mu.Unlock()
	if browserTraces.on[b] {
		return nil, browser.Errorf(browser.ErrInvalidParams, "browser.start_tracing: a trace is already being recorded on this browser; call stop_tracing() first")
	}
	err = proto.TracingStart{
		TransferMode: proto.TracingStartTransferModeReturnAsStream,
		TraceConfig:  &proto.TracingTraceConfig{IncludedCategories: cats},
	}.Call(b.Rod().Context(ctx))
	if err != nil {
		return nil, browser.WrapError(browser.ErrBrowser, err, "browser.start_tracing: %v", err)
	}
	browserTraces.on[b] = true
	return map[string]any{}, nil
}

// browserStopTracing answers browser.stop_tracing with the trace's JSON,
// base64 in "data".
func browserStopTracing(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var p struct {
		Browser string `json:"browser"`
	}
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	b, err := c.s.browserParam(p.Browser)
	if err != nil {
		return nil, err
	}
	browserTraces.mu.Lock()
	on := browserTraces.on[b]
	delete(browserTraces.on, b)
	browserTraces.mu.Unlock()
	if !on {
		return nil, browser.Errorf(browser.ErrInvalidParams, "browser.stop_tracing: no trace is being recorded; call start_tracing() first")
	}
	r := b.Rod().Context(ctx)
	var done proto.TracingTracingComplete
	wait := r.WaitEvent(&done)
	if err := (proto.TracingEnd{}).Call(r); err != nil {
		return nil, browser.WrapError(browser.ErrBrowser, err, "browser.stop_tracing: %v", err)
	}
	wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if done.Stream == "" {
		return nil, browser.Errorf(browser.ErrBrowser, "browser.stop_tracing: Chromium handed back no trace stream")
	}
	defer func() { _ = proto.IOClose{Handle: done.Stream}.Call(r) }()
	var out strings.Builder
	for {
		chunk, err := proto.IORead{Handle: done.Stream}.Call(r)
		if err != nil {
			return nil, browser.WrapError(browser.ErrBrowser, err, "browser.stop_tracing: read the trace: %v", err)
		}
		if chunk.Base64Encoded {
			b, err := base64.StdEncoding.DecodeString(chunk.Data)
			if err != nil {
				return nil, browser.WrapError(browser.ErrBrowser, err, "browser.stop_tracing: decode the trace: %v", err)
			}
			out.Write(b)
		} else {
			out.WriteString(chunk.Data)
		}
		if chunk.EOF {
			break
		}
	}
	return map[string]any{"data": base64.StdEncoding.EncodeToString([]byte(out.String()))}, nil
}
