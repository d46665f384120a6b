package browser

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/go-rod/rod/lib/proto"

	"wright/browser/apirequest"
	"wright/browser/launcher"
)

// Proxy is a user's proxy (Playwright's proxy option): for the whole
// browser (Options.Proxy, Chromium's --proxy-server) or for one context
// (NewContextWithProxy, Target.createBrowserContext's proxyServer). It is
// honoured only where wright's own network rules do not apply: a browser
// with a URL policy, a run's policy proxy or a shared warm browser refuses
// it (refuseProxy), since a proxy of the script's choosing would carry the
// pages' traffic around that policy.
type Proxy struct {
	// Server is "host:port", "http://host:port", "https://..." or
	// "socks5://..." (a bare host:port is an HTTP proxy).
	Server string `json:"server"`
	// Bypass is a comma-separated list of hosts that go direct
	// ("example.com, .internal, 10.0.0.0/8").
	Bypass string `json:"bypass"`
	// Username and Password answer the proxy's 407 challenges; with no
	// username there is nothing to answer with. An empty password is one.
	Username string `json:"username"`
	Password string `json:"password"`
}

// normalized checks the proxy and returns Chromium's form of it: the
// server as scheme://host[:port], the bypass rules one a host.
func (px Proxy) normalized() (server string, bypass []string, err error) {
	s := strings.TrimSpace(px.Server)
	if s == "" {
		return "", nil, newErr(ErrInvalidParams, "proxy.server: expected a proxy server such as \"localhost:8080\" or \"socks5://host:1080\", got an empty string")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s // Chromium's and Playwright's reading of a bare host:port
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return "", nil, newErr(ErrInvalidParams, "proxy.server: %q is not a proxy server such as \"localhost:8080\" or \"socks5://host:1080\"", px.Server)
	}
	switch u.Scheme {
	case "http", "https", "socks4", "socks5":
	default:
		return "", nil, newErr(ErrInvalidParams, "proxy.server: %q: the scheme must be http, https, socks4 or socks5", px.Server)
	}
	if u.User != nil {
		// Chromium ignores credentials in --proxy-server; say where they go.
		return "", nil, newErr(ErrInvalidParams, "proxy.server: give the proxy's credentials as proxy.username and proxy.password, not in the server's URL")
	}
	for _, rule := range strings.Split(px.Bypass, ",") {
		rule = strings.TrimSpace(rule)
		if rule == "" {
			continue
		}
		if strings.HasPrefix(rule, ".") {
			rule = "*" + rule // ".example.com": the domain's subdomains, as Playwright reads it
		}
		bypass = append(bypass, rule)
	}
	return u.Scheme + "://" + u.Host, bypass, nil
}

// credentials is the proxy with something to answer a challenge with, nil
// without a username.
func (px *Proxy) credentials() *Proxy {
	if px == nil || px.Username == "" {
		return nil
	}
	return px
}

// proxyRefusal says why this browser cannot take a user's proxy, "" when
// it can: inside a run, the browser's network is the run's URL policy and
// policy proxy, and a shared browser's network is everyone's.
func (o Options) proxyRefusal() string {
	switch {
	case o.URLPolicy != nil:
		return "this browser's navigations are checked by a URL policy, and a proxy of the script's own would route its traffic around it"
	case o.ContextProxy != "" || os.Getenv(ProxyEnv) != "":
		return "this browser's traffic goes through the run's policy proxy, and a proxy of the script's own would route around it"
	case o.FreshContext || o.OwnContextsOnly:
		return "this browser is shared with other clients, whose traffic a proxy of one of them must not carry"
	case o.Replay != nil:
		return "this browser's network is a recorded one (a replayed HAR)"
	}
	return ""
}

// checkLaunchProxy refuses Options.Proxy where it may not apply, and a
// malformed one.
func (o Options) checkLaunchProxy() error {
	if o.Proxy == nil {
		return nil
	}
	if why := o.proxyRefusal(); why != "" {
		return newErr(ErrInvalidParams, "launch(proxy=...): refused: %s", why)
	}
	for _, a := range o.Args {
		if strings.HasPrefix(a, "--proxy-server=") || strings.HasPrefix(a, "--proxy-pac-url=") {
			// The driver's own flags (a run's script driver names its policy
			// proxy so) or the script's: one of the two would be dropped.
			return newErr(ErrInvalidParams, "launch(proxy=...): refused: the browser's flags already name a proxy (%s)", a)
		}
	}
	if o.CDPURL != "" {
		return newErr(ErrInvalidParams, "proxy: a browser attached over CDP keeps the proxy it was started with; give one per context (new_context(proxy=...))")
	}
	_, _, err := o.Proxy.normalized()
	return err
}

// launchArgs are the browser's flags: Args, and Options.Proxy's.
func (o Options) launchArgs() []string {
	if o.Proxy == nil {
		return o.Args
	}
	server, bypass, _ := o.Proxy.normalized() // checked by checkLaunchProxy
	return append(slices.Clip(o.Args), launcher.ProxyFlags(server, bypass)...)
}

// policyProxyOf is the policy proxy a launched browser goes through: the
// --proxy-server it was started with, unless that is the user's own proxy,
// which is no policy proxy (its answers are not netpolicy's).
func (o Options) policyProxyOf(proc *launcher.Process) string {
	if o.Proxy != nil {
		return ""
	}
	return proc.Proxy
}

// contextProxy is what Target.createBrowserContext is given for a context:
// the run's policy proxy (Options.ContextProxy), else the user's proxy,
// which the browser refuses where its network is not the user's.
func (b *Browser) contextProxy(px *Proxy) (server, bypass string, err error) {
	if px == nil {
		if b.opts.ContextProxy != "" {
			return b.opts.ContextProxy, "<-loopback>", nil
		}
		return "", "", nil
	}
	why := b.opts.proxyRefusal()
	if why == "" && b.proxy != "" {
		// Its flags name a proxy (a run's script driver names its policy proxy so).
		why = "this browser's traffic goes through the proxy its --proxy-server flag names (a run's policy proxy), which a proxy of the script's own would route around"
	}
	if why != "" {
		return "", "", newErr(ErrInvalidParams, "new_context(proxy=...): refused: %s", why)
	}
	s, rules, err := px.normalized()
	if err != nil {
		return "", "", err
	}
	return s, launcher.ProxyBypassList(rules), nil
}

// NewContextWithProxy is NewContext with the context's own proxy (nil:
// the browser's).
func (b *Browser) NewContextWithProxy(ctx context.Context, px *Proxy) (*Context, error) {
	id, err := b.createContext(ctx, px)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	c := b.contextLocked(string(id))
	c.own = true
	if px != nil {
		cp := *px
		c.proxy = &cp
	}
	b.mu.Unlock()
	return c, nil
}

// Proxy authentication. A page whose proxy has credentials pauses its
// requests (Fetch, as for http_credentials) so that Chromium reports the
// proxy's 407 to answerAuth, which answers a challenge whose source is the
// proxy with the proxy's credentials, once a request: wrong ones leave the
// proxy's 407. The proxy's credentials never answer a server's challenge,
// nor the server's (http_credentials) a proxy's.

// proxyCredentialsFor is the proxy credentials of the pages in the browser
// context Chromium calls cdp: the context's own proxy's when it has one
// (and none if that proxy has none), else the launch proxy's.
func (b *Browser) proxyCredentialsFor(cdp proto.BrowserBrowserContextID) *Proxy {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.contexts {
		if c.cdp == cdp && c.proxy != nil {
			return c.proxy.credentials()
		}
	}
	return b.opts.Proxy.credentials()
}

// anyProxyCredentials says whether any proxy of the browser has
// credentials: only then is a new page's context looked up (a CDP call).
func (b *Browser) anyProxyCredentials() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.opts.Proxy.credentials() != nil {
		return true
	}
	for _, c := range b.contexts {
		if c.proxy.credentials() != nil {
			return true
		}
	}
	return false
}

// notePageProxy gives a page being set up its proxy's credentials, before
// its Fetch domain is enabled (setup), so its first request is answered.
func (b *Browser) notePageProxy(p *Page) {
	if !b.anyProxyCredentials() {
		return
	}
	if cr := b.proxyCredentialsFor(proto.BrowserBrowserContextID(p.browserContext())); cr != nil {
		p.router.proxyAuth.Store(cr)
	}
}

// handlesAuth says whether the page answers auth challenges itself: it has
// http_credentials (or had), or its proxy has credentials.
func (rt *Router) handlesAuth() bool {
	return rt.authOn.Load() || rt.proxyAuth.Load() != nil
}

// proxyAnswer is the answer to a proxy's challenge of request id.
func (rt *Router) proxyAnswer(id proto.FetchRequestID) *proto.FetchAuthChallengeResponse {
	cr := rt.proxyAuth.Load()
	if cr == nil {
		// No credentials of wright's: Chromium's own settings decide.
		return &proto.FetchAuthChallengeResponse{Response: proto.FetchAuthChallengeResponseResponseDefault}
	}
	// Apart from the server's tries: one request may meet both challenges.
	if !rt.firstTry("proxy:" + id) {
		return &proto.FetchAuthChallengeResponse{Response: proto.FetchAuthChallengeResponseResponseCancelAuth}
	}
	return &proto.FetchAuthChallengeResponse{Response: proto.FetchAuthChallengeResponseResponseProvideCredentials,
		Username: cr.Username, Password: cr.Password}
}

// apiProxy picks the proxy of the context's API requests (context.request):
// the context's own proxy, else the launch's, else the run's policy proxy,
// the way the context's pages go.
func (c *Context) apiProxy() func(*http.Request) (*url.URL, error) {
	b := c.b
	b.mu.Lock()
	px := c.proxy
	b.mu.Unlock()
	if px == nil {
		px = b.opts.Proxy
	}
	if px == nil {
		return apirequest.RunProxy(b.policyProxy())
	}
	server, rules, err := px.normalized()
	u, perr := url.Parse(server)
	if err == nil && perr != nil {
		err = perr
	}
	if err == nil && px.Username != "" {
		u.User = url.UserPassword(px.Username, px.Password) // Go's transport answers with them up front
	}
	return func(r *http.Request) (*url.URL, error) {
		if err != nil {
			return nil, err
		}
		if bypassed(rules, r.URL.Hostname()) {
			return nil, nil
		}
		return u, nil
	}
}

// bypassed says whether host goes direct under Chromium's bypass rules as
// normalized gives them: a host name ("example.com"), its subdomains
// ("*.example.com"), an address range ("10.0.0.0/8"), "<local>" (names
// without a dot); a rule's port is not compared.
func bypassed(rules []string, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	addr, addrErr := netip.ParseAddr(host)
	for _, rule := range rules {
		rule = strings.ToLower(rule)
		switch {
		case rule == "<-loopback>":
		case rule == "<local>":
			if !strings.Contains(host, ".") && addrErr != nil {
				return true
			}
		case strings.Contains(rule, "/"):
			if pfx, err := netip.ParsePrefix(rule); err == nil && addrErr == nil && pfx.Contains(addr) {
				return true
			}
		default:
			if h, _, err := net.SplitHostPort(rule); err == nil {
				rule = h
			}
			rule = strings.TrimSuffix(strings.TrimPrefix(rule, "["), "]")
			if suffix, ok := strings.CutPrefix(rule, "*"); ok {
				if strings.HasSuffix(host, suffix) {
					return true
				}
			} else if host == rule {
				return true
			}
		}
	}
	return false
}
