package harness

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"wright/browser"
	"wright/browser/driver"
	"wright/browser/probe"
	"wright/internal/scratch"
)

// DriverSpawnEnv names the socket at which a sandboxed workspace run's
// scripts get their browsers from wright (the Python client's launch()
// connects there instead of starting `wright driver` itself).
const DriverSpawnEnv = "WRIGHT_DRIVER_SPAWN"

// DriverWarmEnv names the same socket in every workspace run: a launch()
// that asks for no browser of its own (headless, no flags, executable,
// profile or CDP endpoint) connects there and gets a fresh context of the
// run's warm browser; any other launch starts a driver and a Chromium of
// its own as before.
const DriverWarmEnv = "WRIGHT_DRIVER_WARM"

// scriptDrivers serve the browsers of a workspace run's scripts from
// wright's own process: each connection gets a driver of its own, ended
// when it ends, whose plain launch() is a new isolated context of the
// run's one warm Chromium (warmBrowser), so an exploration of forty
// scripts starts Chromium once. In a sandboxed run with secrets that is
// also where the secrets are typed (browser.Options.Secrets), so their
// values never enter the sandbox; in a sandboxed run what a script may ask
// of such a driver is narrowed to what cannot reach beyond the run
// (scriptfilter_linux.go): wright picks the browser, its flags and its
// profile; a screenshot is written only inside the workspace, by wright,
// without following links out of it. Only the socket enters the sandbox,
// never the warm browser's DevTools port.
type scriptDrivers struct {
	ws     string
	opts   browser.Options
	har    driver.HAROptions
	filter bool           // sandboxed: every request passes the checks of scriptfilter_linux.go
	probe  *probe.Request // read from each client's last page when it ends (ProbeScripts)
	warm   *warmBrowser
	dir    string
	l      net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

func startScriptDrivers(ws string, opts browser.Options, har driver.HAROptions, warm *warmBrowser, filter bool) (*scriptDrivers, error) {
	return startProbeDrivers(ws, opts, har, warm, filter, nil)
}

// startProbeDrivers is startScriptDrivers whose drivers read pr from each
// client's last page when it ends (ProbeScripts).
func startProbeDrivers(ws string, opts browser.Options, har driver.HAROptions, warm *warmBrowser, filter bool, pr *probe.Request) (*scriptDrivers, error) {
	// The path as the sandbox binds it, which is how scripts name it.
	abs, err := filepath.Abs(ws)
	if err != nil {
		return nil, fmt.Errorf("script drivers: %w", err)
	}
	dir, err := scratch.MkdirTemp("", "drv-")
	if err != nil {
		return nil, fmt.Errorf("script drivers: %w", err)
	}
	sock := filepath.Join(dir, "spawn.sock")
	l, err := net.Listen("unix", sock)
	if err == nil {
		err = os.Chmod(sock, 0o600)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("script drivers: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &scriptDrivers{ws: abs, opts: opts, har: har, filter: filter, probe: pr, warm: warm, dir: dir, l: l, ctx: ctx, cancel: cancel, conns: map[net.Conn]bool{}}
	d.wg.Add(1)
	go d.accept()
	return d, nil
}

func (d *scriptDrivers) socket() string { return filepath.Join(d.dir, "spawn.sock") }

// close ends every connection, its driver and its browser, then the warm
// browser.
func (d *scriptDrivers) close() {
	d.cancel()
	d.l.Close()
	d.mu.Lock()
	for c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.wg.Wait()
	if d.warm != nil {
		d.warm.close()
	}
	os.RemoveAll(d.dir)
}

func (d *scriptDrivers) accept() {
	defer d.wg.Done()
	for {
		c, err := d.l.Accept()
		if err != nil {
			return
		}
		d.mu.Lock()
		d.conns[c] = true
		d.mu.Unlock()
		d.wg.Add(1)
		go func() {
			defer d.wg.Done()
			d.serve(c)
			d.mu.Lock()
			delete(d.conns, c)
			d.mu.Unlock()
		}()
	}
}

// serve runs one driver for one connection, its requests and answers
// passing through the checks above.
func (d *scriptDrivers) serve(c net.Conn) {
	defer c.Close()
	so := driver.ServerOptions{Browser: d.opts, HAR: d.har, Probe: d.probe}
	if d.filter {
		// Beneath the filter's check, the driver's own: a link swapped in
		// after the filter looked is not followed out of the workspace.
		so.FileRoot = d.ws
	}
	if d.warm != nil {
		so.Warm = d.warm.devTools
	}
	srv := driver.NewServer(so)
	if !d.filter {
		_ = srv.ServeConn(d.ctx, c, c)
	} else {
		out := &lineWriter{w: c, pending: map[string]string{}, ws: d.ws}
		pr, pw := io.Pipe()
		go func() {
			pw.CloseWithError(d.filterRequests(c, pw, out))
		}()
		_ = srv.ServeConn(d.ctx, pr, out)
		pr.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_ = srv.Close(ctx)
}

// filterRequests passes the client's requests on, refusing what would
// reach beyond the run and taking screenshot paths for wright to write.
func (d *scriptDrivers) filterRequests(c io.Reader, to io.Writer, out *lineWriter) error {
	br := bufio.NewReaderSize(c, 1<<16)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			fwd, refusal := out.check(line)
			if refusal != nil {
				out.writeLine(refusal)
			} else if _, werr := to.Write(fwd); werr != nil {
				return werr
			}
		}
		if err != nil {
			return err
		}
	}
}
