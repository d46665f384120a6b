package netpolicy

import (
	"fmt"
	"net"
	"os"
)

// ServeUnix serves the proxy on a Unix socket at path as well (mode 0600),
// for a sandbox that has no network of its own: its forwarder carries
// connections here (package sandbox). Close stops it too.
func (p *Proxy) ServeUnix(path string) error {
	l, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("policy proxy: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return fmt.Errorf("policy proxy: %w", err)
	}
	p.extra.Add(1)
	go func() {
		defer p.extra.Done()
		_ = p.srv.Serve(l)
	}()
	return nil
}
