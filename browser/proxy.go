package browser

import (
	"os"

	"github.com/go-rod/rod/lib/launcher"
)

// ProxyEnv names the run's policy proxy (package netpolicy). A browser a
// script launches inside a run (workspace mode) sends every request
// through it, loopback included, so the run's URL policy applies to its
// subresources, fetches and WebSockets too.
const ProxyEnv = "WRIGHT_PROXY"

func withRunProxy(l *launcher.Launcher) *launcher.Launcher {
	p := os.Getenv(ProxyEnv)
	if p == "" || l.Has("proxy-server") {
		return l
	}
	return l.Set("proxy-server", p).Set("proxy-bypass-list", "<-loopback>")
}
