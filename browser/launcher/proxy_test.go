package launcher

import (
	"slices"
	"testing"
)

func TestProxyFlags(t *testing.T) {
	got := ProxyFlags("http://localhost:3128", []string{"a.test", "*.b.test"})
	want := []string{"--proxy-server=http://localhost:3128", "--proxy-bypass-list=a.test;*.b.test;<-loopback>"}
	if !slices.Equal(got, want) {
		t.Errorf("http: %q, want %q", got, want)
	}
	// A SOCKS proxy resolves every name but its own.
	got = ProxyFlags("socks5://proxy.test:1080", nil)
	want = []string{"--proxy-server=socks5://proxy.test:1080", "--proxy-bypass-list=<-loopback>",
		"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE proxy.test"}
	if !slices.Equal(got, want) {
		t.Errorf("socks5: %q, want %q", got, want)
	}
	// SOCKS4 takes addresses: the browser resolves the names itself.
	got = ProxyFlags("socks4://proxy.test:1080", nil)
	if len(got) != 2 {
		t.Errorf("socks4: %q, want no resolver rules", got)
	}
	if got := ProxyBypassList([]string{"<-loopback>"}); got != "<-loopback>" {
		t.Errorf("bypass with <-loopback> already: %q", got)
	}
}
