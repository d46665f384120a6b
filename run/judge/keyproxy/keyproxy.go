// Package keyproxy lets the model's own shell reach the model endpoint
// without the API key ever entering that shell. The harness starts a
// reverse proxy on a Unix socket for the run; `wright reflect` and `wright
// image-qa` run inside the shell find the socket in WRIGHT_MODEL_SOCKET and
// send their requests through it, and the proxy adds the key, in the
// header the API's entry in model's provider table names, on the way out.
package keyproxy

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"
	"time"

	"wright/model"
)

// Environment variables the harness exports to the model's shell.
const (
	SocketEnv = "WRIGHT_MODEL_SOCKET" // path of the proxy's socket
	ModelEnv  = "WRIGHT_MODEL"        // the model name to ask for
	APIEnv    = "WRIGHT_MODEL_API"    // the wire API to speak (model.api)
)

// BaseURL is the base URL a client uses through the socket. Its host is a
// placeholder (the socket decides where the connection goes); /v1 is the
// prefix the proxy serves.
const BaseURL = "http://wright-model-proxy/v1"

// maxSocketPath is the sun_path limit on Linux, less the terminating NUL.
const maxSocketPath = 107

// Proxy is a running key-adding reverse proxy.
type Proxy struct {
	socketPath string
	listener   net.Listener
	server     *http.Server
	done       chan struct{}
	closeOnce  sync.Once
	closeErr   error
}

// Start listens on socketPath (created with mode 0600; a stale socket left
// by a dead process is replaced, any other file there is an error) and
// forwards the requests a chat judge makes (POST /v1/chat/completions and
// /v1/responses, GET /v1/models) to upstreamBaseURL, which usually ends in
// /v1 itself: /v1/chat/completions goes to <upstream>/chat/completions.
// Whatever Authorization the caller sent is replaced with "Bearer apiKey".
// Other routes (files, fine-tuning, billing, ...) are refused: the model's
// shell gets the use of the key for model calls, nothing more. StartFor
// does the same for the other wire APIs.
// An empty apiKey forwards without one (local servers). The proxy runs until
// Close or until ctx ends.
func Start(ctx context.Context, upstreamBaseURL, apiKey, socketPath string) (*Proxy, error) {
	return StartMetered(ctx, upstreamBaseURL, apiKey, socketPath, nil)
}

// StartMetered is Start with onUsage called with the token counts of every
// answer the endpoint gives through the proxy, so that what the model's
// shell spends on the judge counts toward the run's cost limit.
func StartMetered(ctx context.Context, upstreamBaseURL, apiKey, socketPath string, onUsage func(prompt, completion int)) (*Proxy, error) {
	var meter func(Usage)
	if onUsage != nil {
		meter = func(u Usage) { onUsage(u.Prompt, u.Completion) }
	}
	return StartFor(ctx, Upstream{API: model.DefaultAPI, BaseURL: upstreamBaseURL, Key: apiKey}, socketPath, meter)
}

// Upstream is the endpoint the proxy forwards to and how it takes the key.
type Upstream struct {
	// API is a model.api value; its model.Provider decides the routes
	// and the key's header: chat and responses take "Authorization:
	// Bearer" on /v1/chat/completions and /v1/responses; anthropic takes
	// x-api-key (with anthropic-version) on /v1/messages. Empty is
	// model.DefaultAPI.
	API     string
	BaseURL string // usually ends in /v1: /v1/x goes to <BaseURL>/x
	Key     string // empty: forwarded without one (local servers)
}

// Usage is what one answer through the proxy reported: the whole prompt
// (cache reads and writes included), the part read from the provider's
// cache, the part written to it, and the completion.
type Usage struct {
	Prompt, Cached, CacheWrite, Completion int
}

// route is one request forwarded for an API, with the parser of its
// answers' usage (nil: nothing to meter, as in a list of models).
type route struct {
	pattern string
	usage   func([]byte) model.Usage
}

// routes are the requests forwarded for p; everything else is refused.
// A key taken the same way (one variable, one header) belongs to one
// provider and opens the calls of every API that takes it: an OpenAI key
// serves chat and responses alike, so a judge may speak either through
// one proxy.
func routes(p model.Provider) []route {
	var rs []route
	seen := map[string]bool{}
	add := func(r route) {
		if !seen[r.pattern] {
			seen[r.pattern] = true
			rs = append(rs, r)
		}
	}
	for _, q := range model.Providers() {
		if sameKey(p, q) {
			add(route{"POST /v1" + q.Path, q.ParseUsage})
		}
	}
	if p.ProbePath != "" {
		add(route{"GET /v1" + p.ProbePath, nil})
	}
	return rs
}

func sameKey(p, q model.Provider) bool {
	if p.KeyEnv != q.KeyEnv || p.AuthHeader != q.AuthHeader || p.AuthPrefix != q.AuthPrefix || len(p.Headers) != len(q.Headers) {
		return false
	}
	for k, v := range p.Headers {
		if q.Headers[k] != v {
			return false
		}
	}
	return true
}

// StartFor is StartMetered for any of the wire APIs, onUsage (may be nil)
// hearing each answer's usage.
func StartFor(ctx context.Context, upstream Upstream, socketPath string, onUsage func(Usage)) (*Proxy, error) {
	upstreamBaseURL, apiKey, api := upstream.BaseURL, upstream.Key, upstream.API
	provider, ok := model.LookupProvider(api)
	if !ok {
		return nil, fmt.Errorf("keyproxy: api %q: use %s", api, model.ProviderChoices())
	}
	up, err := url.Parse(upstreamBaseURL)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return nil, fmt.Errorf("keyproxy: upstream %q is not an http(s) URL", upstreamBaseURL)
	}
	l, err := listen(socketPath)
	if err != nil {
		return nil, err
	}

	// ServeMux cleans the path first (a "/v1/../x" is redirected to "/x"),
	// so nothing outside the allowed routes is reachable with the key.
	mux := http.NewServeMux()
	var allowed []string
	for _, rt := range routes(provider) {
		allowed = append(allowed, rt.pattern)
		var meter func([]byte) model.Usage
		if onUsage != nil {
			meter = rt.usage
		}
		mux.Handle(rt.pattern, newReverseProxy(up, provider, apiKey, meter, onUsage))
	}
	refusal := "wright key proxy: only " + strings.Join(allowed, ", ") + " are forwarded"
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, refusal, http.StatusNotFound)
	})
	p := &Proxy{
		socketPath: socketPath,
		listener:   l,
		server:     &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second},
		done:       make(chan struct{}),
	}
	go func() {
		defer close(p.done)
		_ = p.server.Serve(l) // returns when Close shuts the server down
	}()
	go func() {
		select {
		case <-ctx.Done():
			_ = p.Close()
		case <-p.done:
		}
	}()
	return p, nil
}

// listen checks socketPath, replaces a stale socket there and listens on
// it with mode 0600.
func listen(socketPath string) (net.Listener, error) {
	if socketPath == "" {
		return nil, errors.New("keyproxy: no socket path")
	}
	if len(socketPath) > maxSocketPath {
		return nil, fmt.Errorf("keyproxy: socket path is %d bytes, over the %d a Unix socket allows: use a shorter directory", len(socketPath), maxSocketPath)
	}
	if err := clearStale(socketPath); err != nil {
		return nil, err
	}
	l, err := net.Listen("unix", socketPath)
	if err != nil {
		return nil, fmt.Errorf("keyproxy: listen: %w", err)
	}
	// Other users must not borrow the key. (Changing the umask instead would
	// close the short window before the chmod, but the umask is
	// process-wide and would race with every other file the harness
	// creates; put the socket in a private directory to close it.)
	if err := os.Chmod(socketPath, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("keyproxy: %w", err)
	}
	return l, nil
}

// newReverseProxy forwards to up with apiKey in the header p takes,
// reading each answer's usage with parse for onUsage (either may be nil:
// not metered).
func newReverseProxy(up *url.URL, p model.Provider, apiKey string, parse func([]byte) model.Usage, onUsage func(Usage)) *httputil.ReverseProxy {
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			rewrite(r, up, p, apiKey)
		},
		ModifyResponse: func(resp *http.Response) error {
			if parse != nil && onUsage != nil {
				meter(resp, parse, onUsage)
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// 502 is what the client's retry logic treats as transient.
			http.Error(w, "wright key proxy: upstream unreachable: "+redact(err.Error(), apiKey), http.StatusBadGateway)
		},
	}
}

// rewrite maps r's /v1 path onto up and replaces the caller's credentials
// with apiKey.
func rewrite(r *httputil.ProxyRequest, up *url.URL, p model.Provider, apiKey string) {
	rest := strings.TrimPrefix(r.In.URL.Path, "/v1")
	r.Out.URL.Scheme = up.Scheme
	r.Out.URL.Host = up.Host
	r.Out.URL.Path = path.Join("/", up.Path, rest)
	if strings.HasSuffix(rest, "/") && !strings.HasSuffix(r.Out.URL.Path, "/") {
		r.Out.URL.Path += "/"
	}
	r.Out.URL.RawPath = ""
	r.Out.URL.RawQuery = r.In.URL.RawQuery
	r.Out.Host = up.Host
	// The caller's credentials never travel, in whichever API's header
	// they came: only ours do.
	r.Out.Header.Del("Authorization")
	r.Out.Header.Del("Proxy-Authorization")
	for _, q := range model.Providers() {
		r.Out.Header.Del(q.AuthHeader)
	}
	p.Authorize(r.Out.Header, apiKey)
}

// SocketPath is where the proxy listens.
func (p *Proxy) SocketPath() string { return p.socketPath }

// Env returns the variables to export to the model's shell.
func (p *Proxy) Env(modelName string) []string {
	env := []string{SocketEnv + "=" + p.socketPath}
	if modelName != "" {
		env = append(env, ModelEnv+"="+modelName)
	}
	return env
}

// Close stops the proxy, ends the connections in flight and removes the
// socket file. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		err := p.server.Close()
		<-p.done
		if rerr := os.Remove(p.socketPath); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
		if err != nil {
			p.closeErr = fmt.Errorf("keyproxy: close: %w", err)
		}
	})
	return p.closeErr
}

// HTTPClient returns a client whose every connection goes to the socket,
// whatever host the URL names; use it with BaseURL.
func HTTPClient(socketPath string) *http.Client {
	var d net.Dialer
	return &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", socketPath)
		},
		MaxIdleConns:        8,
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     90 * time.Second,
	}}
}

// clearStale removes a socket nobody listens on; it refuses to touch a
// live socket or any other kind of file.
func clearStale(socketPath string) error {
	st, err := os.Lstat(socketPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("keyproxy: %w", err)
	}
	if st.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("keyproxy: %s exists and is not a socket; refusing to replace it", socketPath)
	}
	if c, err := net.DialTimeout("unix", socketPath, time.Second); err == nil {
		c.Close()
		return fmt.Errorf("keyproxy: %s is in use by another process", socketPath)
	}
	if err := os.Remove(socketPath); err != nil {
		return fmt.Errorf("keyproxy: remove stale socket: %w", err)
	}
	return nil
}

// redact keeps the key out of an error text sent back to the caller.
func redact(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// meter reads the usage of an answer with parse and puts the body back
// unchanged. Answers are small (no streaming through the proxy), so
// holding one is fine; a body over the bound is passed on unmetered.
func meter(resp *http.Response, parse func([]byte) model.Usage, onUsage func(Usage)) {
	const limit = 16 << 20
	orig := resp.Body
	body, err := io.ReadAll(io.LimitReader(orig, limit+1))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), orig), orig}
	if err != nil || len(body) > limit {
		return
	}
	a := parse(body)
	u := Usage{Prompt: a.PromptTokens, Cached: a.CachedTokens, CacheWrite: a.CacheWriteTokens, Completion: a.CompletionTokens}
	if u.Prompt > 0 || u.Completion > 0 {
		onUsage(u)
	}
}
