package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// ReadEndpoints returns the remote browsers of browser.cdp_urls followed by
// those of browser.cdp_urls_file (one URL a line; blank lines and text after
// a # are ignored). A URL that is not ws, wss, http or https, an unreadable
// file, or a file with no URL at all is an error naming the line.
func ReadEndpoints(list []string, file string) ([]string, error) {
	var out []string
	for i, u := range list {
		if err := checkEndpoint(u); err != nil {
			return nil, fmt.Errorf("browser.cdp_urls[%d]: %w", i, err)
		}
		out = append(out, u)
	}
	if file == "" {
		return out, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("browser.cdp_urls_file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, found := 0, 0
	for sc.Scan() {
		n++
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := checkEndpoint(line); err != nil {
			return nil, fmt.Errorf("browser.cdp_urls_file %s:%d: %w", file, n, err)
		}
		out = append(out, line)
		found++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("browser.cdp_urls_file %s: %w", file, err)
	}
	if found == 0 {
		return nil, fmt.Errorf("browser.cdp_urls_file %s lists no endpoint (one ws:// or http:// URL a line)", file)
	}
	return out, nil
}

func checkEndpoint(u string) error {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return fmt.Errorf("%q is not a ws:// or http:// URL", u)
	}
	switch p.Scheme {
	case "ws", "wss", "http", "https":
		return nil
	}
	return fmt.Errorf("%q: the scheme must be ws, wss, http or https", u)
}

// ErrNoEndpoint is the error of an attempt when every remote browser of
// the bench is out of rotation: no later attempt could run either.
var ErrNoEndpoint = errors.New("every remote browser of browser.cdp_urls is out of rotation")

// EndpointLostError is an attempt's error when its remote browser stopped
// answering while it ran: the result says nothing of the model, so the
// bench retries it (an infrastructure error) on another endpoint.
type EndpointLostError struct {
	URL    string
	Reason error
}

func (e *EndpointLostError) Error() string {
	return fmt.Sprintf("the remote browser %s stopped answering during the attempt (%v) and is out of rotation", e.URL, e.Reason)
}

func (e *EndpointLostError) Unwrap() error { return e.Reason }

// Endpoints are the remote browsers a bench's workers share. Worker i (from
// 1) takes endpoint i-1, so with as many endpoints as workers each worker
// has one to itself; with fewer, worker i takes endpoint (i-1) mod n and
// workers share. An endpoint found dead is taken out of rotation for the
// rest of the bench, and its workers move to the next live one.
type Endpoints struct {
	// Probe says whether an endpoint answers; nil is a connection to its
	// host and port (and GET /json/version for http URLs), within 5s.
	Probe func(ctx context.Context, url string) error

	mu   sync.Mutex
	urls []string
	dead []error // by index; nil while in rotation
}

// NewEndpoints returns the rotation of urls (nil when there are none).
func NewEndpoints(urls []string) *Endpoints {
	if len(urls) == 0 {
		return nil
	}
	return &Endpoints{urls: urls, dead: make([]error, len(urls))}
}

// Len is how many endpoints the rotation started with.
func (e *Endpoints) Len() int { return len(e.urls) }

// Live is how many endpoints are still in rotation.
func (e *Endpoints) Live() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, d := range e.dead {
		if d == nil {
			n++
		}
	}
	return n
}

// For returns the index and URL of worker's endpoint: its own while that is
// in rotation, otherwise the next one that is.
func (e *Endpoints) For(worker int) (int, string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := len(e.urls)
	start := max(worker-1, 0) % n
	for k := range n {
		i := (start + k) % n
		if e.dead[i] == nil {
			return i, e.urls[i], nil
		}
	}
	return -1, "", ErrNoEndpoint
}

// Check probes endpoint i and takes it out of rotation if it does not
// answer; the error says why.
func (e *Endpoints) Check(ctx context.Context, i int) error {
	probe := e.Probe
	if probe == nil {
		probe = probeEndpoint
	}
	err := probe(ctx, e.urls[i])
	if err != nil {
		e.mu.Lock()
		if e.dead[i] == nil {
			e.dead[i] = err
		}
		e.mu.Unlock()
	}
	return err
}

// probeEndpoint connects to the endpoint's host; an http endpoint must also
// answer /json/version, as Chrome's DevTools server does. A ws URL may sit
// behind a grid's proxy that serves nothing else, so it is only dialled.
func probeEndpoint(ctx context.Context, raw string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	host := u.Host
	if u.Port() == "" {
		switch u.Scheme {
		case "https", "wss":
			host = net.JoinHostPort(u.Hostname(), "443")
		default:
			host = net.JoinHostPort(u.Hostname(), "80")
		}
	}
	if u.Scheme == "ws" || u.Scheme == "wss" {
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", host)
		if err != nil {
			return fmt.Errorf("connect to %s: %w", host, err)
		}
		return c.Close()
	}
	v := *u
	v.Path, v.RawQuery = "/json/version", ""
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, v.String(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", v.String(), err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d", v.String(), resp.StatusCode)
	}
	return nil
}
