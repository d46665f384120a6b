package driver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"wright/browser"
)

// TestWebSocketWireNames: each WebSocket event goes out under its own
// method, with its page and fields as PROTOCOL.md ("WebSockets") has them.
func TestWebSocketWireNames(t *testing.T) {
	var buf bytes.Buffer
	c := &conn{w: &buf}
	pe := browser.PageEvent{Page: "p2"}
	for _, tc := range []struct {
		ev     browser.Event
		method string
		want   map[string]any
	}{
		{&browser.WebSocketEvent{PageEvent: pe, Socket: "s1", URL: "ws://h/ws"}, "page.websocket",
			map[string]any{"page": "p2", "socket": "s1", "url": "ws://h/ws"}},
		{&browser.WebSocketFrameEvent{PageEvent: pe, Socket: "s1", Sent: true, Opcode: 2, Data: "AAE="}, "page.websocket_frame",
			map[string]any{"socket": "s1", "sent": true, "opcode": float64(2), "data": "AAE="}},
		{&browser.WebSocketErrorEvent{PageEvent: pe, Socket: "s1", Error: "boom"}, "page.websocket_error",
			map[string]any{"socket": "s1", "error": "boom"}},
		{&browser.WebSocketClosedEvent{PageEvent: pe, Socket: "s1", DroppedFrames: 3}, "page.websocket_close",
			map[string]any{"socket": "s1", "dropped_frames": float64(3)}},
	} {
		buf.Reset()
		c.notify(tc.ev)
		var got struct {
			Method string         `json:"method"`
			Params map[string]any `json:"params"`
		}
		if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatalf("%T: %v: %q", tc.ev, err, buf.String())
		}
		if got.Method != tc.method {
			t.Errorf("%T: sent as %q, want %q", tc.ev, got.Method, tc.method)
		}
		for k, v := range tc.want {
			if fmt.Sprint(got.Params[k]) != fmt.Sprint(v) {
				t.Errorf("%s: %s = %v, want %v", tc.method, k, got.Params[k], v)
			}
		}
	}
	// A socket that dropped nothing says nothing of drops.
	buf.Reset()
	c.notify(&browser.WebSocketClosedEvent{PageEvent: pe, Socket: "s2"})
	if bytes.Contains(buf.Bytes(), []byte("dropped_frames")) {
		t.Errorf("dropped_frames sent for none: %s", buf.String())
	}
}
