package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"wright/browser"
	"wright/internal/atomicfile"
)

// The driver's one path policy. Every file the driver reads or writes on a
// client's behalf (HAR recordings and archives and their attached bodies,
// traces and their source files, screenshots, videos, downloads saved,
// files given to an <input type=file>) goes through a fileRoot. With
// ServerOptions.FileRoot set, a path must be absolute and lie inside that
// folder, and it is opened from the folder's descriptor with openat2's
// RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS: a link planted in the folder,
// or one swapped in between a check and the write, is never followed.
// The check sits where the driver acts, not in a filter on parameter
// names, so a parameter is a path because of what the handler does with
// it, whatever it is called.

// fileRoot is the folder a server's file access is confined to ("" for a
// driver a user runs by hand: no confinement, as any program of theirs).
type fileRoot struct{ dir string }

// maxRead caps one file the driver reads for a client (an upload, a trace
// source, a HAR or one of its bodies), so that a hostile file cannot
// exhaust the driver's memory.
const maxRead = 512 << 20

// errOutside is the policy's refusal; callers answer it as InvalidParams.
var errOutside = errors.New("outside the folder this driver may use")

// confined says whether the policy restricts anything.
func (r fileRoot) confined() bool { return r.dir != "" }

// rel checks path against the root lexically and returns it relative to
// the root ("." for the root itself).
func (r fileRoot) rel(path string) (string, error) {
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("%q must be an absolute path (the client resolves relative paths)", path)
	}
	path = filepath.Clean(path)
	if !r.confined() {
		return path, nil
	}
	rel, err := filepath.Rel(r.dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s is %w (%s)", path, errOutside, r.dir)
	}
	return rel, nil
}

// refuse turns a policy error into the protocol's InvalidParams answer,
// naming what the path was for.
func refuse(what string, err error) error {
	var be *browser.Error
	if errors.As(err, &be) {
		return err
	}
	return browser.WrapError(browser.ErrInvalidParams, err, "%s: %v", what, err)
}

// check validates a path the driver will hand to code that opens it by
// name (Chromium, ffmpeg): inside the root, and no link on the way to it
// or at it. The file need not exist.
func (r fileRoot) check(what, path string) (string, error) {
	rel, err := r.rel(path)
	if err != nil {
		return "", refuse(what, err)
	}
	if r.confined() {
		if err := r.noLinks(rel); err != nil {
			return "", refuse(what, err)
		}
	}
	return filepath.Clean(path), nil
}

// readFile reads a file inside the root, following no link.
func (r fileRoot) readFile(what, path string) ([]byte, error) {
	f, err := r.open(what, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRead+1))
	if err != nil {
		return nil, refuse(what, fmt.Errorf("read %s: %w", path, err))
	}
	if len(data) > maxRead {
		return nil, refuse(what, fmt.Errorf("%s is over %d MB", path, maxRead>>20))
	}
	return data, nil
}

// open opens a regular file inside the root for reading, following no link.
func (r fileRoot) open(what, path string) (*os.File, error) {
	rel, err := r.rel(path)
	if err != nil {
		return nil, refuse(what, err)
	}
	var f *os.File
	if r.confined() {
		f, err = r.openBeneath(rel)
	} else {
		f, err = os.Open(rel)
	}
	if err != nil {
		return nil, refuse(what, err)
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, refuse(what, fmt.Errorf("%s is not a regular file", path))
	}
	return f, nil
}

// writeFile writes data to path whole or not at all (a temporary file
// beside it, renamed over it), creating the folders on the way.
func (r fileRoot) writeFile(what, path string, data []byte) error {
	rel, err := r.rel(path)
	if err != nil {
		return refuse(what, err)
	}
	if !r.confined() {
		if err := os.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return browser.WrapError(browser.ErrBrowser, err, "%s: %v", what, err)
		}
		if err := atomicfile.Write(rel, data, 0o644); err != nil {
			return browser.WrapError(browser.ErrBrowser, err, "%s: %v", what, err)
		}
		return nil
	}
	if err := r.writeBeneath(rel, data); err != nil {
		if errors.Is(err, errOutside) {
			return refuse(what, err)
		}
		return browser.WrapError(browser.ErrBrowser, err, "%s: %v", what, err)
	}
	return nil
}

// mkdir creates a folder (and those above it) inside the root, following
// no link, for code that writes into it by name (a video's ffmpeg).
func (r fileRoot) mkdir(what, path string) (string, error) {
	rel, err := r.rel(path)
	if err != nil {
		return "", refuse(what, err)
	}
	if !r.confined() {
		if err := os.MkdirAll(rel, 0o755); err != nil {
			return "", browser.WrapError(browser.ErrBrowser, err, "%s: %v", what, err)
		}
		return rel, nil
	}
	if err := r.mkdirBeneath(rel); err != nil {
		return "", refuse(what, err)
	}
	return filepath.Clean(path), nil
}

// rootKey carries a server's fileRoot to the handlers that get no
// connection (the page and locator adapters put it there).
type rootKey struct{}

func withRoot(ctx context.Context, r fileRoot) context.Context {
	return context.WithValue(ctx, rootKey{}, r)
}

// rootOf is the policy the request's context carries. A handler reached
// without one (an in-process caller) gets the unconfined policy.
func rootOf(ctx context.Context) fileRoot {
	r, _ := ctx.Value(rootKey{}).(fileRoot)
	return r
}

// files is the server's policy.
func (s *Server) files() fileRoot {
	if s.opts.FileRoot == "" {
		return fileRoot{}
	}
	return fileRoot{dir: filepath.Clean(s.opts.FileRoot)}
}

// PathParams names, for each method, the params that are files or folders
// of the driver's machine (a string, or a list of them): what the handler
// does with them, whatever they are called. A filter in front of a driver
// (a sandboxed run's) checks them as a second line; the driver's own
// policy is the first.
var PathParams = map[string][]string{
	"page.screenshot":         {"path"},
	"locator.screenshot":      {"path"},
	"locator.set_input_files": {"paths"},
	"download.save_as":        {"path"},
	"har.record_start":        {"path"},
	"har.open":                {"path"},
	"apirequest.har_start":    {"path"},
	"tracing.stop_chunk":      {"path", "traces_dir", "sources"},
	"page.video_start":        {"dir"},
	"page.video_save_as":      {"path"},
}
