package mcp_test

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"wright/agents/mcp"
)

const hostileToken = "tok-hostile-0123456789"

// rawClient speaks streamable HTTP by hand, as a hostile client would:
// every header and body is its choice.
type rawClient struct {
	t       *testing.T
	url     string
	session string
}

// post sends body and returns the status, the response's text and its
// session header.
func (c *rawClient) post(body string, header map[string]string) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest("POST", c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+hostileToken)
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	return resp.StatusCode, string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`

// open initializes a session.
func (c *rawClient) open() {
	c.t.Helper()
	if code, body := c.post(initBody, nil); code != 200 || c.session == "" {
		c.t.Fatalf("initialize: %d %s", code, body)
	}
	if code, body := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); code != 202 {
		c.t.Fatalf("initialized: %d %s", code, body)
	}
}

// Malformed JSON-RPC, unknown methods, wrong and oversized arguments, a
// stolen session id without the token, bodies over the limit, too many
// sessions and too many requests at once: each gets a protocol error or a
// clear HTTP status, and the server goes on serving.
func TestHTTPHostileClient(t *testing.T) {
	srv := newServer(t)
	h := httptest.NewServer(srv.Handler(mcp.HTTPOptions{Token: hostileToken, MaxBodyBytes: 64 << 10, MaxSessions: 3, MaxCalls: 2}))
	t.Cleanup(h.Close)
	c := &rawClient{t: t, url: h.URL}
	c.open()

	for _, tc := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":2,"method":`, 400, ""},
		{"a JSON string", `"tools/list"`, 400, ""},
		{"null", `null`, 400, ""},
		{"an unknown method", `{"jsonrpc":"2.0","id":3,"method":"tools/steal","params":{}}`, 400, "unsupported"},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":"script_list"}`, 200, `"error"`},
		{"an unknown tool", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"shell","arguments":{}}}`, 200, `shell`},
		{"arguments of the wrong type", `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"script_show","arguments":{"name":7}}}`, 200, `"isError":true`},
		{"arguments that are an array", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"script_show","arguments":[1,2]}}`, 200, `"isError":true`},
		{"a name far too long", `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"script_show","arguments":{"name":"` + strings.Repeat("a", 60<<10) + `"}}}`, 200, `"isError":true`},
		{"a body over the limit", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"script_make","arguments":{"task":"` + strings.Repeat("x", 70<<10) + `"}}}`, 413, ""},
	} {
		code, body := c.post(tc.body, nil)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %.300s (want %d naming %q)", tc.name, code, body, tc.code, tc.want)
		}
	}
	// The session still answers.
	if code, body := c.post(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"script_list","arguments":{}}}`, nil); code != 200 || !strings.Contains(body, `[]`) {
		t.Errorf("script_list after the hostile requests: %d %s", code, body)
	}

	// A session id alone, without the token, is refused: a session is
	// bound to the token that opened it.
	if code, _ := c.post(`{"jsonrpc":"2.0","id":11,"method":"tools/list"}`, map[string]string{"Authorization": ""}); code != 401 {
		t.Errorf("a session id without the token: %d", code)
	}
	if code, _ := c.post(`{"jsonrpc":"2.0","id":12,"method":"tools/list"}`, map[string]string{"Authorization": "Bearer " + hostileToken[:len(hostileToken)-1]}); code != 401 {
		t.Errorf("a session id with a token one character short: %d", code)
	}
	// A Host of another port is not the server's, though it is loopback.
	if code, _ := c.post(initBody, map[string]string{"Mcp-Session-Id": ""}); code != 200 {
		t.Fatalf("a second session: %d", code)
	}
	req, _ := http.NewRequest("POST", h.URL, strings.NewReader(initBody))
	req.Host = "127.0.0.1:1"
	req.Header.Set("Authorization", "Bearer "+hostileToken)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("a loopback Host of another port: %v %v", resp.StatusCode, err)
	}

	// Sessions: the third is served, the fourth refused.
	third := &rawClient{t: t, url: h.URL}
	third.open()
	fourth := &rawClient{t: t, url: h.URL}
	if code, body := fourth.post(initBody, nil); code != 503 || !strings.Contains(body, "sessions are open") {
		t.Errorf("a fourth session: %d %s", code, body)
	}
	// Closing one makes room.
	del, _ := http.NewRequest("DELETE", h.URL, nil)
	del.Header.Set("Authorization", "Bearer "+hostileToken)
	del.Header.Set("Mcp-Session-Id", third.session)
	if resp, err := http.DefaultClient.Do(del); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	if code, body := fourth.post(initBody, nil); code != 200 {
		t.Errorf("a session after one closed: %d %s", code, body)
	}

	// Requests in flight: two bodies that never end, written by hand on
	// connections of their own, hold both places; a third request is
	// refused at once, and served once they end.
	addr := strings.TrimPrefix(h.URL, "http://")
	var conns []net.Conn
	for range 2 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nMcp-Session-Id: %s\r\n"+
			"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":\"2.0\",", addr, hostileToken, c.session)
	}
	// The loop ends at the first 429; the deadline is for a loaded machine,
	// where the two connections' handlers may take a while to start.
	deadline := time.Now().Add(20 * time.Second)
	var code int
	var body string
	for time.Now().Before(deadline) {
		if code, body = c.post(`{"jsonrpc":"2.0","id":13,"method":"tools/list"}`, nil); code == 429 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code != 429 || !strings.Contains(body, "requests are being served") {
		t.Errorf("a third request while two are in flight: %d %.200s", code, body)
	}
	for _, conn := range conns {
		conn.Close()
	}
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if code, _ = c.post(`{"jsonrpc":"2.0","id":14,"method":"tools/list"}`, nil); code != 429 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, body := c.post(`{"jsonrpc":"2.0","id":15,"method":"tools/list"}`, nil); code != 200 || !bytes.Contains([]byte(body), []byte("script_make")) {
		t.Errorf("tools/list once the two ended: %d %.200s", code, body)
	}
}
