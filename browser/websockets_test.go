package browser

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// wsEcho is a WebSocket server for these tests: /ws echoes every message
// (text as text, binary as binary) until the client closes; "bye" makes
// the server close first. Anything else is a 404, a refused handshake.
func wsEcho(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ws" {
			http.NotFound(w, r)
			return
		}
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		defer c.CloseNow()
		c.SetReadLimit(-1)
		ctx := r.Context()
		for {
			typ, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			if typ == websocket.MessageText && string(data) == "bye" {
				_ = c.Close(websocket.StatusNormalClosure, "bye")
				return
			}
			if err := c.Write(ctx, typ, data); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// socketEvents collects a page's WebSocket and close events until want
// says it has them all.
func socketEvents(t *testing.T, ch <-chan Event, want func([]Event) bool) []Event {
	t.Helper()
	var got []Event
	deadline := time.After(15 * time.Second)
	for !want(got) {
		select {
		case e := <-ch:
			switch e.(type) {
			case *WebSocketEvent, *WebSocketFrameEvent, *WebSocketErrorEvent, *WebSocketClosedEvent, *PageClosedEvent:
				got = append(got, e)
			}
		case <-deadline:
			t.Fatalf("timed out; events so far: %s", describeEvents(got))
		}
	}
	return got
}

func describeEvents(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		j, _ := json.Marshal(e)
		b.WriteString(typeName(e) + " ")
		b.Write(j)
		b.WriteString("\n")
	}
	return b.String()
}

func typeName(e Event) string {
	switch e.(type) {
	case *WebSocketEvent:
		return "open"
	case *WebSocketFrameEvent:
		return "frame"
	case *WebSocketErrorEvent:
		return "error"
	case *WebSocketClosedEvent:
		return "close"
	case *PageClosedEvent:
		return "pageclose"
	}
	return "other"
}

func hasClose(evs []Event) bool {
	for _, e := range evs {
		if _, ok := e.(*WebSocketClosedEvent); ok {
			return true
		}
	}
	return false
}

func TestWebSocketFrames(t *testing.T) {
	base := wsEcho(t)
	p := open(t, "/form.html")
	ch := events(t, p)
	// Text, then binary; once both came back the page says bye and the server closes.
	_, err := p.Evaluate(bg, `url => { const ws = new WebSocket(url); let n = 0;
		ws.onopen = () => { ws.send('hello'); ws.send(new Uint8Array([0, 1, 2, 255])); };
		ws.onmessage = () => { if (++n === 2) ws.send('bye'); }; }`, json.RawMessage(jsString(base+"/ws")), 0)
	if err != nil {
		t.Fatal(err)
	}
	evs := socketEvents(t, ch, hasClose)
	bin := base64.StdEncoding.EncodeToString([]byte{0, 1, 2, 255})
	want := []string{"open " + base + "/ws", "sent 1 hello", "sent 2 " + bin, "received 1 hello", "received 2 " + bin,
		"sent 1 bye", "close"}
	var got []string
	var id string
	for _, e := range evs {
		switch e := e.(type) {
		case *WebSocketEvent:
			id = e.Socket
			got = append(got, "open "+e.URL)
		case *WebSocketFrameEvent:
			dir := "received"
			if e.Sent {
				dir = "sent"
			}
			got = append(got, dir+" "+string(rune('0'+e.Opcode))+" "+e.Data)
			if e.Socket != id {
				t.Errorf("frame of socket %q, opened %q", e.Socket, id)
			}
		case *WebSocketClosedEvent:
			got = append(got, "close")
		}
	}
	// The two directions interleave as the network has it; each keeps its order.
	sorted, sortedWant := slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want))
	if !slices.Equal(sorted, sortedWant) || got[0] != want[0] || got[len(got)-1] != "close" ||
		slices.Index(got, "sent 1 hello") > slices.Index(got, "sent 2 "+bin) ||
		slices.Index(got, "received 1 hello") > slices.Index(got, "received 2 "+bin) {
		t.Fatalf("events:\n%s\nwant (in some interleaving):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestWebSocketHandshakeError(t *testing.T) {
	base := wsEcho(t)
	p := open(t, "/form.html")
	ch := events(t, p)
	if _, err := p.Evaluate(bg, `url => { new WebSocket(url); }`, json.RawMessage(jsString(base+"/bogus")), 0); err != nil {
		t.Fatal(err)
	}
	evs := socketEvents(t, ch, hasClose)
	var msg string
	for _, e := range evs {
		if e, ok := e.(*WebSocketErrorEvent); ok {
			msg = e.Error
		}
	}
	if !strings.Contains(msg, ": 404") {
		t.Fatalf("error %q, want the handshake's 404; events:\n%s", msg, describeEvents(evs))
	}
}

// A socket still open when its page closes is closed, before the page's
// own close; nothing of it comes after.
func TestWebSocketClosedWithPage(t *testing.T) {
	base := wsEcho(t)
	p := open(t, "/form.html")
	ch := events(t, p)
	if _, err := p.Evaluate(bg, `url => new Promise(f => { const ws = new WebSocket(url); ws.onopen = () => f(); })`,
		json.RawMessage(jsString(base+"/ws")), 0); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(bg); err != nil {
		t.Fatal(err)
	}
	evs := socketEvents(t, ch, func(evs []Event) bool {
		return len(evs) > 0 && typeName(evs[len(evs)-1]) == "pageclose"
	})
	if names := typesOf(evs); names != "open close pageclose" {
		t.Fatalf("events %q, want open close pageclose", names)
	}
}

// A hostile page's sockets cost a bounded table: past the page's limit a
// socket is not followed, a frame past the size limit is not forwarded,
// and both are counted.
func TestWebSocketLimits(t *testing.T) {
	base := wsEcho(t)
	p := open(t, "/form.html")
	p.sockets.mu.Lock()
	p.sockets.maxOpen, p.sockets.maxFrame = 2, 1000
	p.sockets.mu.Unlock()
	ch := events(t, p)
	_, err := p.Evaluate(bg, `url => new Promise(f => {
		let open = 0;
		for (let i = 0; i < 4; i++) {
			const ws = new WebSocket(url);
			ws.onopen = () => { ws.send('x'.repeat(5000)); ws.send('small ' + i); };
			ws.onmessage = e => { if (e.data.startsWith('small') && ++open === 4) f(); };
		}
	})`, json.RawMessage(jsString(base+"/ws")), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p.FlushEvents(bg)
	var opened, small, big int
	for len(ch) > 0 {
		switch e := (<-ch).(type) {
		case *WebSocketEvent:
			opened++
		case *WebSocketFrameEvent:
			if strings.HasPrefix(e.Data, "small") {
				small++
			} else {
				big++
			}
		}
	}
	// Two sockets followed: each sent and got back one small frame; the big ones went uncounted in events.
	if opened != 2 || small != 4 || big != 0 {
		t.Errorf("opened %d, small frames %d, big frames %d; want 2, 4, 0", opened, small, big)
	}
	if d := p.WebSocketDrops(); d.Sockets != 2 || d.Frames != 4 {
		t.Errorf("drops %+v, want 2 sockets and 4 frames", d)
	}
}

func typesOf(evs []Event) string {
	names := make([]string, 0, len(evs))
	for _, e := range evs {
		names = append(names, typeName(e))
	}
	return strings.Join(names, " ")
}

// A socket of a document the page leaves is closed: its entry goes, so a
// page that navigates often does not fill its table with the dead.
func TestWebSocketClosedByNavigation(t *testing.T) {
	base := wsEcho(t)
	p := open(t, "/form.html")
	ch := events(t, p)
	if _, err := p.Evaluate(bg, `url => new Promise(f => { const ws = new WebSocket(url); ws.onopen = () => f(); })`,
		json.RawMessage(jsString(base+"/ws")), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Goto(bg, site.URL+"/form.html?again", Load, 0); err != nil {
		t.Fatal(err)
	}
	evs := socketEvents(t, ch, hasClose)
	if names := typesOf(evs); names != "open close" {
		t.Fatalf("events %q, want open close", names)
	}
	p.sockets.mu.Lock()
	n := len(p.sockets.open)
	p.sockets.mu.Unlock()
	if n != 0 {
		t.Errorf("%d sockets still followed after the navigation", n)
	}
}
