package driver

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"wright/browser"
)

// browser.start_tracing / stop_tracing record Chromium's trace of what the
// browser did (here a page's load), one recording at a time.
func TestBrowserTracing(t *testing.T) {
	c, _, _, _ := pipeDriver(t)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	c.fail("browser.stop_tracing", map[string]any{}, codeBadParams, browser.ErrInvalidParams, "start_tracing")
	c.call("browser.start_tracing", map[string]any{"page": page, "categories": []string{"devtools.timeline", "blink.user_timing"}})
	c.fail("browser.start_tracing", map[string]any{}, codeBadParams, browser.ErrInvalidParams, "already")
	c.call("page.goto", map[string]any{"page": page, "url": site.URL + "/buttons.html"})
	c.call("page.evaluate", map[string]any{"page": page, "expression": "performance.mark('wright-mark')"})
	res := c.call("browser.stop_tracing", map[string]any{})
	raw, err := base64.StdEncoding.DecodeString(res["data"].(string))
	if err != nil {
		t.Fatal(err)
	}
	var trace struct {
		TraceEvents []struct {
			Cat  string `json:"cat"`
			Name string `json:"name"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(raw, &trace); err != nil {
		t.Fatalf("the trace is not JSON: %v (%.200s)", err, raw)
	}
	var mark, timeline bool
	for _, e := range trace.TraceEvents {
		mark = mark || e.Name == "wright-mark"
		timeline = timeline || strings.Contains(e.Cat, "devtools.timeline")
	}
	if !mark || !timeline {
		t.Errorf("%d events: the user timing mark %v, timeline events %v", len(trace.TraceEvents), mark, timeline)
	}
	// Stopped, a new one may start.
	c.call("browser.start_tracing", map[string]any{})
	c.call("browser.stop_tracing", map[string]any{})
}
