package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

//go:embed driver.mjs
var driverJS []byte

// npmPackages are the client and the peer server, pinned: a new pin is a
// new cache folder.
var npmPackages = []string{"@modelcontextprotocol/sdk@1.32.2", "@playwright/mcp@0.0.86"}

// installClients puts the npm packages and driver.mjs into a cache folder
// (once) and returns it. The install goes to a fresh folder renamed into
// place whole, so a second run never sees half of one. No browser is
// downloaded: scripts are not run, and the peer is given the system
// Chromium.
func installClients(ctx context.Context, root string) (string, error) {
	sum := sha256.Sum256([]byte(strings.Join(npmPackages, " ")))
	final := filepath.Join(root, hex.EncodeToString(sum[:8]))
	marker := filepath.Join(final, "node_modules", "@playwright", "mcp", "package.json")
	if _, err := os.Stat(marker); err != nil {
		if err := os.MkdirAll(root, 0o755); err != nil {
			return "", fmt.Errorf("make %s: %w", root, err)
		}
		tmp, err := os.MkdirTemp(root, ".install-")
		if err != nil {
			return "", fmt.Errorf("make an install folder: %w", err)
		}
		defer os.RemoveAll(tmp)
		if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"name":"wright-mcpcompare","private":true,"type":"module"}`+"\n"), 0o644); err != nil {
			return "", err
		}
		fmt.Fprintf(os.Stderr, "mcpcompare: installing %s into %s\n", strings.Join(npmPackages, " "), root)
		args := append([]string{"install", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"}, npmPackages...)
		cmd := exec.CommandContext(ctx, "npm", args...)
		cmd.Dir = tmp
		cmd.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("npm install %s: %w\n%s", strings.Join(npmPackages, " "), err, out)
		}
		if err := os.Rename(tmp, final); err != nil {
			if _, serr := os.Stat(marker); serr != nil {
				return "", fmt.Errorf("move the install into %s: %w", final, err)
			}
		}
	}
	// The driver sits beside node_modules so its imports resolve; named
	// by its content, so an edited driver is a new file.
	dsum := sha256.Sum256(driverJS)
	driver := filepath.Join(final, "driver-"+hex.EncodeToString(dsum[:6])+".mjs")
	if _, err := os.Stat(driver); err != nil {
		tmp := fmt.Sprintf("%s.tmp%d", driver, os.Getpid())
		if err := os.WriteFile(tmp, driverJS, 0o644); err != nil {
			return "", err
		}
		if err := os.Rename(tmp, driver); err != nil {
			return "", err
		}
	}
	return final, nil
}

// driver is the running driver.mjs.
type driver struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	next    int
	exited  chan struct{} // closed once the process has been waited for
	waitErr error
}

func startDriver(ctx context.Context, dir string) (*driver, error) {
	dsum := sha256.Sum256(driverJS)
	script := filepath.Join(dir, "driver-"+hex.EncodeToString(dsum[:6])+".mjs")
	// Not CommandContext: the driver is ended by closing its stdin, which
	// closes both servers first; close kills it only if that hangs.
	cmd := exec.Command("node", script)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start node %s: %w", script, err)
	}
	d := &driver{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 4<<20), exited: make(chan struct{})}
	go func() {
		d.waitErr = cmd.Wait()
		close(d.exited)
	}()
	go func() {
		// A Ctrl-C ends the client, and with it the servers.
		select {
		case <-ctx.Done():
			in.Close()
		case <-d.exited:
		}
	}()
	return d, nil
}

// close ends the driver: stdin closed, the servers closed by it, then
// the process; killed after a grace period.
func (d *driver) close() error {
	d.in.Close()
	select {
	case <-d.exited:
		return d.waitErr
	case <-time.After(30 * time.Second):
		d.cmd.Process.Kill()
		<-d.exited
		return fmt.Errorf("the MCP client did not end within 30 s: killed")
	}
}

// request sends one request and decodes its answer into out.
func (d *driver) request(req map[string]any, out any) error {
	d.next++
	req["id"] = d.next
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := d.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("write to the MCP client: %w", err)
	}
	line, err := d.out.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("read from the MCP client (%v %v): %w", req["op"], req["tool"], err)
	}
	var head struct {
		ID    int    `json:"id"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return fmt.Errorf("the MCP client's answer: %w: %s", err, line)
	}
	if head.ID != d.next {
		return fmt.Errorf("the MCP client answered request %d, not %d", head.ID, d.next)
	}
	if head.Error != "" {
		return errors.New(head.Error)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(line, out)
}

// callResult is a tools/call as the client saw it.
type callResult struct {
	MS     float64 `json:"ms"`
	Chars  int     `json:"chars"`
	Result struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	} `json:"result"`
}

// text is the text parts of the result, joined.
func (c callResult) text() string {
	var parts []string
	for _, p := range c.Result.Content {
		if p.Type == "text" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n")
}
