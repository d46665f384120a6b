// Package keyproxy lets the model's own shell reach the model endpoint
// without the API key ever entering that shell. The harness starts a
// reverse proxy on a Unix socket for the run; `wright reflect` and `wright
// image-qa` run inside the shell find the socket in WRIGHT_MODEL_SOCKET and
// send their requests through it, and the proxy adds the Authorization
// header on the way out.
package keyproxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"
	"time"
)

// Environment variables the harness exports to the model's shell.
const (
	SocketEnv = "WRIGHT_MODEL_SOCKET" // path of the proxy's socket
	ModelEnv  = "WRIGHT_MODEL"        // the model name to ask for
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
// forwards the requests a judge makes (POST /v1/chat/completions, GET
// /v1/models) to upstreamBaseURL, which usually ends in /v1 itself:
// /v1/chat/completions goes to <upstream>/chat/completions. Whatever
// Authorization the caller sent is replaced with "Bearer apiKey". Other
// routes (files, fine-tuning, billing, ...) are refused: the model's shell
// gets the use of the key for chat, nothing more.
// An empty apiKey forwards without one (local servers). The proxy runs until
// Close or until ctx ends.
func Start(ctx context.Context, upstreamBaseURL, apiKey, socketPath string) (*Proxy, error) {
	up, err := url.Parse(upstreamBaseURL)
	if err != nil || (up.Scheme != "http" && up.Scheme != "https") || up.Host == "" {
		return nil, fmt.Errorf("keyproxy: upstream %q is not an http(s) URL", upstreamBaseURL)
	}
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

	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
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
			// The caller's credentials never travel: only ours do.
			r.Out.Header.Del("Authorization")
			r.Out.Header.Del("Proxy-Authorization")
			if apiKey != "" {
				r.Out.Header.Set("Authorization", "Bearer "+apiKey)
			}
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			// 502 is what the client's retry logic treats as transient.
			http.Error(w, "wright key proxy: upstream unreachable: "+redact(err.Error(), apiKey), http.StatusBadGateway)
		},
	}
	// ServeMux cleans the path first (a "/v1/../x" is redirected to "/x"),
	// so nothing outside the allowed routes is reachable with the key.
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "wright key proxy: only POST /v1/chat/completions and GET /v1/models are forwarded", http.StatusNotFound)
	})
	mux.Handle("POST /v1/chat/completions", rp)
	mux.Handle("GET /v1/models", rp)
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
