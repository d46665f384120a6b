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
	"wright/internal/scratch"
)

// DriverSpawnEnv names the socket at which a sandboxed workspace run's
// scripts get their browsers from wright (the Python client's launch()
// connects there instead of starting `wright driver` itself).
const DriverSpawnEnv = "WRIGHT_DRIVER_SPAWN"

// scriptDrivers serves the browsers of a sandboxed workspace run's scripts
// from wright's own process, outside the sandbox: each connection gets a
// driver and a Chromium of its own, ended when it ends. That is where the
// run's secrets are typed (browser.Options.Secrets), so their values never
// enter the sandbox. What a script may ask of such a driver is narrowed to
// what cannot reach beyond the run: wright picks the browser, its flags and
// its profile; a screenshot is written only inside the workspace, by wright,
// without following links out of it.
type scriptDrivers struct {
	ws     string
	opts   browser.Options
	har    driver.HAROptions
	dir    string
	l      net.Listener
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  map[net.Conn]bool
}

func startScriptDrivers(ws string, opts browser.Options, har driver.HAROptions) (*scriptDrivers, error) {
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
	d := &scriptDrivers{ws: abs, opts: opts, har: har, dir: dir, l: l, ctx: ctx, cancel: cancel, conns: map[net.Conn]bool{}}
	d.wg.Add(1)
	go d.accept()
	return d, nil
}

func (d *scriptDrivers) socket() string { return filepath.Join(d.dir, "spawn.sock") }

// close ends every connection, its driver and its browser.
func (d *scriptDrivers) close() {
	d.cancel()
	d.l.Close()
	d.mu.Lock()
	for c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.wg.Wait()
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
	srv := driver.NewServer(driver.ServerOptions{Browser: d.opts, HAR: d.har})
	out := &lineWriter{w: c, pending: map[string]string{}, ws: d.ws}
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(d.filterRequests(c, pw, out))
	}()
	_ = srv.ServeConn(d.ctx, pr, out)
	pr.Close()
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
