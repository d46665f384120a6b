package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ServerOptions configure a driver server.
type ServerOptions struct {
	// Browser holds the defaults of browser.launch; the request's params
	// override them. Its URLPolicy always applies and cannot be overridden
	// by a client.
	Browser Options
	// Log receives the driver's own diagnostics (never protocol traffic);
	// nil discards them.
	Log io.Writer
}

// Server answers the JSON-RPC protocol of PROTOCOL.md. One Server holds at
// most one browser at a time, shared by all its connections.
type Server struct {
	opts    ServerOptions
	pageIDs atomic.Int64

	launchMu sync.Mutex // one launch at a time

	mu        sync.Mutex
	browser   *Browser
	browserID string
	browsers  int
}

// NewServer returns a server with no browser yet; browser.launch starts one.
func NewServer(opts ServerOptions) *Server {
	return &Server{opts: opts}
}

// Browser returns the server's current browser (nil before browser.launch),
// for in-process callers that want screenshots or snapshots of it.
func (s *Server) Browser() *Browser {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.browser
}

// Launch starts the server's browser now (as browser.launch would with no
// params), or returns the one it has.
func (s *Server) Launch(ctx context.Context) (*Browser, error) {
	b, _, err := s.launch(ctx, launchParams{})
	return b, err
}

// Close closes the server's browser.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	b := s.browser
	s.mu.Unlock()
	if b == nil {
		return nil
	}
	return b.Close(ctx)
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, "wright driver: "+format+"\n", args...)
	}
}

// ServeStdio serves one client over r and w until r ends, ctx is cancelled
// or the client calls browser.close; then it closes the browser. This is
// `wright driver`.
func ServeStdio(ctx context.Context, r io.Reader, w io.Writer, opts ServerOptions) error {
	s := NewServer(opts)
	err := s.serve(ctx, r, w, true)
	cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if cerr := s.Close(cctx); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// ServeSocket listens on a Unix socket at path until ctx is cancelled;
// clients may connect one after another or at once and share one browser.
// On return the browser is closed and the socket file removed.
func ServeSocket(ctx context.Context, path string, opts ServerOptions) error {
	s := NewServer(opts)
	err := s.ServeSocket(ctx, path)
	cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if cerr := s.Close(cctx); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// ServeSocket serves the protocol on a Unix socket at path until ctx is
// cancelled; it leaves the browser open (Close ends it).
func (s *Server) ServeSocket(ctx context.Context, path string) error {
	if path == "" {
		return errors.New("serve socket: empty path")
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return fmt.Errorf("serve socket: %s exists and is not a socket", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			c.Close()
			return fmt.Errorf("serve socket: another driver is listening on %s", path)
		}
		_ = os.Remove(path) // a stale socket of a driver that died
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("serve socket: %w", err)
	}
	_ = os.Chmod(path, 0o600)
	s.logf("listening on %s", path)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	go func() {
		<-ctx.Done()
		ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	var acceptErr error
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() == nil {
				acceptErr = fmt.Errorf("serve socket: accept: %w", err)
				cancel()
			}
			break
		}
		mu.Lock()
		conns[c] = true
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.serve(ctx, c, c, false); err != nil && ctx.Err() == nil {
				s.logf("connection: %v", err)
			}
			c.Close()
			mu.Lock()
			delete(conns, c)
			mu.Unlock()
		}()
	}
	wg.Wait()
	_ = os.Remove(path)
	return acceptErr
}

// ServeConn serves one connection until r ends or ctx is cancelled. The
// browser stays open for other connections; browser.close closes it for all.
func (s *Server) ServeConn(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.serve(ctx, r, w, false)
}

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
			Code: codeServer, Message: "driver: cannot encode the result: " + err.Error(), Data: map[string]any{"type": string(ErrBrowser)},
		}})
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(buf.Bytes())
}

func (s *Server) serve(ctx context.Context, r io.Reader, w io.Writer, closeEnds bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &conn{s: s, closeEnds: closeEnds, end: cancel, w: w}
	defer endSubscription(c)

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
				c.write(rpcResponse{Error: &rpcError{Code: codeParse, Message: msg, Data: map[string]any{"type": string(ErrInvalidParams)}}})
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.handle(ctx, req)
			}()
		}
	}
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
		reply(rpcResponse{Error: &rpcError{Code: codeBadParams, Message: `invalid request: need "jsonrpc":"2.0", an "id" and a "method"`, Data: map[string]any{"type": string(ErrInvalidParams)}}})
		return
	}
	h, ok := handlers[req.Method]
	if !ok {
		reply(rpcResponse{Error: &rpcError{Code: codeUnknownMethod, Message: fmt.Sprintf("unknown method %q; see PROTOCOL.md for the methods (e.g. %s)", req.Method, suggestMethod(req.Method)), Data: map[string]any{"type": string(ErrInvalidParams)}}})
		return
	}
	res, err := h(ctx, c, req.Params)
	if err != nil {
		e := asError(err)
		code := codeServer
		if e.Type == ErrInvalidParams {
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
	names := make([]string, 0, len(handlers))
	for name := range handlers {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		di, dj := editDistance(m, names[i]), editDistance(m, names[j])
		if di != dj {
			return di < dj
		}
		return names[i] < names[j]
	})
	return strings.Join(names[:3], ", ")
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// ---- params ----------------------------------------------------------------------

// decode reads params into dst, refusing unknown fields so a misspelt
// parameter is an error rather than silently ignored.
func decode(raw json.RawMessage, dst any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "json: ")
		return newErr(ErrInvalidParams, "bad params: %s", msg)
	}
	return nil
}

// ms is a duration in milliseconds as the protocol sends it.
type ms float64

func (m ms) duration() (time.Duration, error) {
	if m < 0 {
		return 0, newErr(ErrInvalidParams, "timeouts and delays are milliseconds >= 0, got %v", float64(m))
	}
	return time.Duration(float64(m) * float64(time.Millisecond)), nil
}

type pageParams struct {
	Page string `json:"page"`
}

type timeoutParams struct {
	Timeout ms `json:"timeout"`
}

type locatorParams struct {
	Page     string `json:"page"`
	Selector string `json:"selector"`
	Timeout  ms     `json:"timeout"`
}

func (s *Server) current() (*Browser, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.browser, s.browserID
}

func (s *Server) page(id string) (*Page, error) {
	if id == "" {
		return nil, newErr(ErrInvalidParams, "missing \"page\" (a page id such as p1)")
	}
	b, _ := s.current()
	if b == nil {
		return nil, newErr(ErrInvalidParams, "no browser yet: call browser.launch first")
	}
	p := b.Page(id)
	if p == nil {
		var open []string
		for _, op := range b.Pages() {
			open = append(open, op.ID())
		}
		return nil, newErr(ErrInvalidParams, "unknown page %q; open pages: %s", id, strings.Join(open, ", "))
	}
	if err := p.closedErr(); err != nil {
		return nil, err
	}
	return p, nil
}

func (s *Server) locator(lp locatorParams) (*Locator, time.Duration, error) {
	p, err := s.page(lp.Page)
	if err != nil {
		return nil, 0, err
	}
	if lp.Selector == "" {
		return nil, 0, newErr(ErrInvalidParams, "missing \"selector\"")
	}
	to, err := lp.Timeout.duration()
	if err != nil {
		return nil, 0, err
	}
	l, err := p.Locator(lp.Selector)
	return l, to, err
}

func (s *Server) browserParam(id string) (*Browser, error) {
	b, bid := s.current()
	if b == nil {
		return nil, newErr(ErrInvalidParams, "no browser yet: call browser.launch first")
	}
	if id != "" && id != bid {
		return nil, newErr(ErrTargetClosed, "browser %q is gone; the current browser is %s", id, bid)
	}
	if err := b.Err(); err != nil {
		return nil, err
	}
	return b, nil
}

// ---- browser methods ---------------------------------------------------------------

type launchParams struct {
	Headless    *bool     `json:"headless"`
	Viewport    *Viewport `json:"viewport"`
	SlowMo      ms        `json:"slow_mo"`
	Timeout     ms        `json:"timeout"`
	Executable  string    `json:"executable"`
	CDPURL      string    `json:"cdp_url"`
	UserDataDir string    `json:"user_data_dir"`
	Args        []string  `json:"args"`
}

func (s *Server) launch(ctx context.Context, lp launchParams) (*Browser, string, error) {
	s.launchMu.Lock()
	defer s.launchMu.Unlock()
	if b, id := s.current(); b != nil && b.Err() == nil {
		return b, id, nil
	}
	opts := s.opts.Browser
	if lp.Headless != nil {
		opts.Headed = !*lp.Headless
	}
	if lp.Viewport != nil {
		if lp.Viewport.Width <= 0 || lp.Viewport.Height <= 0 {
			return nil, "", newErr(ErrInvalidParams, "viewport needs positive width and height")
		}
		opts.Viewport = *lp.Viewport
	}
	var err error
	if lp.SlowMo != 0 {
		if opts.SlowMo, err = lp.SlowMo.duration(); err != nil {
			return nil, "", err
		}
	}
	if lp.Timeout != 0 {
		if opts.Timeout, err = lp.Timeout.duration(); err != nil {
			return nil, "", err
		}
	}
	if lp.Executable != "" {
		opts.Executable = lp.Executable
	}
	if lp.CDPURL != "" {
		opts.CDPURL = lp.CDPURL
	}
	if lp.UserDataDir != "" {
		if !filepath.IsAbs(lp.UserDataDir) {
			return nil, "", newErr(ErrInvalidParams, "user_data_dir must be an absolute path, got %q", lp.UserDataDir)
		}
		opts.UserDataDir = lp.UserDataDir
	}
	opts.Args = append(append([]string{}, opts.Args...), lp.Args...)
	opts.pageIDs = &s.pageIDs
	lctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	b, err := Launch(lctx, opts)
	if err != nil {
		return nil, "", err
	}
	s.mu.Lock()
	s.browsers++
	id := fmt.Sprintf("b%d", s.browsers)
	s.browser, s.browserID = b, id
	s.mu.Unlock()
	return b, id, nil
}

func pageIDs(ps []*Page) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.ID())
	}
	return out
}

type handler func(ctx context.Context, c *conn, params json.RawMessage) (any, error)

var handlers map[string]handler

// The adapters below hold the steps every method starts with, so each
// handler is only its own params struct and the one call it makes. The
// params structs stay as they were (anonymous where they were), because
// decode's errors name the struct type and are part of the protocol.

// These methods are promoted into every params struct that embeds the
// type, which is how the adapters reach the shared fields.
func (pp pageParams) pageID() string              { return pp.Page }
func (tp timeoutParams) timeout() ms              { return tp.Timeout }
func (lp locatorParams) locParams() locatorParams { return lp }

// onBrowser adapts a method of the browser named by an optional "browser".
func onBrowser(run func(ctx context.Context, b *Browser) (any, error)) handler {
	return func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var bp struct {
			Browser string `json:"browser"`
		}
		if err := decode(raw, &bp); err != nil {
			return nil, err
		}
		b, err := c.s.browserParam(bp.Browser)
		if err != nil {
			return nil, err
		}
		return run(ctx, b)
	}
}

// onPage adapts a page method: it decodes the params, refusing unknown
// fields, and finds the page they name.
func onPage[P interface{ pageID() string }](run func(ctx context.Context, p *Page, params *P) (any, error)) handler {
	return func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var params P
		if err := decode(raw, &params); err != nil {
			return nil, err
		}
		p, err := c.s.page(params.pageID())
		if err != nil {
			return nil, err
		}
		return run(ctx, p, &params)
	}
}

// onPageTimed is onPage for methods with a "timeout", which it converts
// after finding the page.
func onPageTimed[P interface {
	pageID() string
	timeout() ms
}](run func(ctx context.Context, p *Page, params *P, to time.Duration) (any, error)) handler {
	return onPage(func(ctx context.Context, p *Page, params *P) (any, error) {
		to, err := (*params).timeout().duration()
		if err != nil {
			return nil, err
		}
		return run(ctx, p, params, to)
	})
}

// onLocator adapts a method on the locator that "page" and "selector"
// name, passing on its converted "timeout".
func onLocator[P interface{ locParams() locatorParams }](run func(ctx context.Context, l *Locator, params *P, to time.Duration) (any, error)) handler {
	return func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var params P
		if err := decode(raw, &params); err != nil {
			return nil, err
		}
		l, to, err := c.s.locator(params.locParams())
		if err != nil {
			return nil, err
		}
		return run(ctx, l, &params, to)
	}
}

// value is the result of the many methods that answer a single value.
func value(v any, err error) (any, error) {
	return map[string]any{"value": v}, err
}

func init() {
	handlers = map[string]handler{
		"browser.launch": func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
			var lp launchParams
			if err := decode(raw, &lp); err != nil {
				return nil, err
			}
			b, id, err := c.s.launch(ctx, lp)
			if err != nil {
				return nil, err
			}
			return map[string]any{"browser": id, "pages": pageIDs(b.Pages())}, nil
		},
		"browser.new_page": onBrowser(func(ctx context.Context, b *Browser) (any, error) {
			p, err := b.NewPage(ctx)
			if err != nil {
				return nil, err
			}
			return map[string]any{"page": p.ID()}, nil
		}),
		"browser.pages": onBrowser(func(ctx context.Context, b *Browser) (any, error) {
			list := []map[string]any{}
			for _, p := range b.Pages() {
				tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				title, _ := p.Title(tctx)
				cancel()
				var opener any
				if p.Opener() != "" {
					opener = p.Opener()
				}
				list = append(list, map[string]any{"page": p.ID(), "url": p.URL(), "title": title, "opener": opener})
			}
			return map[string]any{"pages": list}, nil
		}),
		"browser.close": func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
			var bp struct {
				Browser string `json:"browser"`
			}
			if err := decode(raw, &bp); err != nil {
				return nil, err
			}
			b, bid := c.s.current()
			if b == nil || (bp.Browser != "" && bp.Browser != bid) {
				return map[string]any{}, nil // nothing to close
			}
			return map[string]any{}, b.Close(ctx)
		},
	}
	addPageHandlers()
	addLocatorHandlers()
	addPlaywrightHandlers()
}

// ---- page methods ------------------------------------------------------------------

func addPageHandlers() {
	type navParams struct {
		pageParams
		timeoutParams
		WaitUntil string `json:"wait_until"`
	}
	handlers["page.goto"] = onPageTimed(func(ctx context.Context, p *Page, np *struct {
		navParams
		URL string `json:"url"`
	}, to time.Duration) (any, error) {
		res, err := p.Goto(ctx, np.URL, WaitUntil(np.WaitUntil), to)
		if err != nil {
			return nil, err
		}
		var status any
		if res.Status != 0 {
			status = res.Status
		}
		return map[string]any{"url": res.URL, "status": status}, nil
	})
	handlers["page.reload"] = onPageTimed(func(ctx context.Context, p *Page, np *navParams, to time.Duration) (any, error) {
		u, err := p.Reload(ctx, WaitUntil(np.WaitUntil), to)
		return map[string]any{"url": u}, err
	})
	history := func(back bool) handler {
		return onPageTimed(func(ctx context.Context, p *Page, np *navParams, to time.Duration) (any, error) {
			f := p.GoForward
			if back {
				f = p.GoBack
			}
			u, ok, err := f(ctx, WaitUntil(np.WaitUntil), to)
			if err != nil {
				return nil, err
			}
			if !ok {
				return map[string]any{"url": nil}, nil
			}
			return map[string]any{"url": u}, nil
		})
	}
	handlers["page.go_back"] = history(true)
	handlers["page.go_forward"] = history(false)
	handlers["page.url"] = onPage(func(ctx context.Context, p *Page, _ *pageParams) (any, error) {
		return map[string]any{"url": p.URL()}, nil
	})
	handlers["page.title"] = onPage(func(ctx context.Context, p *Page, _ *pageParams) (any, error) {
		t, err := p.Title(ctx)
		return map[string]any{"title": t}, err
	})
	handlers["page.content"] = onPage(func(ctx context.Context, p *Page, _ *pageParams) (any, error) {
		h, err := p.Content(ctx)
		return map[string]any{"html": h}, err
	})
	handlers["page.bring_to_front"] = onPage(func(ctx context.Context, p *Page, _ *pageParams) (any, error) {
		return nil, p.BringToFront(ctx)
	})
	handlers["page.close"] = onPage(func(ctx context.Context, p *Page, _ *pageParams) (any, error) {
		return nil, p.Close(ctx)
	})
	handlers["page.wait_for_load_state"] = onPageTimed(func(ctx context.Context, p *Page, wp *struct {
		pageParams
		timeoutParams
		State string `json:"state"`
	}, to time.Duration) (any, error) {
		return nil, p.WaitForLoadState(ctx, WaitUntil(wp.State), to)
	})
	// page.wait_for_url and page.screenshot check their own params before
	// the timeout, so they convert it themselves to keep that order.
	handlers["page.wait_for_url"] = onPage(func(ctx context.Context, p *Page, wp *struct {
		navParams
		URL string `json:"url"`
	}) (any, error) {
		if wp.URL == "" {
			return nil, newErr(ErrInvalidParams, "missing \"url\" (exact, glob with * or **, or /regex/)")
		}
		to, err := wp.Timeout.duration()
		if err != nil {
			return nil, err
		}
		u, err := p.WaitForURL(ctx, wp.URL, WaitUntil(wp.WaitUntil), to)
		return map[string]any{"url": u}, err
	})
	handlers["page.wait_for_selector"] = onLocator(func(ctx context.Context, l *Locator, wp *struct {
		locatorParams
		State string `json:"state"`
	}, to time.Duration) (any, error) {
		return nil, l.p.WaitForSelector(ctx, wp.Selector, ElementState(wp.State), to)
	})
	handlers["page.screenshot"] = onPage(func(ctx context.Context, p *Page, sp *struct {
		pageParams
		timeoutParams
		Path     string `json:"path"`
		FullPage bool   `json:"full_page"`
	}) (any, error) {
		if err := checkPath(sp.Path); err != nil {
			return nil, err
		}
		to, err := sp.Timeout.duration()
		if err != nil {
			return nil, err
		}
		png, err := p.Screenshot(ctx, sp.FullPage, to)
		if err != nil {
			return nil, err
		}
		return saveImage(sp.Path, png)
	})
	handlers["page.aria_snapshot"] = onPageTimed(func(ctx context.Context, p *Page, ap *struct {
		pageParams
		timeoutParams
		ariaParams
		Ref      string `json:"ref"`
		Selector string `json:"selector"`
	}, to time.Duration) (any, error) {
		opts := ap.ariaParams.options()
		opts.Ref, opts.Selector = ap.Ref, ap.Selector
		snap, err := p.AriaSnapshot(ctx, opts, to)
		return map[string]any{"snapshot": snap}, err
	})
	handlers["page.evaluate"] = onPageTimed(func(ctx context.Context, p *Page, ep *struct {
		pageParams
		timeoutParams
		Expression string          `json:"expression"`
		Arg        json.RawMessage `json:"arg"`
	}, to time.Duration) (any, error) {
		return value(p.Evaluate(ctx, ep.Expression, ep.Arg, to))
	})
	handlers["page.keyboard.press"] = onPage(func(ctx context.Context, p *Page, kp *struct {
		pageParams
		Key string `json:"key"`
	}) (any, error) {
		return nil, p.Press(ctx, kp.Key)
	})
	handlers["page.keyboard.type"] = onPage(func(ctx context.Context, p *Page, kp *struct {
		pageParams
		Text  string `json:"text"`
		Delay ms     `json:"delay"`
	}) (any, error) {
		d, err := kp.Delay.duration()
		if err != nil {
			return nil, err
		}
		return nil, p.Type(ctx, kp.Text, d)
	})
	handlers["page.mouse.click"] = onPage(func(ctx context.Context, p *Page, mp *struct {
		pageParams
		X          *float64 `json:"x"`
		Y          *float64 `json:"y"`
		Button     string   `json:"button"`
		ClickCount int      `json:"click_count"`
	}) (any, error) {
		if mp.X == nil || mp.Y == nil {
			return nil, newErr(ErrInvalidParams, "page.mouse.click needs x and y")
		}
		return nil, p.MouseClick(ctx, *mp.X, *mp.Y, MouseButton(mp.Button), mp.ClickCount)
	})
	handlers["page.mouse.move"] = onPage(func(ctx context.Context, p *Page, mp *struct {
		pageParams
		X *float64 `json:"x"`
		Y *float64 `json:"y"`
	}) (any, error) {
		if mp.X == nil || mp.Y == nil {
			return nil, newErr(ErrInvalidParams, "page.mouse.move needs x and y")
		}
		return nil, p.MouseMove(ctx, *mp.X, *mp.Y)
	})
	handlers["page.mouse.wheel"] = onPage(func(ctx context.Context, p *Page, mp *struct {
		pageParams
		DeltaX float64 `json:"delta_x"`
		DeltaY float64 `json:"delta_y"`
	}) (any, error) {
		return nil, p.MouseWheel(ctx, mp.DeltaX, mp.DeltaY)
	})
	handlers["page.set_viewport_size"] = onPage(func(ctx context.Context, p *Page, vp *struct {
		pageParams
		Width  int `json:"width"`
		Height int `json:"height"`
	}) (any, error) {
		return nil, p.SetViewportSize(ctx, vp.Width, vp.Height)
	})
	type clearParams struct {
		pageParams
		Clear bool `json:"clear"`
	}
	logs := func(key string, get func(p *Page, clear bool) any) handler {
		return onPage(func(ctx context.Context, p *Page, cp *clearParams) (any, error) {
			return map[string]any{key: get(p, cp.Clear)}, nil
		})
	}
	handlers["page.console_messages"] = logs("messages", func(p *Page, clear bool) any { return p.ConsoleMessages(clear) })
	handlers["page.page_errors"] = logs("errors", func(p *Page, clear bool) any { return p.PageErrors(clear) })
	handlers["page.dialogs"] = logs("dialogs", func(p *Page, clear bool) any { return p.Dialogs(clear) })
}

type ariaParams struct {
	InteractiveOnly bool `json:"interactive_only"`
	MaxDepth        int  `json:"max_depth"`
	MaxChars        int  `json:"max_chars"`
}

func (a ariaParams) options() AriaOptions {
	return AriaOptions{InteractiveOnly: a.InteractiveOnly, MaxDepth: a.MaxDepth, MaxChars: a.MaxChars}
}

func checkPath(path string) error {
	if path != "" && !filepath.IsAbs(path) {
		return newErr(ErrInvalidParams, "path must be absolute (the client resolves relative paths), got %q", path)
	}
	return nil
}

func saveImage(path string, png []byte) (any, error) {
	if path == "" {
		return map[string]any{"data": base64.StdEncoding.EncodeToString(png)}, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, wrapErr(ErrBrowser, err, "save screenshot: %v", err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return nil, wrapErr(ErrBrowser, err, "save screenshot: %v", err)
	}
	return map[string]any{"path": path}, nil
}

// ---- locator methods --------------------------------------------------------------

func addLocatorHandlers() {
	type clickParams struct {
		locatorParams
		Button     string   `json:"button"`
		ClickCount int      `json:"click_count"`
		Delay      ms       `json:"delay"`
		Force      bool     `json:"force"`
		Modifiers  []string `json:"modifiers"`
		Position   *Point   `json:"position"`
	}
	click := func(dbl bool) handler {
		return onLocator(func(ctx context.Context, l *Locator, cp *clickParams, to time.Duration) (any, error) {
			d, err := cp.Delay.duration()
			if err != nil {
				return nil, err
			}
			opts := ClickOptions{Button: MouseButton(cp.Button), ClickCount: cp.ClickCount, Delay: d, Force: cp.Force, Modifiers: cp.Modifiers, Position: cp.Position, Timeout: to}
			if dbl {
				return nil, l.DblClick(ctx, opts)
			}
			return nil, l.Click(ctx, opts)
		})
	}
	handlers["locator.click"] = click(false)
	handlers["locator.dblclick"] = click(true)
	handlers["locator.fill"] = onLocator(func(ctx context.Context, l *Locator, fp *struct {
		locatorParams
		Value *string `json:"value"`
		Force bool    `json:"force"`
	}, to time.Duration) (any, error) {
		if fp.Value == nil {
			return nil, newErr(ErrInvalidParams, "locator.fill needs \"value\" (a string; \"\" clears the field)")
		}
		return nil, l.Fill(ctx, *fp.Value, fp.Force, to)
	})
	handlers["locator.press"] = onLocator(func(ctx context.Context, l *Locator, kp *struct {
		locatorParams
		Key string `json:"key"`
	}, to time.Duration) (any, error) {
		return nil, l.Press(ctx, kp.Key, to)
	})
	handlers["locator.press_sequentially"] = onLocator(func(ctx context.Context, l *Locator, kp *struct {
		locatorParams
		Text  string `json:"text"`
		Delay ms     `json:"delay"`
	}, to time.Duration) (any, error) {
		d, err := kp.Delay.duration()
		if err != nil {
			return nil, err
		}
		return nil, l.PressSequentially(ctx, kp.Text, d, to)
	})
	checked := func(want *bool) handler {
		return onLocator(func(ctx context.Context, l *Locator, cp *struct {
			locatorParams
			Force   bool  `json:"force"`
			Checked *bool `json:"checked"`
		}, to time.Duration) (any, error) {
			w := want
			if w == nil {
				if cp.Checked == nil {
					return nil, newErr(ErrInvalidParams, "locator.set_checked needs \"checked\" (true or false)")
				}
				w = cp.Checked
			} else if cp.Checked != nil {
				return nil, newErr(ErrInvalidParams, "\"checked\" is a parameter of locator.set_checked only")
			}
			return nil, l.SetChecked(ctx, *w, cp.Force, to)
		})
	}
	yes, no := true, false
	handlers["locator.check"] = checked(&yes)
	handlers["locator.uncheck"] = checked(&no)
	handlers["locator.set_checked"] = checked(nil)
	handlers["locator.select_option"] = onLocator(func(ctx context.Context, l *Locator, sp *struct {
		locatorParams
		Value json.RawMessage `json:"value"`
		Label json.RawMessage `json:"label"`
		Index json.RawMessage `json:"index"`
		Force bool            `json:"force"`
	}, to time.Duration) (any, error) {
		var want SelectOptions
		var err error
		if want.Values, err = oneOrMany[string](sp.Value, "value"); err != nil {
			return nil, err
		}
		if want.Labels, err = oneOrMany[string](sp.Label, "label"); err != nil {
			return nil, err
		}
		if want.Indexes, err = oneOrMany[int](sp.Index, "index"); err != nil {
			return nil, err
		}
		if len(want.Values)+len(want.Labels)+len(want.Indexes) == 0 && sp.Value == nil && sp.Label == nil && sp.Index == nil {
			return nil, newErr(ErrInvalidParams, "locator.select_option needs value, label or index (each one item or a list)")
		}
		vals, err := l.SelectOption(ctx, want, sp.Force, to)
		return map[string]any{"values": vals}, err
	})
	handlers["locator.hover"] = onLocator(func(ctx context.Context, l *Locator, hp *struct {
		locatorParams
		Force bool `json:"force"`
	}, to time.Duration) (any, error) {
		return nil, l.Hover(ctx, hp.Force, to)
	})
	// plain adapts the methods whose only params are the locator's own.
	plain := func(run func(ctx context.Context, l *Locator, to time.Duration) (any, error)) handler {
		return onLocator(func(ctx context.Context, l *Locator, _ *locatorParams, to time.Duration) (any, error) {
			return run(ctx, l, to)
		})
	}
	handlers["locator.focus"] = plain(func(ctx context.Context, l *Locator, to time.Duration) (any, error) {
		return nil, l.Focus(ctx, to)
	})
	handlers["locator.scroll_into_view_if_needed"] = plain(func(ctx context.Context, l *Locator, to time.Duration) (any, error) {
		return nil, l.ScrollIntoViewIfNeeded(ctx, to)
	})
	for name, f := range map[string]func(*Locator, context.Context, time.Duration) (string, error){
		"locator.inner_text":   (*Locator).InnerText,
		"locator.text_content": (*Locator).TextContent,
		"locator.inner_html":   (*Locator).InnerHTML,
		"locator.input_value":  (*Locator).InputValue,
	} {
		handlers[name] = plain(func(ctx context.Context, l *Locator, to time.Duration) (any, error) {
			return value(f(l, ctx, to))
		})
	}
	handlers["locator.get_attribute"] = onLocator(func(ctx context.Context, l *Locator, ap *struct {
		locatorParams
		Name string `json:"name"`
	}, to time.Duration) (any, error) {
		if ap.Name == "" {
			return nil, newErr(ErrInvalidParams, "locator.get_attribute needs \"name\"")
		}
		return value(l.GetAttribute(ctx, ap.Name, to))
	})
	for _, st := range []string{"visible", "hidden", "enabled", "disabled", "editable", "checked"} {
		handlers["locator.is_"+st] = plain(func(ctx context.Context, l *Locator, _ time.Duration) (any, error) {
			return value(l.Is(ctx, st))
		})
	}
	handlers["locator.count"] = plain(func(ctx context.Context, l *Locator, _ time.Duration) (any, error) {
		return value(l.Count(ctx))
	})
	handlers["locator.all_inner_texts"] = plain(func(ctx context.Context, l *Locator, _ time.Duration) (any, error) {
		return value(l.AllTexts(ctx, "inner_text"))
	})
	handlers["locator.all_text_contents"] = plain(func(ctx context.Context, l *Locator, _ time.Duration) (any, error) {
		return value(l.AllTexts(ctx, "text_content"))
	})
	handlers["locator.wait_for"] = onLocator(func(ctx context.Context, l *Locator, wp *struct {
		locatorParams
		State string `json:"state"`
	}, to time.Duration) (any, error) {
		return nil, l.WaitFor(ctx, ElementState(wp.State), to)
	})
	handlers["locator.screenshot"] = onLocator(func(ctx context.Context, l *Locator, sp *struct {
		locatorParams
		Path string `json:"path"`
	}, to time.Duration) (any, error) {
		if err := checkPath(sp.Path); err != nil {
			return nil, err
		}
		png, err := l.Screenshot(ctx, to)
		if err != nil {
			return nil, err
		}
		return saveImage(sp.Path, png)
	})
	handlers["locator.bounding_box"] = plain(func(ctx context.Context, l *Locator, to time.Duration) (any, error) {
		b, err := l.BoundingBox(ctx, to)
		if err != nil {
			return nil, err
		}
		if b == nil {
			return map[string]any{"value": nil}, nil
		}
		return map[string]any{"value": b}, nil
	})
	handlers["locator.aria_snapshot"] = onLocator(func(ctx context.Context, l *Locator, ap *struct {
		locatorParams
		ariaParams
	}, to time.Duration) (any, error) {
		snap, err := l.AriaSnapshot(ctx, ap.ariaParams.options(), to)
		return map[string]any{"snapshot": snap}, err
	})
	handlers["locator.evaluate"] = onLocator(func(ctx context.Context, l *Locator, ep *struct {
		locatorParams
		Expression string          `json:"expression"`
		Arg        json.RawMessage `json:"arg"`
	}, to time.Duration) (any, error) {
		return value(l.Evaluate(ctx, ep.Expression, ep.Arg, to))
	})
}

// oneOrMany reads a param that may be one item or a list.
func oneOrMany[T any](raw json.RawMessage, name string) ([]T, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one T
	if err := json.Unmarshal(raw, &one); err == nil {
		return []T{one}, nil
	}
	var many []T
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, newErr(ErrInvalidParams, "%s must be one %T or a list of them", name, one)
	}
	return many, nil
}
