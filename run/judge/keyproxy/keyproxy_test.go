package keyproxy

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"wright/model"
	"wright/model/modeltest"
)

const secret = "sk-proxy-test-abcdef0123456789"

// upstream records what reaches the endpoint.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	seen []*http.Request
	body []string
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.seen = append(u.seen, r.Clone(context.Background()))
		u.body = append(u.body, string(b))
		u.mu.Unlock()
		w.Header().Set("X-Upstream", "yes")
		io.WriteString(w, "upstream:"+r.URL.RequestURI())
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) requests() []*http.Request {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]*http.Request(nil), u.seen...)
}

func startProxy(t *testing.T, upstreamURL, key string) *Proxy {
	t.Helper()
	p, err := Start(context.Background(), upstreamURL, key, filepath.Join(t.TempDir(), "m.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func TestProxyAddsKeyAndMapsPaths(t *testing.T) {
	for _, tc := range []struct{ base, wantPath string }{
		{"/v1", "/v1/chat/completions"},
		{"/api/v1/", "/api/v1/chat/completions"},
		{"", "/chat/completions"},
	} {
		up := newUpstream(t)
		p := startProxy(t, up.URL+tc.base, secret)
		req, _ := http.NewRequest("POST", BaseURL+"/chat/completions?x=1", strings.NewReader(`{"model":"m"}`))
		req.Header.Set("Authorization", "Bearer sk-the-caller-made-this-up")
		req.Header.Set("Content-Type", "application/json")
		resp, err := HTTPClient(p.SocketPath()).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Header.Get("X-Upstream") != "yes" || string(body) != "upstream:"+tc.wantPath+"?x=1" {
			t.Errorf("%s: %d %q", tc.base, resp.StatusCode, body)
		}
		got := up.requests()
		if len(got) != 1 {
			t.Fatalf("%d upstream requests", len(got))
		}
		if a := got[0].Header.Values("Authorization"); len(a) != 1 || a[0] != "Bearer "+secret {
			t.Errorf("upstream Authorization %q", a)
		}
		if got[0].Host != strings.TrimPrefix(up.URL, "http://") || up.body[0] != `{"model":"m"}` {
			t.Errorf("host %q body %q", got[0].Host, up.body[0])
		}
	}
}

func TestProxyRefusesOtherPaths(t *testing.T) {
	up := newUpstream(t)
	p := startProxy(t, up.URL+"/v1", secret)
	for _, path := range []string{"/", "/admin", "/v10/x", "/v1x", "/v1/files", "/v1/chat/completions/../../files", "/v1/%2e%2e/admin"} {
		resp, err := HTTPClient(p.SocketPath()).Post("http://wright-model-proxy"+path, "application/json", strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
	}
	// A GET of the chat route is refused too; the model list is allowed.
	resp, err := HTTPClient(p.SocketPath()).Get(BaseURL + "/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		t.Error("GET /v1/chat/completions was forwarded")
	}
	if n := len(up.requests()); n != 0 {
		t.Errorf("%d requests reached upstream", n)
	}
	resp, err = HTTPClient(p.SocketPath()).Get(BaseURL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(up.requests()) != 1 {
		t.Errorf("GET /v1/models: %d", resp.StatusCode)
		return
	}
}

func TestProxySocketLifecycle(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "m.sock")

	// A stale socket (its listener gone, the file left) is replaced.
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	p, err := Start(ctx, "http://127.0.0.1:9/v1", secret, sock)
	if err != nil {
		t.Fatalf("stale socket not replaced: %v", err)
	}
	st, err := os.Stat(sock)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, %v", st.Mode(), err)
	}
	if env := p.Env("gpt-x"); len(env) != 2 || env[0] != SocketEnv+"="+sock || env[1] != ModelEnv+"=gpt-x" {
		t.Errorf("env %v", env)
	}

	// A live socket is not taken over.
	if _, err := Start(context.Background(), "http://127.0.0.1:9/v1", secret, sock); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("second proxy on a live socket: %v", err)
	}

	// Upstream down: a 502 that does not leak the key.
	resp, err := HTTPClient(sock).Post(BaseURL+"/chat/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || strings.Contains(string(body), secret) {
		t.Errorf("%d %q", resp.StatusCode, body)
	}

	// Cancelling the context closes the proxy and removes the socket.
	cancel()
	<-p.done
	if err := p.Close(); err != nil {
		t.Errorf("close after cancel: %v", err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}

func TestProxyStartErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	os.WriteFile(file, []byte("x"), 0o644)
	cases := map[string]struct{ up, sock string }{
		"not an http(s) URL": {"ftp://x/v1", filepath.Join(dir, "a.sock")},
		"no socket path":     {"http://127.0.0.1:9", ""},
		"is not a socket":    {"http://127.0.0.1:9", file},
		"over the 107":       {"http://127.0.0.1:9", filepath.Join(dir, strings.Repeat("d", 120), "s.sock")},
	}
	for want, c := range cases {
		if _, err := Start(context.Background(), c.up, secret, c.sock); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err %v, want %q", err, want)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Error("a plain file at the socket path was touched")
	}
}

// The model client, given no key and the socket, reaches the endpoint with
// the harness's key.
func TestProxyWithModelClient(t *testing.T) {
	srv := modeltest.New(t, modeltest.Status(500), modeltest.Reply("hello"))
	p := startProxy(t, srv.URL+"/v1", secret)
	t.Setenv("WRIGHT_TEST_NO_SUCH_KEY", "")
	client, err := model.New(model.Config{
		Name: "m", BaseURL: BaseURL, APIKeyEnv: "WRIGHT_TEST_NO_SUCH_KEY", ResponseFormat: model.FormatNone,
		HTTPClient: HTTPClient(p.SocketPath()),
		Retry:      model.Retry{Attempts: 2, InitialDelaySeconds: 0.001, MaxDelaySeconds: 0.01},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := client.Complete(context.Background(), []model.Message{{Role: model.RoleUser, Content: "hi"}})
	if err != nil || reply.Content != "hello" {
		t.Fatalf("%q %v", reply.Content, err)
	}
	for _, r := range srv.Requests() {
		if got := r.Header.Get("Authorization"); got != "Bearer "+secret {
			t.Errorf("Authorization %q", got)
		}
	}
}

// What the model's shell spends through the proxy is counted, and the
// answer reaches the caller unchanged.
func TestProxyMetersUsage(t *testing.T) {
	srv := modeltest.New(t, modeltest.Reply("hello").WithUsage(120, 30))
	var prompt, completion int
	sock := filepath.Join(t.TempDir(), "m.sock")
	p, err := StartMetered(context.Background(), srv.URL+"/v1", secret, sock, func(pt, ct int) { prompt, completion = prompt+pt, completion+ct })
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	client, err := model.New(model.Config{Name: "m", BaseURL: BaseURL, ResponseFormat: model.FormatNone,
		HTTPClient: HTTPClient(sock), Retry: model.Retry{Attempts: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reply, err := client.Complete(context.Background(), []model.Message{{Role: model.RoleUser, Content: "hi"}})
	if err != nil || reply.Content != "hello" || reply.Usage.PromptTokens != 120 {
		t.Fatalf("%+v %v", reply, err)
	}
	if prompt != 120 || completion != 30 {
		t.Errorf("metered %d + %d, want 120 + 30", prompt, completion)
	}
}

// Each API's client reaches the endpoint through the proxy with the key in
// that API's own header, and only on that API's routes.
func TestProxyForEachAPI(t *testing.T) {
	for _, api := range []string{model.APIResponses, model.APIAnthropic} {
		t.Run(api, func(t *testing.T) {
			srv := modeltest.New(t, modeltest.Reply("hello").WithUsage(1000, 30).WithCache(600, 100))
			var got Usage
			sock := filepath.Join(t.TempDir(), "m.sock")
			p, err := StartFor(context.Background(), Upstream{API: api, BaseURL: srv.URL + "/v1", Key: secret}, sock, func(u Usage) { got = u })
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			t.Setenv("WRIGHT_TEST_NO_SUCH_KEY", "")
			client, err := model.New(model.Config{Name: "m", API: api, BaseURL: BaseURL, APIKeyEnv: "WRIGHT_TEST_NO_SUCH_KEY",
				ResponseFormat: model.FormatNone, HTTPClient: HTTPClient(sock), Retry: model.Retry{Attempts: 1}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			reply, err := client.Complete(context.Background(), []model.Message{{Role: model.RoleUser, Content: "hi"}})
			if err != nil || reply.Content != "hello" {
				t.Fatalf("%q %v", reply.Content, err)
			}
			r := srv.Last()
			if api == model.APIAnthropic {
				if r.Path != "/v1/messages" || r.Header.Get("X-Api-Key") != secret || r.Header.Get("Authorization") != "" || r.Header.Get("Anthropic-Version") == "" {
					t.Errorf("%s: x-api-key %q, authorization %q, anthropic-version %q", r.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"), r.Header.Get("Anthropic-Version"))
				}
				if want := (Usage{Prompt: 1000, Cached: 600, CacheWrite: 100, Completion: 30}); got != want {
					t.Errorf("metered %+v, want %+v", got, want)
				}
			} else {
				if r.Path != "/v1/responses" || r.Header.Get("Authorization") != "Bearer "+secret || r.Header.Get("X-Api-Key") != "" {
					t.Errorf("%s: authorization %q", r.Path, r.Header.Get("Authorization"))
				}
				if want := (Usage{Prompt: 1000, Cached: 600, Completion: 30}); got != want {
					t.Errorf("metered %+v, want %+v", got, want)
				}
			}
			// The other API's route is not forwarded with this key.
			other := "/messages"
			if api == model.APIAnthropic {
				other = "/chat/completions"
			}
			resp, err := HTTPClient(sock).Post(BaseURL+other, "application/json", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s forwarded for %s: %d", other, api, resp.StatusCode)
			}
		})
	}
	if _, err := StartFor(context.Background(), Upstream{API: "gemini", BaseURL: "http://127.0.0.1:9/v1"}, filepath.Join(t.TempDir(), "x.sock"), nil); err == nil {
		t.Error("an unknown API was accepted")
	}
}
