// Package cdpsession gives a client raw Chrome DevTools Protocol sessions
// (Playwright's CDPSession): one on a page's target, or one on the
// browser. Each session has a DevTools connection of its own, so what it
// enables, and the events it receives, never touch the connection the
// driver itself runs the browser with.
//
// Raw CDP reaches past every guard the driver keeps (the URL policy, the
// secret guard, the files a sandboxed run may write), so a Session may be
// guarded (see Guard): it then sends only the methods that act inside the
// page it is attached to.
package cdpsession

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/go-rod/rod/lib/utils"
)

// ErrDetached is what a session that was detached, or whose page closed,
// answers; its text is Playwright's.
var ErrDetached = errors.New("Target page, context or browser has been closed")

// ErrRefused wraps a method a guarded session will not send.
var ErrRefused = errors.New("refused")

// Handler receives the session's events: CDP's method name and its params.
type Handler func(method string, params json.RawMessage)

// Session is one raw DevTools session.
type Session struct {
	ws      *cdp.WebSocket
	client  *cdp.Client
	id      string // CDP's session id
	guarded bool
	browser bool // a session on the browser target, not a page

	onEvent Handler

	mu        sync.Mutex
	detached  bool
	selfEnded atomic.Bool   // the browser ended the session (its page closed)
	done      chan struct{} // closed when the event loop has ended
}

// Options say where a session attaches and how it is guarded.
type Options struct {
	// DevToolsURL is the browser's DevTools WebSocket endpoint.
	DevToolsURL string
	// Target is the page's target id; empty attaches to the browser.
	Target string
	// Guarded limits the methods to those of Allowed.
	Guarded bool
	// OnEvent receives every event of the session (may be nil). It is
	// called from the session's own goroutine, one event at a time.
	OnEvent Handler
	// OnDetach is called once when the session ends by itself (its page
	// closed, the browser went away), not after Detach.
	OnDetach func()
}

// Attach opens a session. Its goroutine ends with Detach, or when the
// target or the browser goes away.
func Attach(ctx context.Context, o Options) (*Session, error) {
	ws := &cdp.WebSocket{}
	if err := ws.Connect(ctx, o.DevToolsURL, nil); err != nil {
		return nil, fmt.Errorf("connect to the browser's DevTools endpoint: %w", err)
	}
	s := &Session{ws: ws, guarded: o.Guarded, browser: o.Target == "", done: make(chan struct{}),
		onEvent: o.OnEvent}
	s.client = cdp.New().Logger(utils.LoggerQuiet).Start(orderedWS{ws, s})
	events := s.client.Event()
	go s.loop(events, o.OnDetach)
	id, err := s.attach(ctx, o.Target)
	if err != nil {
		_ = ws.Close()
		<-s.done
		return nil, fmt.Errorf("attach a DevTools session: %w", err)
	}
	s.mu.Lock()
	s.id = id
	s.mu.Unlock()
	return s, nil
}

func (s *Session) attach(ctx context.Context, target string) (string, error) {
	if target == "" {
		res, err := proto.TargetAttachToBrowserTarget{}.Call(rawClient{s.client, ctx})
		if err != nil {
			return "", err
		}
		return string(res.SessionID), nil
	}
	res, err := proto.TargetAttachToTarget{TargetID: proto.TargetTargetID(target), Flatten: true}.Call(rawClient{s.client, ctx})
	if err != nil {
		return "", err
	}
	return string(res.SessionID), nil
}

// orderedWS hands each event to the session as it is read, before the
// client reads what follows it: an event that came before an answer has
// reached the session's handler by the time Send returns that answer
// (Runtime.consoleAPICalled before the Runtime.evaluate that logged).
type orderedWS struct {
	*cdp.WebSocket
	s *Session
}

func (w orderedWS) Read() ([]byte, error) {
	data, err := w.WebSocket.Read()
	if err == nil {
		w.s.handle(data)
	}
	return data, err
}

// handle takes one message from the browser: an event of the session goes
// to its handler; the browser's word that the session's target is gone
// ends it.
func (s *Session) handle(data []byte) {
	var m struct {
		ID        int             `json:"id"`
		SessionID string          `json:"sessionId"`
		Method    string          `json:"method"`
		Params    json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil || m.ID != 0 || m.Method == "" {
		return
	}
	s.mu.Lock()
	id := s.id
	s.mu.Unlock()
	if id == "" {
		return
	}
	if m.Method == "Target.detachedFromTarget" && m.SessionID == "" {
		var d proto.TargetDetachedFromTarget
		if json.Unmarshal(m.Params, &d) == nil && string(d.SessionID) == id && s.markDetached() {
			s.selfEnded.Store(true)
			_ = s.ws.Close()
		}
		return
	}
	if m.SessionID == id && s.onEvent != nil {
		s.onEvent(m.Method, m.Params)
	}
}

// loop drains the client's event channel (it must be read) until the
// connection ends.
func (s *Session) loop(events <-chan *cdp.Event, onDetach func()) {
	defer close(s.done)
	for range events {
	}
	// The connection ended: by Detach, or by itself (the target or the
	// browser went away), which the client hears of.
	if (s.markDetached() || s.selfEnded.Load()) && onDetach != nil {
		onDetach()
	}
}

// markDetached marks the session detached; false if it already was.
func (s *Session) markDetached() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.detached {
		return false
	}
	s.detached = true
	return true
}

func (s *Session) isDetached() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.detached
}

// Send sends one method with its params (a JSON object, or empty) and
// returns CDP's result.
func (s *Session) Send(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if s.isDetached() {
		return nil, ErrDetached
	}
	if s.guarded {
		if err := Allowed(method, s.browser); err != nil {
			return nil, err
		}
	}
	var p any
	if len(params) > 0 && string(params) != "null" {
		p = params
	}
	res, err := s.client.Call(ctx, s.id, method, p)
	if err != nil {
		if s.isDetached() {
			return nil, ErrDetached
		}
		var ce *cdp.Error
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("%s: %s", method, strings.TrimSpace(ce.Message+" "+ce.Data))
		}
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	if len(res) == 0 {
		res = json.RawMessage("{}")
	}
	return res, nil
}

// Detach ends the session and its connection. Detaching a session that
// already ended (its page closed) is ErrDetached, as in Playwright.
func (s *Session) Detach(ctx context.Context) error {
	if !s.markDetached() {
		<-s.done
		return ErrDetached
	}
	_, _ = s.client.Call(ctx, "", "Target.detachFromTarget", map[string]string{"sessionId": s.id})
	_ = s.ws.Close()
	<-s.done
	return nil
}

// rawClient is a cdp.Client as a proto.Client, with a context.
type rawClient struct {
	c   *cdp.Client
	ctx context.Context
}

func (r rawClient) Call(ctx context.Context, sessionID, method string, params any) ([]byte, error) {
	return r.c.Call(r.ctx, sessionID, method, params)
}
