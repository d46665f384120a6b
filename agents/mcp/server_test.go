package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"wright/agents/mcp"
	"wright/library"
)

// connect serves srv over in-memory transports to the Go SDK's own client.
func connect(t *testing.T, srv *mcp.Server) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close(); srv.Close() })
	return cs
}

func newServer(t *testing.T) *mcp.Server {
	lib, err := library.Open(filepath.Join(t.TempDir(), "library"))
	if err != nil {
		t.Fatal(err)
	}
	return mcp.New(mcp.Options{Version: "test", Library: lib, OutputDir: t.TempDir(), Browser: mcp.Sessions{}})
}

// The whole tools/list answer is part of every prompt a client sends: it
// stays within a budget, and each description is short.
func TestToolListStaysSmall(t *testing.T) {
	cs := connect(t, newServer(t))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	t.Logf("tools/list: %d tools, %d characters", len(res.Tools), len(b))
	if len(b) > 8500 {
		t.Errorf("tools/list is %d characters: keep it under 8,500 (descriptions a line each, schemas without prose)", len(b))
	}
	for _, tl := range res.Tools {
		if len(tl.Description) > 220 {
			t.Errorf("%s's description is %d characters", tl.Name, len(tl.Description))
		}
	}
}

// Bad arguments are tool errors the client's model can read, and a
// resource URI never reaches outside the output folder or the library.
func TestToolErrorsAndResourceBounds(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, newServer(t))
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"script_make", map[string]any{}, "task is required"},
		{"script_make", map[string]any{"task": "x", "name": "../up"}, "name"},
		{"script_make", map[string]any{"task": "x", "output_schema": map[string]any{"type": 7}}, "output_schema"},
		{"script_rerun", map[string]any{"name": "nosuch"}, "nosuch"},
		{"script_rerun", map[string]any{"name": "nosuch", "params": map[string]any{"a": []any{1}}}, "params.a"},
		{"script_show", map[string]any{"name": "nosuch"}, "nosuch"},
	} {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		text := r.Content[0].(*sdk.TextContent).Text
		if !r.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: isError %v, %q (want it to name %q)", tc.tool, tc.args, r.IsError, text, tc.want)
		}
	}
	for _, uri := range []string{"wright://run/../x/result.json", "wright://run/.hidden/steps.md", "wright://run/r1/config.yaml", "wright://script/../../etc"} {
		if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s was read", uri)
		}
	}
	list, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "script_list", Arguments: map[string]any{}})
	if err != nil || list.IsError || strings.TrimSpace(list.Content[0].(*sdk.TextContent).Text) != "[]" {
		t.Errorf("script_list of an empty library: %v %+v", err, list)
	}
}

// The HTTP handler answers only requests with the token and a loopback
// Host, and CheckAddr refuses a non-loopback address without AllowRemote.
func TestHTTPHandlerGuards(t *testing.T) {
	srv := newServer(t)
	h := httptest.NewServer(srv.Handler(mcp.HTTPOptions{Token: "tok-0123456789"}))
	t.Cleanup(h.Close)
	origin := ""
	post := func(auth, host string) int {
		req, _ := http.NewRequest("POST", h.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post("", ""); c != 401 {
		t.Errorf("no token: %d", c)
	}
	if c := post("Bearer tok-0123456789x", ""); c != 401 {
		t.Errorf("a longer token: %d", c)
	}
	if c := post("Bearer tok-0123456789", "attacker.example:80"); c != 403 {
		t.Errorf("a rebinding Host: %d", c)
	}
	if c := post("Bearer tok-0123456789", ""); c != 200 {
		t.Errorf("the right token: %d", c)
	}
	// A web page of another origin, even one that somehow has the token,
	// is refused, a page of another loopback port too; the server's own
	// origin is not.
	origin = "https://attacker.example"
	if c := post("Bearer tok-0123456789", ""); c != 403 {
		t.Errorf("a foreign Origin: %d", c)
	}
	origin = "http://127.0.0.1:5173"
	if c := post("Bearer tok-0123456789", ""); c != 403 {
		t.Errorf("a loopback Origin of another port: %d", c)
	}
	origin = h.URL
	if c := post("Bearer tok-0123456789", ""); c != 200 {
		t.Errorf("the server's own Origin: %d", c)
	}
	if mcp.CheckAddr("0.0.0.0:8931", false) == nil || mcp.CheckAddr("0.0.0.0:8931", true) != nil || mcp.CheckAddr("127.0.0.1:0", false) != nil {
		t.Error("CheckAddr")
	}
}

// A run folder is written by a model: a run that is a link to another
// folder, or whose result.json or steps.md is a link to a host file, is
// not read through its resource URI.
func TestRunResourcesFollowNoLinks(t *testing.T) {
	out, outside := t.TempDir(), t.TempDir()
	host := filepath.Join(outside, "result.json")
	if err := os.WriteFile(host, []byte(`{"host": "a host file"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(outside, filepath.Join(out, "linked")))
	must(os.MkdirAll(filepath.Join(out, "r2", "debug"), 0o755))
	must(os.Symlink(host, filepath.Join(out, "r2", "result.json")))
	must(os.Symlink(host, filepath.Join(out, "r2", "debug", "steps.md")))
	must(os.MkdirAll(filepath.Join(out, "r3", "debug"), 0o755))
	must(os.WriteFile(filepath.Join(out, "r3", "result.json"), []byte(`{"ok": true}`), 0o600))
	lib, err := library.Open(filepath.Join(t.TempDir(), "library"))
	must(err)
	cs := connect(t, mcp.New(mcp.Options{Version: "test", Library: lib, OutputDir: out}))
	ctx := context.Background()
	for _, uri := range []string{"wright://run/linked/result.json", "wright://run/r2/result.json", "wright://run/r2/steps.md"} {
		if r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s was read: %s", uri, r.Contents[0].Text)
		}
	}
	if r, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "wright://run/r3/result.json"}); err != nil || !strings.Contains(r.Contents[0].Text, "ok") {
		t.Errorf("a plain run's result.json: %v", err)
	}
}
