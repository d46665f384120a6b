package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/coder/websocket"
)

// cdpSocket is the WebSocket to a browser this driver attached to
// (Options.CDPURL). Rod's own client is enough for a Chromium we started,
// but an endpoint a script names may be anything: rod's handshake sends a
// fixed key that conforming servers refuse, it reads a close frame or a
// message that is not CDP's JSON as a message (and panics decoding it),
// and it drops the reason a server gives for closing. This one speaks the
// protocol fully and turns all three into errors.
type cdpSocket struct {
	conn   *websocket.Conn
	ctx    context.Context // the socket's life: Close cancels a blocked Read or Send
	cancel context.CancelFunc
}

// dialCDP opens the WebSocket at wsURL, sending header with the handshake.
func dialCDP(ctx context.Context, wsURL string, header http.Header) (*cdpSocket, error) {
	conn, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: header})
	if err != nil {
		return nil, err
	}
	conn.SetReadLimit(-1) // a full-page screenshot is one message of many megabytes
	sctx, cancel := context.WithCancel(context.Background())
	return &cdpSocket{conn: conn, ctx: sctx, cancel: cancel}, nil
}

// Send writes one CDP message.
func (s *cdpSocket) Send(msg []byte) error {
	return s.conn.Write(s.ctx, websocket.MessageText, msg)
}

// Read returns the next CDP message. A close frame, a binary frame or text
// that is not a CDP message ends the connection with an error, which rod
// hands to every pending call.
func (s *cdpSocket) Read() ([]byte, error) {
	typ, data, err := s.conn.Read(s.ctx)
	if err != nil {
		return nil, closeError(err)
	}
	if typ != websocket.MessageText || !isCDPMessage(data) {
		_ = s.conn.Close(websocket.StatusUnsupportedData, "not a CDP message")
		return nil, fmt.Errorf("the endpoint sent a message that is not a DevTools protocol message: %.80q", data)
	}
	return data, nil
}

// Close ends the connection.
func (s *cdpSocket) Close() error {
	s.cancel()
	return s.conn.CloseNow()
}

// isCDPMessage says whether data decodes as rod decodes a message (an
// object with a numeric id, a method, params or a result), so that rod's
// decoding, which panics on anything else, never fails.
func isCDPMessage(data []byte) bool {
	var m struct {
		ID        int             `json:"id"`
		SessionID string          `json:"sessionId"`
		Method    string          `json:"method"`
		Params    json.RawMessage `json:"params"`
		Result    json.RawMessage `json:"result"`
		Error     *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    string `json:"data"`
		} `json:"error"`
	}
	trimmed := strings.TrimSpace(string(data))
	return strings.HasPrefix(trimmed, "{") && json.Unmarshal(data, &m) == nil
}

// closeError keeps the reason a server gave for closing, in the form
// Playwright reports it (its "Browser logs" section).
func closeError(err error) error {
	var ce websocket.CloseError
	if !errors.As(err, &ce) {
		return err
	}
	if ce.Reason == "" {
		return fmt.Errorf("the endpoint closed the connection (code %d)", ce.Code)
	}
	return fmt.Errorf("the endpoint closed the connection (code %d)\nBrowser logs:\n\n%s\n", ce.Code, ce.Reason)
}

// attachHeader is the header of the WebSocket handshake to wsURL: the
// caller's CDPHeaders when wsURL is on the host CDPURL names, else none,
// so that a /json/version answer cannot send them to another server.
func (o Options) attachHeader(wsURL string) http.Header {
	named, err1 := url.Parse(o.CDPURL)
	got, err2 := url.Parse(wsURL)
	if err1 != nil || err2 != nil || !strings.EqualFold(hostPort(named), hostPort(got)) {
		return nil
	}
	return o.cdpHeader()
}

// hostPort is u's host with its port, the scheme's default if none is given.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https", "wss":
			port = "443"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
