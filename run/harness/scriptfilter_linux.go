package harness

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"wright/browser/driver"
)

// What a sandboxed script may ask of its driver: the checks on each request
// (scriptDrivers.serve passes every line through them) and the screenshots
// wright writes on its behalf.

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  map[string]any  `json:"params,omitempty"`
}

// launchOnly are browser.launch params a script may not choose here: the
// executable and flags would run outside the sandbox.
var launchOnly = []string{"executable", "cdp_url", "user_data_dir", "args"}

// lineWriter writes the driver's answers to the client a line at a time,
// writing the screenshots it was asked to save.
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	buf     []byte
	pending map[string]string // request id -> screenshot path
	ws      string
}

// check returns the request to forward, or the error answer to send back.
func (o *lineWriter) check(line []byte) ([]byte, []byte) {
	var req rpcRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return line, nil // the driver answers a malformed request itself
	}
	refuse := func(msg string) []byte {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"error": map[string]any{"code": -32602, "message": msg, "data": map[string]any{"type": "InvalidParams"}}})
		return b
	}
	if req.Method == "browser.launch" {
		for _, k := range launchOnly {
			if v, ok := req.Params[k]; ok && v != nil && v != "" {
				return nil, refuse(fmt.Sprintf("browser.launch: %s cannot be chosen in a sandboxed run (wright starts the browser)", k))
			}
		}
	}
	// The driver confines every file it touches to the workspace itself
	// (driver.ServerOptions.FileRoot, links not followed); this is the
	// second line: the params each method uses as paths, by what they are
	// (driver.PathParams), must name places inside the workspace, and a
	// param named like a path on a method that takes none is refused.
	names, takesPaths := driver.PathParams[req.Method]
	for _, k := range names {
		for _, p := range pathValues(req.Params[k]) {
			if !filepath.IsAbs(p) || !within(filepath.Clean(p), o.ws) {
				return nil, refuse(fmt.Sprintf("%s: %s %q is outside the workspace; in a sandboxed run files are read and written only there", req.Method, k, p))
			}
			if err := noLinkBeneath(o.ws, filepath.Clean(p)); err != nil {
				return nil, refuse(fmt.Sprintf("%s: %s %q: %v; in a sandboxed run files are read and written only in the workspace, through no link", req.Method, k, p, err))
			}
		}
	}
	if !takesPaths {
		for k := range req.Params {
			if pathLike(k) {
				return nil, refuse(fmt.Sprintf("%s: %s is not supported in a sandboxed run", req.Method, k))
			}
		}
	}
	if req.Method != "page.screenshot" && req.Method != "locator.screenshot" {
		return line, nil
	}
	// A screenshot is written by wright here, beneath the workspace.
	p, ok := req.Params["path"].(string)
	if !ok || p == "" {
		return line, nil
	}
	delete(req.Params, "path")
	o.mu.Lock()
	o.pending[string(req.ID)] = filepath.Clean(p)
	o.mu.Unlock()
	b, err := json.Marshal(req)
	if err != nil {
		return nil, refuse(err.Error())
	}
	return append(b, '\n'), nil
}

// pathValues are a param's paths: a string, or the strings of a list
// (anything else is left to the driver, which refuses a wrong type).
func pathValues(v any) []string {
	switch v := v.(type) {
	case string:
		if v != "" {
			return []string{v}
		}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// pathLike says whether a param's name says it is a file or a folder.
func pathLike(k string) bool {
	switch k {
	case "path", "paths", "dir", "file", "files", "sources", "traces_dir":
		return true
	}
	return strings.HasSuffix(k, "_path") || strings.HasSuffix(k, "_paths") || strings.HasSuffix(k, "_dir") || strings.HasSuffix(k, "_file")
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// Write collects the driver's output and handles it a line at a time.
func (o *lineWriter) Write(b []byte) (int, error) {
	o.buf = append(o.buf, b...)
	for {
		i := bytes.IndexByte(o.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		line := append([]byte(nil), o.buf[:i]...)
		o.buf = o.buf[i+1:]
		if err := o.writeLine(o.answer(line)); err != nil {
			return 0, err
		}
	}
}

// answer writes a screenshot the client asked to have saved and answers
// with its path, as the driver would have.
func (o *lineWriter) answer(line []byte) []byte {
	var resp struct {
		ID     json.RawMessage `json:"id"`
		Result map[string]any  `json:"result"`
	}
	if json.Unmarshal(line, &resp) != nil || len(resp.ID) == 0 {
		return line
	}
	o.mu.Lock()
	path, ok := o.pending[string(resp.ID)]
	delete(o.pending, string(resp.ID))
	o.mu.Unlock()
	data, isStr := resp.Result["data"].(string)
	if !ok || !isStr {
		return line
	}
	img, err := base64.StdEncoding.DecodeString(data)
	if err == nil {
		err = writeBeneath(o.ws, path, img)
	}
	var out map[string]any
	if err != nil {
		out = map[string]any{"jsonrpc": "2.0", "id": resp.ID,
			"error": map[string]any{"code": -32000, "message": "save screenshot: " + err.Error(), "data": map[string]any{"type": "Error"}}}
	} else {
		out = map[string]any{"jsonrpc": "2.0", "id": resp.ID, "result": map[string]any{"path": path}}
	}
	b, _ := json.Marshal(out)
	return b
}

func (o *lineWriter) writeLine(b []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := o.w.Write(append(b, '\n'))
	return err
}

// noLinkBeneath says whether path, inside root, is reached without a link:
// the path itself if it exists, else its nearest existing folder. The
// driver checks again as it opens the file (its FileRoot), so a link
// swapped in after this check is refused there.
func noLinkBeneath(root, path string) error {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return err
	}
	dfd, err := unix.Open(root, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(dfd, rel, how)
		if err == nil {
			// O_PATH|O_NOFOLLOW opens a trailing link itself: look at what it is.
			var st unix.Stat_t
			err = unix.Fstat(fd, &st)
			unix.Close(fd)
			if err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				return fmt.Errorf("it is a link")
			}
			return err
		}
		if err != unix.ENOENT || rel == "." {
			if err == unix.ELOOP || err == unix.EXDEV {
				return fmt.Errorf("it goes through a link")
			}
			return err
		}
		rel = filepath.Dir(rel)
	}
}

// writeBeneath writes data to path, which must resolve inside root
// without leaving it through a link (openat2 RESOLVE_BENEATH): the
// workspace is the script's to rearrange while wright writes.
func writeBeneath(root, path string, data []byte) error {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%s is outside the workspace", path)
	}
	dfd, err := unix.Open(root, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat2(dfd, rel, &unix.OpenHow{
		Flags:   unix.O_WRONLY | unix.O_CREAT | unix.O_TRUNC | unix.O_CLOEXEC,
		Mode:    0o644,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	_, err = f.Write(data)
	return err
}
