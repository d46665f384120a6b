package driver

import "wright/browser"

// webSocketWireName is the wire method of a page's WebSocket events
// (PROTOCOL.md, "WebSockets"); "" for any other event.
func webSocketWireName(ev browser.Event) string {
	switch ev.(type) {
	case *browser.WebSocketEvent:
		return "page.websocket"
	case *browser.WebSocketFrameEvent:
		return "page.websocket_frame"
	case *browser.WebSocketErrorEvent:
		return "page.websocket_error"
	case *browser.WebSocketClosedEvent:
		return "page.websocket_close"
	}
	return ""
}
