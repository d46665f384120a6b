package driver

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"wright/browser"
)

// A tap on a touch-emulating page fires the touch events (and the mouse
// events Chromium makes of a tap), where a click would fire none.
func TestTapFiresTouchEvents(t *testing.T) {
	c, _, _, _ := pipeDriver(t)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	c.call("page.emulate", map[string]any{"page": page, "has_touch": true})
	c.call("page.goto", map[string]any{"page": page, "url": site.URL + "/buttons.html"})
	c.call("page.evaluate", map[string]any{"page": page, "expression": `() => {
		document.body.innerHTML = '<div id="pad" style="width: 80px; height: 80px; background: pink">pad</div>';
		window.seen = [];
		for (const name of ['touchstart', 'touchend', 'click'])
			document.getElementById('pad').addEventListener(name, () => window.seen.push(name));
	}`})
	c.call("locator.tap", map[string]any{"page": page, "selector": "#pad"})
	c.call("page.touchscreen.tap", map[string]any{"page": page, "x": 40, "y": 40})
	got := c.call("page.evaluate", map[string]any{"page": page, "expression": "window.seen.join(' ')"})["value"]
	if got != "touchstart touchend click touchstart touchend click" {
		t.Errorf("events of two taps: %q", got)
	}
	c.fail("page.touchscreen.tap", map[string]any{"page": page, "x": 1}, codeBadParams, browser.ErrInvalidParams, "x and y")
	c.fail("locator.tap", map[string]any{"page": page, "selector": "#gone", "timeout": 200}, codeServer, browser.ErrTimeout, "#gone")
}

// page.pdf answers a PDF document; a scale Chromium would refuse is named.
func TestPDF(t *testing.T) {
	c, _, _, _ := pipeDriver(t)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	c.call("page.goto", map[string]any{"page": page, "url": site.URL + "/buttons.html"})
	res := c.call("page.pdf", map[string]any{"page": page, "width": 8.27, "height": 11.7, "landscape": true,
		"margin": map[string]any{"top": 0.5}})
	doc, err := base64.StdEncoding.DecodeString(res["data"].(string))
	if err != nil || !bytes.HasPrefix(doc, []byte("%PDF-")) {
		t.Fatalf("pdf: %v, starts %q", err, doc[:min(len(doc), 8)])
	}
	if !strings.Contains(string(doc), "%%EOF") {
		t.Error("the PDF has no end-of-file marker")
	}
	c.fail("page.pdf", map[string]any{"page": page, "scale": 5}, codeBadParams, browser.ErrInvalidParams, "scale")
}

// websocket.check: a WebSocket route's server connection passes the URL
// policy first; a denied host is refused by name.
func TestWebSocketCheck(t *testing.T) {
	opts := ServerOptions{}
	opts.Browser.URLPolicy = func(u string) error {
		if strings.Contains(u, "denied.example") {
			return errors.New("denied.example is not on the allow list")
		}
		return nil
	}
	c, _, _, _ := pipeDriverWith(t, opts)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	c.call("websocket.check", map[string]any{"page": page, "url": "ws://127.0.0.1:1/ws"})
	c.fail("websocket.check", map[string]any{"page": page, "url": "wss://denied.example/feed"}, codeServer, browser.ErrBlockedURL, "denied.example", "URL policy")
	c.fail("websocket.check", map[string]any{"page": page, "url": "http://127.0.0.1/ws"}, codeBadParams, browser.ErrInvalidParams, "ws://")
}

// page.request_gc clears what only a WeakRef holds.
func TestRequestGC(t *testing.T) {
	c, _, _, _ := pipeDriver(t)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	c.call("page.evaluate", map[string]any{"page": page, "expression": "() => { globalThis.held = {a: 1}; globalThis.ref = new WeakRef(globalThis.held); }"})
	c.call("page.request_gc", map[string]any{"page": page})
	if v := c.call("page.evaluate", map[string]any{"page": page, "expression": "() => !!globalThis.ref.deref()"})["value"]; v != true {
		t.Errorf("a held object was collected: %v", v)
	}
	c.call("page.evaluate", map[string]any{"page": page, "expression": "() => { globalThis.held = null; }"})
	c.call("page.request_gc", map[string]any{"page": page})
	if v := c.call("page.evaluate", map[string]any{"page": page, "expression": "() => globalThis.ref.deref() === undefined"})["value"]; v != true {
		t.Errorf("the dropped object is still there after request_gc: %v", v)
	}
}
