package launcher

import (
	"net/url"
	"slices"
	"strings"
)

// ProxyBypassList is Chromium's bypass list for a proxy that carries
// loopback too: Chromium sends localhost and 127.0.0.1 direct unless told
// otherwise ("<-loopback>"), and a proxy a user names is there for every
// request they did not list (rules) themselves, as it is in Playwright.
func ProxyBypassList(rules []string) string {
	list := slices.Clone(rules)
	if !slices.Contains(list, "<-loopback>") {
		list = append(list, "<-loopback>")
	}
	return strings.Join(list, ";")
}

// ProxyFlags are the flags that send a browser's traffic through server
// (scheme://host:port) except for the hosts bypass names. A SOCKS5 proxy
// also resolves the names: the browser resolves none itself (but the
// proxy's own), so no host name a page asks for leaks to the local
// resolver. (SOCKS4 takes addresses, which the browser must resolve.)
func ProxyFlags(server string, bypass []string) []string {
	flags := []string{"--proxy-server=" + server, "--proxy-bypass-list=" + ProxyBypassList(bypass)}
	if u, err := url.Parse(server); err == nil && u.Scheme == "socks5" {
		flags = append(flags, "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE "+u.Hostname())
	}
	return flags
}
