package apirequest

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"
)

// Cookie is one cookie in the shape of Playwright's storage state (and of
// CDP's cookies): a Domain with a leading dot matches its subdomains, one
// without is host-only; Expires is Unix seconds, -1 for a session cookie.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite"`
}

// Jar is where a request context keeps its cookies: a browser context's
// cookie store (so API requests and pages share them both ways) or a jar of
// its own (MemJar).
type Jar interface {
	// All lists every cookie; the client picks those a URL gets.
	All(ctx context.Context) ([]Cookie, error)
	// Store adds or replaces cookies a response set; one already expired
	// deletes its namesake. from is the URL that set them.
	Store(ctx context.Context, from *url.URL, cookies []Cookie) error
}

func (c Cookie) expired(now time.Time) bool {
	return c.Expires >= 0 && c.Expires < float64(now.Unix())
}

func (c Cookie) key() [3]string { return [3]string{c.Name, c.Domain, c.Path} }

// matches says whether a request to u carries c (RFC 6265 5.4, with
// loopback hosts counted as secure, as Chromium does).
func (c Cookie) matches(u *url.URL, now time.Time) bool {
	if c.expired(now) {
		return false
	}
	host := strings.ToLower(u.Hostname())
	dom := strings.ToLower(c.Domain)
	if strings.HasPrefix(dom, ".") {
		if host != dom[1:] && !strings.HasSuffix(host, dom) {
			return false
		}
	} else if host != dom {
		return false
	}
	if c.Secure && u.Scheme != "https" && !isLoopback(host) {
		return false
	}
	return pathMatches(requestPath(u), c.Path)
}

func requestPath(u *url.URL) string {
	if u.EscapedPath() == "" {
		return "/"
	}
	return u.EscapedPath()
}

func pathMatches(reqPath, cookiePath string) bool {
	if cookiePath == "" || cookiePath == "/" || reqPath == cookiePath {
		return true
	}
	if !strings.HasPrefix(reqPath, cookiePath) {
		return false
	}
	return strings.HasSuffix(cookiePath, "/") || reqPath[len(cookiePath)] == '/'
}

func isLoopback(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// cookieHeader is the Cookie header a request to u carries, longest paths
// first.
func cookieHeader(all []Cookie, u *url.URL, now time.Time) string {
	var picked []Cookie
	for _, c := range all {
		if c.matches(u, now) {
			picked = append(picked, c)
		}
	}
	sort.SliceStable(picked, func(i, j int) bool { return len(picked[i].Path) > len(picked[j].Path) })
	parts := make([]string, len(picked))
	for i, c := range picked {
		parts[i] = c.Name + "=" + c.Value
	}
	return strings.Join(parts, "; ")
}

// parseSetCookies reads a response's Set-Cookie headers into cookies with
// their defaults filled in; one whose Domain the host may not set is
// dropped (RFC 6265 5.3).
func parseSetCookies(h http.Header, from *url.URL, now time.Time) []Cookie {
	var out []Cookie
	host := strings.ToLower(from.Hostname())
	for _, line := range h.Values("Set-Cookie") {
		hc, err := http.ParseSetCookie(line)
		if err != nil {
			continue
		}
		c := Cookie{Name: hc.Name, Value: hc.Value, Domain: host, Path: hc.Path, Expires: -1,
			HTTPOnly: hc.HttpOnly, Secure: hc.Secure, SameSite: sameSite(hc.SameSite)}
		if d := strings.TrimPrefix(strings.ToLower(hc.Domain), "."); d != "" {
			if host != d && !strings.HasSuffix(host, "."+d) {
				continue
			}
			c.Domain = "." + d
		}
		if !strings.HasPrefix(c.Path, "/") {
			c.Path = defaultPath(from)
		}
		switch {
		case hc.MaxAge < 0:
			c.Expires = 0 // deletes
		case hc.MaxAge > 0:
			c.Expires = float64(now.Add(time.Duration(hc.MaxAge) * time.Second).Unix())
		case !hc.Expires.IsZero():
			c.Expires = float64(hc.Expires.Unix())
		}
		out = append(out, c)
	}
	return out
}

func sameSite(s http.SameSite) string {
	switch s {
	case http.SameSiteStrictMode:
		return "Strict"
	case http.SameSiteNoneMode:
		return "None"
	default:
		return "Lax"
	}
}

// defaultPath is RFC 6265 5.1.4's: the request path up to its last slash.
func defaultPath(u *url.URL) string {
	p := requestPath(u)
	i := strings.LastIndex(p, "/")
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// MemJar is a jar of its own, for a request context that belongs to no
// browser (playwright.request.new_context()).
type MemJar struct {
	mu      sync.Mutex
	cookies []Cookie
}

// NewMemJar starts a jar holding cookies (a storage state's).
func NewMemJar(cookies []Cookie) *MemJar {
	j := &MemJar{}
	for _, c := range cookies {
		if c.Path == "" {
			c.Path = "/"
		}
		j.put(c, time.Now())
	}
	return j
}

// All lists the jar's unexpired cookies.
func (j *MemJar) All(context.Context) ([]Cookie, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := time.Now()
	out := make([]Cookie, 0, len(j.cookies))
	for _, c := range j.cookies {
		if !c.expired(now) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Store adds or replaces cookies.
func (j *MemJar) Store(_ context.Context, _ *url.URL, cookies []Cookie) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	now := time.Now()
	for _, c := range cookies {
		j.put(c, now)
	}
	return nil
}

func (j *MemJar) put(c Cookie, now time.Time) {
	kept := j.cookies[:0]
	for _, old := range j.cookies {
		if old.key() != c.key() {
			kept = append(kept, old)
		}
	}
	j.cookies = kept
	if !c.expired(now) {
		j.cookies = append(j.cookies, c)
	}
}
