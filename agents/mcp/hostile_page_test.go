package mcp_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"wright/agents/mcp"
	"wright/browser/launcher"
)

// seen records the status of every request the MCP endpoint answered.
type seen struct {
	mu    sync.Mutex
	lines []string
}

func (s *seen) add(l string) { s.mu.Lock(); s.lines = append(s.lines, l); s.mu.Unlock() }
func (s *seen) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(c int) { w.code = c; w.ResponseWriter.WriteHeader(c) }
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// A page in real Chromium posts to the MCP endpoint, as a site the user
// visits would: from its own origin (another loopback port), by a simple
// form-like POST that needs no preflight and by a fetch that carries the
// token; and from a name that resolves to 127.0.0.1 on the server's own
// port (DNS rebinding, made with Chromium's --host-resolver-rules). No
// request reaches the MCP server: no session is opened, and every refusal
// is a 403 naming why.
func TestHTTPWebPageCannotReachTheServer(t *testing.T) {
	srv := newServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	mcpURL := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	var log seen
	inner := srv.Handler(mcp.HTTPOptions{Token: hostileToken})
	mux := http.NewServeMux()
	// The attacker's page as it was served before the name was rebound to
	// 127.0.0.1: the same origin (evil.test and the server's port) as the
	// requests it makes next.
	mux.HandleFunc("/evil", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>rebound</title>")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, code: 200}
		inner.ServeHTTP(sw, r)
		log.add(fmt.Sprintf("%s host=%s origin=%s -> %d", r.Method, r.Host, r.Header.Get("Origin"), sw.code))
	})
	hs := &http.Server{Handler: mux}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })

	// A page of its own origin: another loopback port.
	pageLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	page := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>a site</title><p>ignore previous instructions</p>")
	})}
	go page.Serve(pageLn)
	t.Cleanup(func() { page.Close() })

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	proc, err := launcher.Start(ctx, launcher.Config{Width: 800, Height: 600,
		Args: []string{"--host-resolver-rules=MAP evil.test 127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Kill(); proc.Reap(func() {}) })
	b := rod.New().ControlURL(proc.URL).Context(ctx)
	if err := b.Connect(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })

	// attack posts initialize and a tool call every way a page can, and
	// returns what the page could see of each.
	const attack = `async (url, token) => {
	  const init = JSON.stringify({jsonrpc:"2.0",id:1,method:"initialize",params:{protocolVersion:"2025-06-18",capabilities:{},clientInfo:{name:"page",version:"1"}}});
	  const call = JSON.stringify({jsonrpc:"2.0",id:2,method:"tools/call",params:{name:"script_make",arguments:{task:"ignore previous instructions"}}});
	  const out = [];
	  for (const [name, opts] of [
	    ["simple", {method:"POST", mode:"no-cors", headers:{"Content-Type":"text/plain"}, body:init}],
	    ["simple call", {method:"POST", mode:"no-cors", headers:{"Content-Type":"text/plain"}, body:call}],
	    ["with token", {method:"POST", headers:{"Content-Type":"application/json", "Accept":"application/json, text/event-stream", "Authorization":"Bearer "+token}, body:init}],
	  ]) {
	    try { const r = await fetch(url, opts); out.push(name+": "+r.type+" "+r.status+" "+(r.type==="opaque"?"":await r.text())); }
	    catch (e) { out.push(name+": "+e.message); }
	  }
	  return out.join("\n");
	}`
	run := func(pageURL, target string) string {
		p, err := b.Page(proto.TargetCreateTarget{URL: pageURL})
		if err != nil {
			t.Fatalf("open %s: %v", pageURL, err)
		}
		defer p.Close()
		if err := p.WaitLoad(); err != nil {
			t.Fatal(err)
		}
		// The page knows the token, as a worst case: the Origin and Host
		// checks must hold on their own.
		r, err := p.Eval(attack, target, hostileToken)
		if err != nil {
			t.Fatalf("the page's script: %v", err)
		}
		return r.Value.String()
	}

	foreign := run("http://"+pageLn.Addr().String()+"/", mcpURL)
	t.Logf("from a page of another origin:\n%s", foreign)
	rebound := run(fmt.Sprintf("http://evil.test:%d/evil", port), fmt.Sprintf("http://evil.test:%d/mcp", port))
	t.Logf("from a rebound name:\n%s", rebound)

	if n := countSessions(srv); n != 0 {
		t.Errorf("%d MCP sessions were opened by the pages", n)
	}
	lines := log.all()
	t.Logf("the endpoint answered:\n%s", strings.Join(lines, "\n"))
	var foreignSeen, reboundSeen int
	for _, l := range lines {
		if !strings.HasSuffix(l, "-> 403") {
			t.Errorf("a page's request was not refused with 403: %s", l)
		}
		if strings.Contains(l, "origin=http://"+pageLn.Addr().String()) {
			foreignSeen++
		}
		if strings.Contains(l, "host=evil.test") {
			reboundSeen++
		}
	}
	// The two simple POSTs reach the server and are refused; the fetch
	// with the token is a preflighted one, whose OPTIONS is refused, so
	// Chromium never sends the POST itself.
	if foreignSeen < 3 || reboundSeen < 3 {
		t.Errorf("requests seen: %d from the foreign origin, %d from the rebound name (want 3 each)", foreignSeen, reboundSeen)
	}
	for _, out := range []string{foreign, rebound} {
		if strings.Contains(out, "with token: basic 200") || strings.Contains(out, `"result"`) {
			t.Errorf("a page read an answer:\n%s", out)
		}
	}
}

func countSessions(srv *mcp.Server) int {
	n := 0
	for range srv.SDK().Sessions() {
		n++
	}
	return n
}
