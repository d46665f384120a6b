package driver

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"wright/browser"
)

// cdpEvents waits for n cdp.event notifications of a CDP method.
func cdpEvents(t *testing.T, c *rpc, method string, n int) []map[string]any {
	t.Helper()
	var got []map[string]any
	deadline := time.After(10 * time.Second)
	for len(got) < n {
		select {
		case ev := <-c.events:
			if ev.Method == "cdp.event" {
				var p map[string]any
				_ = json.Unmarshal(ev.Params, &p)
				if p["method"] == method {
					got = append(got, p)
				}
			}
		case <-deadline:
			t.Fatalf("%d %s events, want %d", len(got), method, n)
		}
	}
	return got
}

// A raw CDP session on a page: calls, events in order with their answers,
// detach, and a page that closes under it.
func TestCDPSession(t *testing.T) {
	c, _, _, _ := pipeDriver(t)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	sess := c.call("cdp.new_session", map[string]any{"page": page})["session"]
	c.call("cdp.send", map[string]any{"session": sess, "method": "Runtime.enable"})
	res := c.call("cdp.send", map[string]any{"session": sess, "method": "Runtime.evaluate",
		"params": map[string]any{"expression": "window.mark = 7; console.log('hi'); 6 * 7", "returnByValue": true}})
	if v := res["result"].(map[string]any)["result"].(map[string]any)["value"]; v != float64(42) {
		t.Errorf("Runtime.evaluate: %v", res)
	}
	logged := cdpEvents(t, c, "Runtime.consoleAPICalled", 1)[0]["params"].(map[string]any)
	if arg := logged["args"].([]any)[0].(map[string]any)["value"]; arg != "hi" {
		t.Errorf("console event: %v", logged)
	}
	// The session evaluates in the page the driver drives.
	if v := c.call("page.evaluate", map[string]any{"page": page, "expression": "window.mark"})["value"]; v != float64(7) {
		t.Errorf("window.mark from the page: %v", v)
	}
	c.fail("cdp.send", map[string]any{"session": sess, "method": "Runtime.nope"}, codeServer, browser.ErrBrowser, "Runtime.nope")
	c.fail("cdp.send", map[string]any{"session": sess, "method": "Runtime.evaluate", "params": []int{1}}, codeBadParams, browser.ErrInvalidParams, "object")
	c.call("cdp.detach", map[string]any{"session": sess})
	c.fail("cdp.send", map[string]any{"session": sess, "method": "Runtime.evaluate"}, codeServer, browser.ErrTargetClosed, "has been closed")

	// A page closing ends its session; detaching it then is an error.
	other := c.call("browser.new_page", map[string]any{})["page"]
	gone := c.call("cdp.new_session", map[string]any{"page": other})["session"]
	c.call("page.close", map[string]any{"page": other})
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := c.wait(c.send("cdp.send", map[string]any{"session": gone, "method": "Runtime.evaluate", "params": map[string]any{"expression": "1"}}))
		if a.Error != nil && strings.Contains(a.Error.Message, "has been closed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session of a closed page still answers: %+v", a)
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.fail("cdp.detach", map[string]any{"session": gone}, codeServer, browser.ErrTargetClosed)

	// A browser session.
	bs := c.call("cdp.new_session", map[string]any{})["session"]
	targets := c.call("cdp.send", map[string]any{"session": bs, "method": "Target.getTargets"})["result"].(map[string]any)
	if len(targets["targetInfos"].([]any)) == 0 {
		t.Errorf("Target.getTargets: %v", targets)
	}
}

// Under a URL policy (a run), a session sends what stays inside its page
// and refuses what would get past the driver's guards.
func TestCDPSessionGuarded(t *testing.T) {
	opts := ServerOptions{}
	opts.Browser.URLPolicy = func(u string) error {
		if strings.Contains(u, "denied.example") {
			return errors.New("denied by the test's policy")
		}
		return nil
	}
	c, _, _, _ := pipeDriverWith(t, opts)
	c.call("browser.launch", map[string]any{})
	page := c.call("browser.new_page", map[string]any{})["page"]
	sess := c.call("cdp.new_session", map[string]any{"page": page})["session"]
	c.call("cdp.send", map[string]any{"session": sess, "method": "Runtime.evaluate", "params": map[string]any{"expression": "1"}})
	for _, m := range []string{"Page.navigate", "Fetch.enable", "DOM.setFileInputFiles", "Target.createTarget"} {
		c.fail("cdp.send", map[string]any{"session": sess, "method": m, "params": map[string]any{"url": "http://denied.example/"}},
			codeServer, browser.ErrBlockedURL, m, "beyond the page")
	}
	if u := c.call("page.url", map[string]any{"page": page})["url"]; u != "about:blank" {
		t.Errorf("the page went to %v", u)
	}
	bs := c.call("cdp.new_session", map[string]any{})["session"]
	c.call("cdp.send", map[string]any{"session": bs, "method": "Target.getTargets"})
	c.fail("cdp.send", map[string]any{"session": bs, "method": "Target.createBrowserContext"}, codeServer, browser.ErrBlockedURL, "only read")
}
