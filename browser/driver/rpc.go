package driver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"wright/browser"
	"wright/internal/spelling"
)

// JSON-RPC error codes.
const (
	codeParse         = -32700
	codeUnknownMethod = -32601
	codeBadParams     = -32602
	codeServer        = -32000
)

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int            `json:"code"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// conn is one client connection.
type conn struct {
	s         *Server
	closeEnds bool // stdio: browser.close ends the connection
	end       context.CancelFunc

	wmu sync.Mutex
	w   io.Writer

	subMu       sync.Mutex
	unsubscribe func() // the connection's event subscription, if any

	// flight: the requests being handled, by id, each with what cancels its
	// context (rpc.cancel: a client that stopped waiting ends the work too).
	flightMu sync.Mutex
	flight   map[string]context.CancelFunc

	api    apiContexts // its API request contexts of no browser (apirequest_methods.go)
	cdp    cdpSessions // raw CDP sessions (cdp_methods.go)
	castMu sync.Mutex
	casts  map[string]*clientCast // the connection's screencasts, by page (screencast_methods.go)
}

func (c *conn) write(resp rpcResponse) {
	resp.JSONRPC = "2.0"
	if resp.ID == nil {
		resp.ID = json.RawMessage("null")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(resp); err != nil {
		// A result that cannot be encoded is the driver's bug; say so.
		buf.Reset()
		_ = json.NewEncoder(&buf).Encode(rpcResponse{JSONRPC: "2.0", ID: resp.ID, Error: &rpcError{
			Code: codeServer, Message: "driver: cannot encode the result: " + err.Error(), Data: map[string]any{"type": string(browser.ErrBrowser)},
		}})
	}
	out := buf.Bytes()
	if src := c.s.opts.Browser.Secrets; src != nil {
		// Whatever a client reads of a page (input_value, inner_text,
		// evaluate, console text) shows a write-only secret as its
		// placeholder: the client may be the model's own process.
		out = []byte(src.RedactReads(string(out)))
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(out)
}

func (s *Server) serve(ctx context.Context, r io.Reader, w io.Writer, closeEnds bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &conn{s: s, closeEnds: closeEnds, end: cancel, w: w}
	defer endSubscription(c)
	defer c.endCDPSessions()
	defer endScreencasts(c)

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(r, 1<<16)
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()

	// In-flight requests finish (and are answered) when the input ends;
	// they are cancelled only when ctx is.
	var wg sync.WaitGroup
	defer func() {
		wg.Wait()
		cancel()
	}()
	for {
		select {
		case <-ctx.Done():
			// Ends a Read that would otherwise block forever.
			if cl, ok := r.(io.Closer); ok {
				_ = cl.Close()
			}
			return nil
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read request: %w", err)
		case line := <-lines:
			var req rpcRequest
			if err := json.Unmarshal(line, &req); err != nil {
				msg := "parse error: " + err.Error() + ": send one JSON-RPC 2.0 object per line"
				if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 && trimmed[0] == '[' {
					msg = "batches are not supported: send one JSON-RPC 2.0 object per line"
				}
				c.write(rpcResponse{Error: &rpcError{Code: codeParse, Message: msg, Data: map[string]any{"type": string(browser.ErrInvalidParams)}}})
				continue
			}
			wg.Add(1)
			rctx, done := c.begin(ctx, req.ID)
			go func() {
				defer wg.Done()
				defer done()
				c.handle(rctx, req)
			}()
		}
	}
}

// begin gives a request a context of its own, cancelled by rpc.cancel for
// its id or when done is called (when it has been answered).
func (c *conn) begin(ctx context.Context, id json.RawMessage) (context.Context, func()) {
	rctx, cancel := context.WithCancel(ctx)
	if len(id) == 0 {
		return rctx, cancel
	}
	key := string(id)
	c.flightMu.Lock()
	if c.flight == nil {
		c.flight = map[string]context.CancelFunc{}
	}
	c.flight[key] = cancel
	c.flightMu.Unlock()
	return rctx, func() {
		c.flightMu.Lock()
		delete(c.flight, key)
		c.flightMu.Unlock()
		cancel()
	}
}

// cancelRequest ends the work of the request with that id, if it is still
// being handled; its answer (an error) still goes out, as every answer does.
func (c *conn) cancelRequest(id json.RawMessage) bool {
	c.flightMu.Lock()
	cancel := c.flight[string(id)]
	c.flightMu.Unlock()
	if cancel != nil {
		cancel()
	}
	return cancel != nil
}

func (c *conn) handle(ctx context.Context, req rpcRequest) {
	notify := len(req.ID) == 0
	reply := func(resp rpcResponse) {
		if !notify {
			resp.ID = req.ID
			c.write(resp)
		}
	}
	if req.JSONRPC != "2.0" || req.Method == "" {
		reply(rpcResponse{Error: &rpcError{Code: codeBadParams, Message: `invalid request: need "jsonrpc":"2.0", an "id" and a "method"`, Data: map[string]any{"type": string(browser.ErrInvalidParams)}}})
		return
	}
	if req.Method == "rpc.cancel" {
		var p struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil || len(p.ID) == 0 {
			reply(rpcResponse{Error: &rpcError{Code: codeBadParams, Message: `rpc.cancel: need {"id": <the request's id>}`, Data: map[string]any{"type": string(browser.ErrInvalidParams)}}})
			return
		}
		reply(rpcResponse{Result: map[string]any{"cancelled": c.cancelRequest(p.ID)}})
		return
	}
	m, ok := methods[req.Method]
	if !ok {
		reply(rpcResponse{Error: &rpcError{Code: codeUnknownMethod, Message: fmt.Sprintf("unknown method %q; see PROTOCOL.md for the methods (e.g. %s)", req.Method, suggestMethod(req.Method)), Data: map[string]any{"type": string(browser.ErrInvalidParams)}}})
		return
	}
	res, err := m.handle(ctx, c, req.Params)
	c.flushEvents(ctx, req)
	if err != nil {
		e := browser.AsError(err)
		code := codeServer
		if e.Type == browser.ErrInvalidParams {
			code = codeBadParams
		}
		reply(rpcResponse{Error: &rpcError{Code: code, Message: req.Method + ": " + e.Message, Data: map[string]any{"type": string(e.Type)}}})
		return
	}
	if res == nil {
		res = map[string]any{}
	}
	reply(rpcResponse{Result: res})
	if req.Method == "browser.close" && c.closeEnds {
		c.end()
	}
}

// suggestMethod names the three known methods closest to an unknown one.
func suggestMethod(m string) string {
	names := make([]string, 0, len(methods))
	for name := range methods {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		di, dj := spelling.Distance(m, names[i]), spelling.Distance(m, names[j])
		if di != dj {
			return di < dj
		}
		return names[i] < names[j]
	})
	return strings.Join(names[:3], ", ")
}
