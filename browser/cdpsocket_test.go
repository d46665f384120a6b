package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// An endpoint that is not a browser: it answers the handshake, then does
// what the test says with the first message it gets.
func fakeEndpoint(t *testing.T, onMessage func(*websocket.Conn)) (*httptest.Server, chan http.Header) {
	t.Helper()
	headers := make(chan http.Header, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header.Clone()
		if r.URL.Path == "/json/version" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"webSocketDebuggerUrl": "ws://` + r.Host + `/ws"}`))
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		if _, _, err := c.Read(r.Context()); err == nil {
			onMessage(c)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, headers
}

func TestAttachKeepsTheEndpointsCloseReasonAndSendsHeaders(t *testing.T) {
	srv, headers := fakeEndpoint(t, func(c *websocket.Conn) { _ = c.Close(4123, "Oh my!") })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Launch(ctx, Options{CDPURL: srv.URL, CDPHeaders: map[string]string{"foo": "bar"}})
	if err == nil || !strings.Contains(err.Error(), "Browser logs:\n\nOh my!\n") {
		t.Fatalf("attach to a server that closes with a reason: %v", err)
	}
	for _, want := range []string{"/json/version", "handshake"} {
		select {
		case h := <-headers:
			if h.Get("foo") != "bar" {
				t.Errorf("%s request: foo = %q, want bar", want, h.Get("foo"))
			}
		default:
			t.Errorf("the %s request never came", want)
		}
	}
}

func TestAttachRefusesAMessageThatIsNotCDP(t *testing.T) {
	srv, _ := fakeEndpoint(t, func(c *websocket.Conn) {
		_ = c.Write(context.Background(), websocket.MessageText, []byte("incoming"))
		time.Sleep(time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := Launch(ctx, Options{CDPURL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"})
	if err == nil || !strings.Contains(err.Error(), "not a DevTools protocol message") {
		t.Fatalf("attach to a server that sends text: %v", err)
	}
}

func TestAttachHeadersStayWithTheNamedHost(t *testing.T) {
	o := Options{CDPURL: "http://127.0.0.1:9222", CDPHeaders: map[string]string{"Authorization": "x"}}
	if h := o.attachHeader("ws://127.0.0.1:9222/devtools/browser/1"); h.Get("Authorization") != "x" {
		t.Errorf("same host: headers %v", h)
	}
	if h := o.attachHeader("ws://evil.example:9222/devtools/browser/1"); h != nil {
		t.Errorf("another host got the headers: %v", h)
	}
}

func TestAttachToASilentEndpointEndsWithItsContext(t *testing.T) {
	srv, _ := fakeEndpoint(t, func(c *websocket.Conn) { time.Sleep(10 * time.Second) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	_, err := Launch(ctx, Options{CDPURL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"})
	if err == nil || !strings.Contains(err.Error(), "no answer in time") {
		t.Fatalf("attach to a server that never answers: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the attach took %v, past its context's 2s", d)
	}
}
