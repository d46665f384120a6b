package browser

import (
	"strings"
	"sync"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// A page's WebSockets, as Playwright shows them (page.on("websocket")):
// Chromium's Network.webSocket* events, turned into one announcement per
// socket, its frames each way, its errors, and its close.
//
// A page is untrusted: it may open sockets without end or send frames as
// large as it likes. The engine keeps one small entry per open socket and
// never holds a frame (each goes to the subscribers as it comes), so what it
// holds for a page is bounded by two limits: past MaxWebSockets open sockets
// a new one is not followed (no event, its frames ignored), and a frame whose
// payload passes MaxWebSocketFrame bytes is dropped. Both are counted
// (WebSocketDrops), and a socket's close says how many of its frames went.

// MaxWebSockets is how many open sockets of one page are followed at once.
const MaxWebSockets = 256

// MaxWebSocketFrame bounds a forwarded frame's payload as Chromium sends it
// (text as UTF-8, binary as base64), in bytes.
const MaxWebSocketFrame = 4 << 20

// WebSocketEvent: the page opened a WebSocket.
type WebSocketEvent struct {
	PageEvent
	Socket string `json:"socket"`
	URL    string `json:"url"`
}

// WebSocketFrameEvent: a message went out (Sent) or came in on a socket.
// Opcode 1 is text, Data the text itself; opcode 2 is binary, Data its
// bytes in base64.
type WebSocketFrameEvent struct {
	PageEvent
	Socket string `json:"socket"`
	Sent   bool   `json:"sent"`
	Opcode int    `json:"opcode"`
	Data   string `json:"data"`
}

// WebSocketErrorEvent: a socket failed (a refused handshake, a protocol
// error); its close follows.
type WebSocketErrorEvent struct {
	PageEvent
	Socket string `json:"socket"`
	Error  string `json:"error"`
}

// WebSocketClosedEvent: a socket closed, or its page did. DroppedFrames
// counts its frames left out for their size.
type WebSocketClosedEvent struct {
	PageEvent
	Socket        string `json:"socket"`
	DroppedFrames int    `json:"dropped_frames,omitempty"`
}

// webSockets is a page's table of open sockets; its events come from the
// page's pump, its close from wherever the page closes.
type webSockets struct {
	mu      sync.Mutex
	open    map[proto.NetworkRequestID]*webSocket
	dropped WebSocketDrops
	ended   bool // the page closed: nothing more is followed
	// maxOpen and maxFrame are the limits, 0 for MaxWebSockets and
	// MaxWebSocketFrame (a test lowers them on its page).
	maxOpen, maxFrame int
}

type webSocket struct {
	droppedFrames int
}

// WebSocketDrops counts what a page's sockets did that was not forwarded.
type WebSocketDrops struct {
	Sockets int `json:"sockets"` // sockets opened past MaxWebSockets
	Frames  int `json:"frames"`  // frames past MaxWebSocketFrame
}

// WebSocketDrops reports what the page's sockets did that was left out.
func (p *Page) WebSocketDrops() WebSocketDrops {
	t := &p.sockets
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dropped
}

// observeWebSocket follows the page's sockets, and says whether msg was
// one of their events. It runs whether or not a client listens, so the
// table stays right for one that subscribes later. A main frame's new
// document closes the sockets of the old one: Chromium ends them without
// a Network.webSocketClosed.
func (p *Page) observeWebSocket(msg *rod.Message) bool {
	if msg.Method == "Page.frameNavigated" {
		var e proto.PageFrameNavigated
		if msg.Load(&e) && e.Frame != nil && e.Frame.ParentID == "" {
			p.sockets.closeAll(p)
		}
		return false
	}
	if !strings.HasPrefix(msg.Method, "Network.webSocket") {
		return false
	}
	switch msg.Method {
	case "Network.webSocketCreated":
		var e proto.NetworkWebSocketCreated
		if msg.Load(&e) && p.sockets.add(e.RequestID) {
			p.emit(&WebSocketEvent{Socket: string(e.RequestID), URL: e.URL})
		}
	case "Network.webSocketFrameSent":
		var e proto.NetworkWebSocketFrameSent
		if msg.Load(&e) {
			p.emitFrame(e.RequestID, true, e.Response)
		}
	case "Network.webSocketFrameReceived":
		var e proto.NetworkWebSocketFrameReceived
		if msg.Load(&e) {
			p.emitFrame(e.RequestID, false, e.Response)
		}
	case "Network.webSocketFrameError":
		var e proto.NetworkWebSocketFrameError
		if msg.Load(&e) && p.sockets.known(e.RequestID) {
			p.emit(&WebSocketErrorEvent{Socket: string(e.RequestID), Error: e.ErrorMessage})
		}
	case "Network.webSocketClosed":
		var e proto.NetworkWebSocketClosed
		if msg.Load(&e) {
			if ws := p.sockets.remove(e.RequestID); ws != nil {
				p.emit(&WebSocketClosedEvent{Socket: string(e.RequestID), DroppedFrames: ws.droppedFrames})
			}
		}
	}
	return true
}

// emitFrame forwards one frame of a followed socket, unless it is too big.
// Frames of a socket the table does not hold (past the limit, or opened
// before the page was followed) are ignored.
func (p *Page) emitFrame(id proto.NetworkRequestID, sent bool, f *proto.NetworkWebSocketFrame) {
	if f == nil {
		return
	}
	t := &p.sockets
	t.mu.Lock()
	ws := t.open[id]
	tooBig := ws != nil && len(f.PayloadData) > orDefault(t.maxFrame, MaxWebSocketFrame)
	if tooBig {
		ws.droppedFrames++
		t.dropped.Frames++
	}
	t.mu.Unlock()
	if ws == nil || tooBig {
		return
	}
	p.emit(&WebSocketFrameEvent{Socket: string(id), Sent: sent, Opcode: int(f.Opcode), Data: f.PayloadData})
}

// closeWebSockets closes every socket the page still has: its page closed,
// and Chromium says nothing more of them.
func (p *Page) closeWebSockets() {
	p.sockets.mu.Lock()
	p.sockets.ended = true
	p.sockets.mu.Unlock()
	p.sockets.closeAll(p)
}

// closeAll closes the sockets the table holds, announcing each on p.
func (t *webSockets) closeAll(p *Page) {
	t.mu.Lock()
	open := t.open
	t.open = nil
	t.mu.Unlock()
	for id, ws := range open {
		p.emit(&WebSocketClosedEvent{Socket: string(id), DroppedFrames: ws.droppedFrames})
	}
}

// add follows a new socket, unless the page has too many open.
func (t *webSockets) add(id proto.NetworkRequestID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.open[id]; ok || t.ended {
		return false
	}
	if len(t.open) >= orDefault(t.maxOpen, MaxWebSockets) {
		t.dropped.Sockets++
		return false
	}
	if t.open == nil {
		t.open = map[proto.NetworkRequestID]*webSocket{}
	}
	t.open[id] = &webSocket{}
	return true
}

func (t *webSockets) known(id proto.NetworkRequestID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.open[id] != nil
}

func (t *webSockets) remove(id proto.NetworkRequestID) *webSocket {
	t.mu.Lock()
	defer t.mu.Unlock()
	ws := t.open[id]
	delete(t.open, id)
	return ws
}

func orDefault(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}
