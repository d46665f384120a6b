package driver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"wright/browser"
)

// rpc is a minimal protocol client for tests: it matches answers to
// requests by id, so several requests may be in flight.
type rpc struct {
	t       testing.TB
	w       io.Writer
	wmu     sync.Mutex
	mu      sync.Mutex
	n       int
	waiting map[int]chan rpcAnswer
	done    chan struct{}
}

type rpcAnswer struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

func newRPC(t testing.TB, r io.Reader, w io.Writer) *rpc {
	c := &rpc{t: t, w: w, waiting: map[int]chan rpcAnswer{}, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if os.Getenv("RPCDEBUG") != "" {
				t.Logf("<- %.150s", sc.Text())
			}
			var a rpcAnswer
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
				t.Errorf("driver sent a line that is not JSON: %q", sc.Text())
				continue
			}
			id, _ := a.ID.(float64)
			if id == 0 {
				c.orphan() <- a
				continue
			}
			c.mu.Lock()
			ch := c.waiting[int(id)]
			delete(c.waiting, int(id))
			c.mu.Unlock()
			if ch == nil {
				t.Errorf("an answer nobody asked for: %s", sc.Text())
				continue
			}
			ch <- a
		}
	}()
	return c
}

// orphan receives answers nobody waits for (parse errors have id null).
func (c *rpc) orphan() chan rpcAnswer {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.waiting[0]
	if !ok {
		ch = make(chan rpcAnswer, 16)
		c.waiting[0] = ch
	}
	return ch
}

func (c *rpc) send(method string, params any) chan rpcAnswer {
	c.mu.Lock()
	c.n++
	id := c.n
	ch := make(chan rpcAnswer, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	c.raw(string(b))
	return ch
}

func (c *rpc) raw(line string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Errorf("write %s: %v", line, err)
	}
}

func (c *rpc) wait(ch chan rpcAnswer) rpcAnswer {
	c.t.Helper()
	select {
	case a := <-ch:
		return a
	case <-time.After(30 * time.Second):
		c.t.Fatal("no answer from the driver")
	}
	return rpcAnswer{}
}

// call sends a request and decodes a successful result into a map.
func (c *rpc) call(method string, params any) map[string]any {
	c.t.Helper()
	a := c.wait(c.send(method, params))
	if a.Error != nil {
		c.t.Fatalf("%s: error %d %s (%v)", method, a.Error.Code, a.Error.Message, a.Error.Data)
	}
	var m map[string]any
	if err := json.Unmarshal(a.Result, &m); err != nil {
		c.t.Fatalf("%s: result %s: %v", method, a.Result, err)
	}
	return m
}

// fail sends a request that must fail with code and type.
func (c *rpc) fail(method string, params any, code int, typ browser.ErrorType, contains ...string) {
	c.t.Helper()
	a := c.wait(c.send(method, params))
	if a.Error == nil {
		c.t.Fatalf("%s %v: want error %s, got result %s", method, params, typ, a.Result)
	}
	if a.Error.Code != code || a.Error.Data["type"] != string(typ) {
		c.t.Errorf("%s %v: got %d %v, want %d %s: %s", method, params, a.Error.Code, a.Error.Data["type"], code, typ, a.Error.Message)
	}
	if !strings.HasPrefix(a.Error.Message, method+": ") && code == codeServer {
		c.t.Errorf("%s: message does not name the method: %s", method, a.Error.Message)
	}
	for _, s := range contains {
		if !strings.Contains(a.Error.Message, s) {
			c.t.Errorf("%s: message %q does not mention %q", method, a.Error.Message, s)
		}
	}
}

// pipeDriver runs ServeStdio over pipes, as `wright driver` runs over
// stdio. served is closed when ServeStdio returns, and *serveErr is then
// what it returned.
func pipeDriver(t testing.TB) (c *rpc, in io.WriteCloser, served chan struct{}, serveErr *error) {
	return pipeDriverWith(t, ServerOptions{})
}

// pipeDriverWith is pipeDriver with the server's options.
func pipeDriverWith(t testing.TB, opts ServerOptions) (c *rpc, in io.WriteCloser, served chan struct{}, serveErr *error) {
	needBrowser(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served = make(chan struct{})
	serveErr = new(error)
	go func() {
		*serveErr = ServeStdio(bg, inR, outW, opts)
		outW.Close()
		close(served)
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-served:
		case <-time.After(20 * time.Second):
			t.Error("the driver did not stop")
		}
	})
	return newRPC(t, outR, inW), inW, served, serveErr
}

func TestProtocolOverPipe(t *testing.T) {
	c, _, served, serveErr := pipeDriver(t)
	// Before launch.
	c.fail("browser.new_page", map[string]any{}, codeBadParams, browser.ErrInvalidParams, "browser.launch first")
	res := c.call("browser.launch", map[string]any{"viewport": map[string]any{"width": 1000, "height": 700}})
	if res["browser"] != "b1" || len(res["pages"].([]any)) != 0 {
		t.Fatalf("launch: %v", res)
	}
	again := c.call("browser.launch", map[string]any{})
	if again["browser"] != "b1" {
		t.Errorf("a second launch started another browser: %v", again)
	}
	page := c.call("browser.new_page", map[string]any{"browser": "b1"})["page"]
	if page != "p1" {
		t.Fatalf("first page id %v", page)
	}
	nav := c.call("page.goto", map[string]any{"page": page, "url": site.URL + "/buttons.html"})
	if nav["status"] != float64(200) || nav["url"] != site.URL+"/buttons.html" {
		t.Errorf("goto: %v", nav)
	}
	c.fail("locator.click", map[string]any{"page": page, "selector": "text=Add to cart"}, codeServer, browser.ErrStrictMode, "matches 7 elements")
	c.call("locator.click", map[string]any{"page": page, "selector": `role=listitem >> has-text="Tea pot" >> role=button[name="Add to cart"i]`, "timeout": 5000})
	if v := c.call("locator.inner_text", map[string]any{"page": page, "selector": "#cart"})["value"]; v != "1 Tea pot" {
		t.Errorf("cart after click: %v", v)
	}
	if v := c.call("locator.count", map[string]any{"page": page, "selector": "li"})["value"]; v != float64(7) {
		t.Errorf("count: %v", v)
	}
	if v := c.call("page.evaluate", map[string]any{"page": page, "expression": "([a, b]) => a + b", "arg": []int{2, 3}})["value"]; v != float64(5) {
		t.Errorf("evaluate: %v", v)
	}
	if v := c.call("page.evaluate", map[string]any{"page": page, "expression": "innerWidth"})["value"]; v != float64(1000) {
		t.Errorf("viewport from launch: width %v", v)
	}
	c.fail("page.evaluate", map[string]any{"page": page, "expression": "() => { throw new Error('nope') }"}, codeServer, browser.ErrEvaluation, "nope")
	c.fail("locator.click", map[string]any{"page": page, "selector": "#missing", "timeout": 200}, codeServer, browser.ErrTimeout, "#missing", "200ms")
	c.fail("locator.click", map[string]any{"page": page, "selector": "role=nonsense"}, codeServer, browser.ErrInvalidSelector, "nonsense")
	c.fail("page.goto", map[string]any{"page": page, "url": "http://no-such-host.invalid/"}, codeServer, browser.ErrNavigation)
	c.call("page.goto", map[string]any{"page": page, "url": site.URL + "/buttons.html", "wait_until": "domcontentloaded"})

	// Bad input: every mistake is named, nothing breaks.
	c.fail("page.goto", map[string]any{"page": page, "url": site.URL, "timeout_ms": 5}, codeBadParams, browser.ErrInvalidParams, "timeout_ms")
	c.fail("page.goto", map[string]any{"url": site.URL}, codeBadParams, browser.ErrInvalidParams, `"page"`)
	c.fail("page.goto", map[string]any{"page": "p9", "url": site.URL}, codeBadParams, browser.ErrInvalidParams, "p9", "p1")
	c.fail("page.goto", map[string]any{"page": page, "url": 42}, codeBadParams, browser.ErrInvalidParams)
	c.fail("locator.click", map[string]any{"page": page}, codeBadParams, browser.ErrInvalidParams, "selector")
	c.fail("locator.click", map[string]any{"page": page, "selector": "li", "timeout": -1}, codeBadParams, browser.ErrInvalidParams)
	c.fail("locator.fill", map[string]any{"page": page, "selector": "li"}, codeBadParams, browser.ErrInvalidParams, "value")
	c.fail("page.keyboard.press", map[string]any{"page": page, "key": "Ctrl+Q"}, codeBadParams, browser.ErrInvalidParams, "Ctrl")
	c.fail("page.fly", map[string]any{"page": page}, codeUnknownMethod, browser.ErrInvalidParams, "page.fly", "page.goto")
	c.fail("page.screenshot", map[string]any{"page": page, "path": "shot.png"}, codeBadParams, browser.ErrInvalidParams, "absolute")
	c.raw(`{"jsonrpc":"2.0","id":`)
	if a := c.wait(c.orphan()); a.Error == nil || a.Error.Code != codeParse {
		t.Errorf("parse error: %+v", a)
	}
	c.raw(`[{"jsonrpc":"2.0","id":1,"method":"page.url"}]`)
	if a := c.wait(c.orphan()); a.Error == nil || !strings.Contains(a.Error.Message, "batch") {
		t.Errorf("batch: %+v", a)
	}
	c.raw(`{"jsonrpc":"2.0","method":"page.url","params":{"page":"p1"}}`) // a notification gets no answer
	c.raw(`{"id":0,"method":"page.url"}`)
	if a := c.wait(c.orphan()); a.Error == nil || a.Error.Code != codeBadParams {
		t.Errorf("request without jsonrpc: %+v", a)
	}

	// Screenshots: to a file, or as data.
	path := filepath.Join(t.TempDir(), "shots", "p1.png")
	if got := c.call("page.screenshot", map[string]any{"page": page, "path": path})["path"]; got != path {
		t.Errorf("screenshot path %v", got)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil || img.Bounds().Dx() != 1000 || img.Bounds().Dy() != 700 {
		t.Errorf("screenshot file: %v %v", img.Bounds(), err)
	}
	// Without a path the image comes back as base64, passed on as Chromium
	// encoded it; jpeg at a quality on request.
	for _, tc := range []struct {
		params map[string]any
		decode func(io.Reader) (image.Image, error)
	}{
		{map[string]any{"page": page}, png.Decode},
		{map[string]any{"page": page, "type": "jpeg", "quality": 60}, jpeg.Decode},
	} {
		data := c.call("page.screenshot", tc.params)["data"].(string)
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			t.Fatalf("screenshot %v: %v", tc.params, err)
		}
		if img, err := tc.decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() != 1000 || img.Bounds().Dy() != 700 {
			t.Errorf("screenshot %v: %v", tc.params, err)
		}
	}
	c.fail("page.screenshot", map[string]any{"page": page, "type": "gif"}, codeBadParams, browser.ErrInvalidParams, "png, jpeg or webp")
	c.fail("page.screenshot", map[string]any{"page": page, "quality": 50}, codeBadParams, browser.ErrInvalidParams, "quality")
	data := c.call("locator.screenshot", map[string]any{"page": page, "selector": "h2 >> nth=0"})["data"].(string)
	if b, err := base64.StdEncoding.DecodeString(data); err != nil || len(b) < 100 {
		t.Errorf("element screenshot data: %d bytes, %v", len(b), err)
	}

	pages := c.call("browser.pages", map[string]any{"browser": "b1"})["pages"].([]any)
	if len(pages) != 1 || pages[0].(map[string]any)["title"] != "Products" || pages[0].(map[string]any)["opener"] != nil {
		t.Errorf("pages: %v", pages)
	}
	c.call("page.close", map[string]any{"page": page})
	c.fail("page.title", map[string]any{"page": page}, codeServer, browser.ErrTargetClosed, "p1 is closed")
	p2 := c.call("browser.new_page", map[string]any{})["page"]
	if p2 != "p2" {
		t.Errorf("page ids are reused: %v", p2)
	}
	pid := driverBrowserPID(t)
	c.call("browser.close", map[string]any{"browser": "b1"})
	select {
	case <-served:
		if *serveErr != nil {
			t.Errorf("serve: %v", *serveErr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the driver kept running after browser.close")
	}
	waitGroupGone(t, pid)
}

// driverBrowserPID finds the browser the in-process driver under test
// launched: the newest child of this process with a DevTools port, other
// than the shared browser.
func driverBrowserPID(t *testing.T) int {
	t.Helper()
	me := fmt.Sprint(os.Getpid())
	newest, newestStart := 0, int64(-1)
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || false {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 20 || fields[1] != me {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !strings.Contains(string(cmd), "remote-debugging-port") {
			continue
		}
		var started int64
		fmt.Sscanf(fields[19], "%d", &started)
		if started > newestStart {
			newest, newestStart = pid, started
		}
	}
	if newest == 0 {
		t.Fatal("no browser process found")
	}
	return newest
}

func TestStdinEOFClosesBrowser(t *testing.T) {
	c, in, served, _ := pipeDriver(t)
	c.call("browser.launch", map[string]any{})
	c.call("browser.new_page", map[string]any{})
	pid := driverBrowserPID(t)
	in.Close()
	select {
	case <-served:
	case <-time.After(20 * time.Second):
		t.Fatal("the driver kept running after stdin closed")
	}
	waitGroupGone(t, pid)
}

func dialRPC(t *testing.T, path string) (*rpc, net.Conn) {
	t.Helper()
	conn, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return newRPC(t, conn, conn), conn
}

func TestProtocolOverSocket(t *testing.T) {
	needBrowser(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "driver.sock")
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	srv := NewServer(ServerOptions{})
	served := make(chan error, 1)
	go func() { served <- srv.ServeSocket(ctx, path) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no socket")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A second driver on the same path refuses to start.
	if err := ServeSocket(ctx, path, ServerOptions{}); err == nil || !strings.Contains(err.Error(), "another driver") {
		t.Errorf("second driver on the same socket: %v", err)
	}

	a, connA := dialRPC(t, path)
	b, _ := dialRPC(t, path)
	la := a.call("browser.launch", map[string]any{})
	lb := b.call("browser.launch", map[string]any{"headless": false}) // ignored: the browser exists
	if la["browser"] != "b1" || lb["browser"] != "b1" {
		t.Fatalf("clients see different browsers: %v %v", la, lb)
	}
	pa := a.call("browser.new_page", map[string]any{})["page"]
	if got := b.call("browser.pages", map[string]any{})["pages"].([]any); len(got) != 1 || got[0].(map[string]any)["page"] != pa {
		t.Errorf("client b does not see a's page: %v", got)
	}
	pb := b.call("browser.new_page", map[string]any{})["page"]
	if pa == pb {
		t.Fatalf("both clients got page %v", pa)
	}

	// Both clients at once, and answers out of order within one client: a
	// slow wait does not hold up a quick question behind it.
	var wg sync.WaitGroup
	for _, x := range []struct {
		c    *rpc
		page any
	}{{a, pa}, {b, pb}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.c.call("page.goto", map[string]any{"page": x.page, "url": site.URL + "/lazy.html"})
			slow := x.c.send("locator.wait_for", map[string]any{"page": x.page, "selector": "text=Item 20", "timeout": 5000})
			quick := x.c.send("page.url", map[string]any{"page": x.page})
			select {
			case q := <-quick:
				if q.Error != nil {
					t.Errorf("page.url: %v", q.Error)
				}
				select {
				case <-slow:
					t.Errorf("the slow wait finished before the quick call was answered")
				default:
				}
			case <-time.After(10 * time.Second):
				t.Errorf("no answer to page.url")
			}
			if s := x.c.wait(slow); s.Error != nil {
				t.Errorf("wait_for: %v", s.Error.Message)
			}
			for i := 0; i < 5; i++ {
				x.c.call("locator.click", map[string]any{"page": x.page, "selector": "li >> nth=" + fmt.Sprint(i)})
			}
		}()
	}
	wg.Wait()

	// One client leaving does not end the browser for the other.
	connA.Close()
	<-a.done
	if v := b.call("page.title", map[string]any{"page": pa})["title"]; v != "Lazy list" {
		t.Errorf("after a left: title %v", v)
	}
	// A client that connects later sees the same state.
	c, _ := dialRPC(t, path)
	if got := c.call("browser.pages", map[string]any{"browser": "b1"})["pages"].([]any); len(got) != 2 {
		t.Errorf("late client sees %d pages", len(got))
	}
	// browser.close over a socket closes the browser, not the driver.
	c.call("browser.close", map[string]any{})
	c.fail("page.title", map[string]any{"page": pa}, codeServer, browser.ErrTargetClosed)
	if got := c.call("browser.launch", map[string]any{})["browser"]; got != "b2" {
		t.Errorf("relaunch: %v", got)
	}
	p3 := c.call("browser.new_page", map[string]any{})["page"]
	if p3 != "p3" {
		t.Errorf("page ids restart with a new browser: %v", p3)
	}
	pid := srv.Browser().PID()

	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the socket server did not stop")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("socket file left behind: %v", err)
	}
	if err := srv.Close(bg); err != nil {
		t.Errorf("close: %v", err)
	}
	waitGroupGone(t, pid)

	// A stale socket file of a dead driver is replaced.
	ctx2, cancel2 := context.WithCancel(bg)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	done := make(chan error, 1)
	go func() { done <- ServeSocket(ctx2, path, ServerOptions{}) }()
	time.Sleep(200 * time.Millisecond)
	if conn, err := net.Dial("unix", path); err != nil {
		t.Errorf("driver did not replace a stale socket: %v", err)
	} else {
		conn.Close()
	}
	cancel2()
	if err := <-done; err != nil {
		t.Errorf("serve after stale socket: %v", err)
	}
}

// TestMethodsAreDocumented: every method of the table is in PROTOCOL.md
// (the is_* family shares one row), so the protocol's reference cannot
// miss one the driver answers.
func TestMethodsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("PROTOCOL.md")
	if err != nil {
		t.Fatal(err)
	}
	for name := range methods {
		short := name[strings.LastIndex(name, ".")+1:]
		if !strings.Contains(string(doc), "`"+name+"`") && !(strings.HasPrefix(short, "is_") && strings.Contains(string(doc), "`"+short+"`")) {
			t.Errorf("%s is not in PROTOCOL.md", name)
		}
	}
}

// TestEventWireNames: the driver names each typed engine event for the
// wire and sends its fields as the params, with the page (and a popup's
// opener) beside them.
func TestEventWireNames(t *testing.T) {
	var buf bytes.Buffer
	c := &conn{w: &buf}
	pe := browser.PageEvent{Page: "p2"}
	body := "a=1"
	for _, tc := range []struct {
		ev     browser.Event
		method string
		want   map[string]any // params checked
		absent []string       // params that must not be sent
	}{
		{&browser.ConsoleEvent{PageEvent: pe, Type: "log", Text: "hi", Args: []browser.ConsoleArg{}}, "page.console",
			map[string]any{"page": "p2", "text": "hi", "type": "log", "args": []any{}}, []string{"opener"}},
		{&browser.LoadEvent{PageEvent: pe, DOMContentLoaded: true}, "page.domcontentloaded", map[string]any{"page": "p2"}, []string{"DOMContentLoaded"}},
		{&browser.LoadEvent{PageEvent: browser.PageEvent{Page: "p3", Opener: "p2"}}, "page.load", map[string]any{"page": "p3", "opener": "p2"}, nil},
		{&browser.PageOpenedEvent{Page: "p4"}, "browser.page", map[string]any{"page": "p4", "opener": ""}, nil},
		{&browser.SameDocumentNavigationEvent{PageEvent: pe, URL: "u#x", Main: true, SameDocument: true}, "page.framenavigated",
			map[string]any{"url": "u#x", "main": true, "same_document": true}, []string{"name", "frame"}},
		{&browser.RequestEvent{PageEvent: pe, RequestInfo: browser.RequestInfo{Request: "r1", URL: "u"}}, "page.request", map[string]any{"request": "r1"},
			[]string{"post_data", "redirect_status", "redirect_headers", "redirect_status_text"}},
		{&browser.RequestEvent{PageEvent: pe, RequestInfo: browser.RequestInfo{PostData: &body}, Redirect: &browser.Redirect{Status: 302}}, "page.request",
			map[string]any{"post_data": "a=1", "redirect_status": float64(302), "redirect_status_text": ""}, nil},
		{&browser.LocatorHandlerEvent{PageEvent: pe, UID: 3}, "page.locator_handler", map[string]any{"uid": float64(3)}, nil},
	} {
		buf.Reset()
		c.notify(tc.ev)
		var got struct {
			JSONRPC string         `json:"jsonrpc"`
			Method  string         `json:"method"`
			Params  map[string]any `json:"params"`
		}
		if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
			t.Fatalf("%T: %v: %q", tc.ev, err, buf.String())
		}
		if got.JSONRPC != "2.0" || got.Method != tc.method {
			t.Errorf("%T: sent as %q, want %q", tc.ev, got.Method, tc.method)
		}
		for k, v := range tc.want {
			if fmt.Sprint(got.Params[k]) != fmt.Sprint(v) {
				t.Errorf("%s: %s = %v, want %v", tc.method, k, got.Params[k], v)
			}
		}
		for _, k := range tc.absent {
			if _, ok := got.Params[k]; ok {
				t.Errorf("%s: %s sent", tc.method, k)
			}
		}
	}
}
