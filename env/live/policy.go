package live

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
)

// Policy decides which URLs the live browser may open: every navigation,
// redirect, frame and new tab is checked against it (through the engine's
// URLPolicy hook) before it happens.
//
// The rules, in order:
//  1. Only web schemes load: http, https, ws, wss, and the in-page schemes
//     about, data, blob and javascript. file:, chrome:, devtools:,
//     view-source:, extensions and the rest are refused, so the model cannot
//     read the machine's files or the browser's internals.
//  2. A host matching a blocked pattern is refused.
//  3. Link-local and cloud metadata addresses (169.254.0.0/16, fe80::/10,
//     fd00:ec2::254, metadata.google.internal) are refused: they hand out
//     credentials to whoever asks from inside a cloud machine.
//  4. Loopback (localhost, *.localhost, 127.0.0.0/8, ::1) is allowed: local
//     test sites and the run's own tools live there. List it in blocked
//     patterns to refuse it.
//  5. With allowed patterns, any other host must match one of them.
//
// A pattern is a host glob (`*` matches any run of characters, dots
// included; `*.example.com` also matches example.com itself), an IP address,
// or a CIDR prefix (10.0.0.0/8). Matching is case-insensitive and ignores
// ports.
type Policy struct {
	allowed []pattern
	blocked []pattern
}

type pattern struct {
	text   string
	prefix netip.Prefix // valid for an address or CIDR pattern
}

// ErrBlocked is wrapped by every refusal, for errors.Is.
var ErrBlocked = errors.New("blocked by the URL policy")

// BlockedError says why a URL was refused. Its message completes the
// engine's "navigation to X is blocked by the URL policy: ..." and tells the
// model what it may do instead.
type BlockedError struct {
	URL    string
	Reason string
}

func (e *BlockedError) Error() string { return e.Reason }
func (e *BlockedError) Unwrap() error { return ErrBlocked }

// NewPolicy compiles the config's browser.allowed_domains and
// browser.blocked_domains. A pattern that is a URL, holds a path, or is
// empty is an error that names it.
func NewPolicy(allowed, blocked []string) (*Policy, error) {
	p := &Policy{}
	var errs []error
	for _, list := range []struct {
		name string
		in   []string
		out  *[]pattern
	}{{"browser.allowed_domains", allowed, &p.allowed}, {"browser.blocked_domains", blocked, &p.blocked}} {
		for _, s := range list.in {
			pt, err := compilePattern(s)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", list.name, err))
				continue
			}
			*list.out = append(*list.out, pt)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

func compilePattern(s string) (pattern, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, ".")
	switch {
	case t == "":
		return pattern{}, fmt.Errorf("empty pattern %q", s)
	case strings.Contains(t, "://"):
		return pattern{}, fmt.Errorf("%q is a URL; give a host pattern such as example.com or *.example.com", s)
	}
	if pf, err := netip.ParsePrefix(t); err == nil {
		return pattern{text: t, prefix: pf.Masked()}, nil
	}
	if a, err := netip.ParseAddr(strings.Trim(t, "[]")); err == nil {
		a = a.Unmap()
		return pattern{text: t, prefix: netip.PrefixFrom(a, a.BitLen())}, nil
	}
	if strings.ContainsAny(t, "/?#@ ") {
		return pattern{}, fmt.Errorf("%q is not a host pattern; give a host such as example.com or *.example.com", s)
	}
	if _, err := path.Match(t, "x"); err != nil {
		return pattern{}, fmt.Errorf("%q: %w", s, err)
	}
	return pattern{text: t}, nil
}

// match reports whether host (lower case, no port, no brackets) matches.
func (pt pattern) match(host string, addr netip.Addr) bool {
	if pt.prefix.IsValid() {
		return addr.IsValid() && pt.prefix.Contains(addr)
	}
	if globMatch(pt.text, host) {
		return true
	}
	// *.example.com names the site: the apex too.
	if apex, ok := strings.CutPrefix(pt.text, "*."); ok && host == apex {
		return true
	}
	return false
}

// globMatch is path.Match with `*` crossing dots, which path.Match treats
// as ordinary characters anyway (only `/` is special there, and hosts have
// none).
func globMatch(pattern, host string) bool {
	ok, err := path.Match(pattern, host)
	return err == nil && ok
}

var allowedSchemes = map[string]bool{
	"http": true, "https": true, "ws": true, "wss": true,
	"about": true, "data": true, "blob": true, "javascript": true,
}

// Metadata endpoints that are names rather than link-local addresses.
var metadataHosts = map[string]bool{
	"metadata.google.internal": true,
	"metadata.goog":            true,
}

var ec2MetadataV6 = netip.MustParseAddr("fd00:ec2::254")

// Check returns nil if the browser may open rawURL, else a *BlockedError
// saying why.
func (p *Policy) Check(rawURL string) error {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil {
		return &BlockedError{URL: rawURL, Reason: fmt.Sprintf("%q is not a valid URL", rawURL)}
	}
	scheme := strings.ToLower(u.Scheme)
	if !allowedSchemes[scheme] {
		if scheme == "" {
			return &BlockedError{URL: rawURL, Reason: fmt.Sprintf("%q has no scheme; give an absolute http:// or https:// URL", rawURL)}
		}
		return &BlockedError{URL: rawURL, Reason: fmt.Sprintf("%s: URLs are not allowed in this run (only http and https pages)", scheme)}
	}
	switch scheme {
	case "about", "data", "javascript":
		return nil // no host: content made in the page itself
	case "blob":
		// blob:https://site/uuid belongs to the origin inside it.
		inner, err := url.Parse(u.Opaque)
		if err != nil || inner.Host == "" {
			return nil
		}
		u = inner
	}
	host := normalizeHost(u.Hostname())
	if host == "" {
		return &BlockedError{URL: rawURL, Reason: fmt.Sprintf("%q has no host", rawURL)}
	}
	addr := hostAddr(host)
	for _, pt := range p.blocked {
		if pt.match(host, addr) {
			return &BlockedError{URL: rawURL, Reason: fmt.Sprintf("host %s matches %q in browser.blocked_domains", host, pt.text)}
		}
	}
	if metadataHosts[host] || (addr.IsValid() && (addr.IsLinkLocalUnicast() || addr == ec2MetadataV6)) {
		return &BlockedError{URL: rawURL, Reason: fmt.Sprintf("host %s is a link-local or cloud metadata address, which is always blocked", host)}
	}
	if isLoopback(host, addr) || len(p.allowed) == 0 {
		return nil
	}
	for _, pt := range p.allowed {
		if pt.match(host, addr) {
			return nil
		}
	}
	return &BlockedError{URL: rawURL, Reason: fmt.Sprintf("host %s is not in browser.allowed_domains (%s); stay on the allowed sites", host, p.allowedList())}
}

func (p *Policy) allowedList() string {
	var names []string
	for _, pt := range p.allowed {
		names = append(names, pt.text)
	}
	return strings.Join(names, ", ")
}

// Func adapts the policy to the engine's hook.
func (p *Policy) Func() func(string) error {
	if p == nil {
		return nil
	}
	return p.Check
}

func normalizeHost(h string) string {
	h = strings.ToLower(strings.Trim(h, "[]"))
	return strings.TrimSuffix(h, ".")
}

func isLoopback(host string, addr netip.Addr) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	return addr.IsValid() && addr.IsLoopback()
}

// hostAddr is the IP address a host names, reading IPv4 the way browsers
// do (WHATWG URL): "2852039166", "0xa9.0376.43518" and "169.254.169.254"
// are all the same address, and a policy that only knew the dotted form
// could be walked around.
func hostAddr(host string) netip.Addr {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap()
	}
	parts := strings.Split(host, ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}
	}
	nums := make([]uint64, len(parts))
	for i, s := range parts {
		n, ok := parseIPv4Number(s)
		if !ok {
			return netip.Addr{}
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}
		}
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}
	}
	v := last
	for i, n := range nums[:len(nums)-1] {
		v |= n << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

func parseIPv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		s, base = s[2:], 16
		if s == "" {
			return 0, true
		}
	case len(s) > 1 && s[0] == '0':
		s, base = s[1:], 8
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil || n > 1<<32 {
		return 0, false
	}
	return n, true
}
