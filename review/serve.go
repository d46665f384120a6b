package review

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path"
	"strings"
	"time"
)

// CheckAddr refuses to serve on anything but loopback unless public is set:
// trajectories hold what the agent saw, which may be private.
func CheckAddr(addr string, public bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("review: address %q: %w (want HOST:PORT, e.g. 127.0.0.1:8080)", addr, err)
	}
	if public || isLoopback(host) {
		return nil
	}
	return fmt.Errorf("review: %s is not a loopback address; a run's pages can hold private data: pass --public to serve them on it anyway", addr)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// NewToken is the random secret a served URL carries.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("review: token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Handler serves a run's or a bench's pages under /<token>/. It answers
// only requests that carry the token and, unless Public, name a loopback
// host in their Host header, so a page on another site cannot reach it
// through DNS rebinding.
type Handler struct {
	Dir    string
	Token  string
	Public bool
	// Redactor, when set, masks secrets in pages and text files.
	Redactor *Redactor
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	hdr := w.Header()
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Cache-Control", "no-store")
	if !h.Public && !loopbackHost(req.Host) {
		http.Error(w, "wrong Host header: use the URL wright printed", http.StatusForbidden)
		return
	}
	rest, ok := h.strip(req.URL.Path)
	if !ok {
		http.Error(w, "not found: use the URL wright printed, with its token", http.StatusNotFound)
		return
	}
	if req.Method != http.MethodGet && req.Method != http.MethodHead {
		http.Error(w, "read only", http.StatusMethodNotAllowed)
		return
	}
	base := "/" + h.Token + "/"
	switch {
	case rest == "":
		h.index(w, base)
	case rest == "version":
		fmt.Fprint(w, fingerprint(h.Dir))
	case strings.HasPrefix(rest, "version/"):
		sub, ok := h.sub(strings.TrimPrefix(rest, "version/"))
		if !ok {
			http.NotFound(w, req)
			return
		}
		fmt.Fprint(w, fingerprint(sub))
	case strings.HasPrefix(rest, "file/"):
		h.file(w, req, strings.TrimPrefix(rest, "file/"))
	case strings.HasPrefix(rest, "run/"):
		rel := strings.TrimSuffix(strings.TrimPrefix(rest, "run/"), "/")
		sub, ok := h.sub(rel)
		if !ok || !IsRunDir(sub) {
			http.NotFound(w, req)
			return
		}
		h.runPage(w, sub, HTMLOptions{FileBase: base + "file/" + rel + "/", PollURL: base + "version/" + rel, Up: base, Attempt: attemptAt(h.Dir, rel)})
	default:
		http.NotFound(w, req)
	}
}

// strip checks the token at the start of the path, in constant time.
func (h *Handler) strip(p string) (string, bool) {
	p = strings.TrimPrefix(p, "/")
	tok, rest, _ := strings.Cut(p, "/")
	if h.Token == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(h.Token)) != 1 {
		return "", false
	}
	return rest, true
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	return isLoopback(strings.Trim(host, "[]"))
}

// sub resolves a path below the served directory; nothing outside it.
func (h *Handler) sub(rel string) (string, bool) {
	clean := path.Clean("/" + rel)
	if clean == "/" {
		return "", false
	}
	p, err := Resolve(h.Dir, strings.TrimPrefix(clean, "/"))
	if err != nil {
		return "", false
	}
	return p, true
}

func (h *Handler) index(w http.ResponseWriter, base string) {
	version := fingerprint(h.Dir)
	if IsBenchDir(h.Dir) {
		b, err := LoadBench(h.Dir)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var buf bytes.Buffer
		err = WriteBenchHTML(&buf, b, HTMLOptions{FileBase: base + "file/", PollURL: base + "version", Version: version,
			RunLink: func(rel string) string { return base + "run/" + rel + "/" }})
		h.send(w, buf.Bytes(), err)
		return
	}
	h.runPage(w, h.Dir, HTMLOptions{FileBase: base + "file/", PollURL: base + "version"})
}

func (h *Handler) runPage(w http.ResponseWriter, dir string, o HTMLOptions) {
	o.Version = fingerprint(dir)
	r, err := LoadRun(dir)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	var buf bytes.Buffer
	err = WriteRunHTML(&buf, r, o)
	h.send(w, buf.Bytes(), err)
}

func (h *Handler) send(w http.ResponseWriter, page []byte, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(h.Redactor.Redact(page))
}

// file serves one file below the directory, through os.Root so that no
// path or symlink leads outside it.
func (h *Handler) file(w http.ResponseWriter, req *http.Request, rel string) {
	clean := strings.TrimPrefix(path.Clean("/"+rel), "/")
	f, err := Open(h.Dir, clean)
	if err != nil {
		http.NotFound(w, req)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.IsDir() {
		http.NotFound(w, req)
		return
	}
	switch strings.ToLower(path.Ext(clean)) {
	case ".png", ".jpg", ".jpeg":
		http.ServeContent(w, req, fi.Name(), fi.ModTime(), f)
		return
	case ".webm":
		// A final run's video (gate.video). The system's MIME table may call
		// .webm audio; ServeContent answers the range requests players make.
		w.Header().Set("Content-Type", "video/webm")
		http.ServeContent(w, req, fi.Name(), fi.ModTime(), f)
		return
	}
	// Anything else is shown as text, with secrets masked.
	b, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		http.Error(w, "cannot read the file", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write(h.Redactor.Redact(b))
}

// fingerprint changes whenever a run or bench writes something a page shows.
func fingerprint(dir string) string {
	var b strings.Builder
	top, _ := os.ReadDir(dir) // a bench's new attempt folders
	fmt.Fprintf(&b, "top:%d;", len(top))
	stat := func(rel string) {
		if fi, err := Stat(dir, rel); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", rel, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	for _, f := range []string{"trajectory.json", "result.json", "compactions.jsonl", "runtime_errors.jsonl",
		"results.jsonl", "summary.json", "workspace/plan.md", "workspace/final_script.py"} {
		stat(f)
	}
	for _, d := range []string{"debug/steps", "workspace/final_runs"} {
		entries, _ := ReadDir(dir, d)
		fmt.Fprintf(&b, "%s:%d;", d, len(entries))
		for _, e := range entries {
			if e.IsDir() {
				sub, _ := ReadDir(dir, d+"/"+e.Name())
				fmt.Fprintf(&b, "%s:%d;", e.Name(), len(sub))
				stat(d + "/" + e.Name() + "/self_reflect_result.json")
			}
		}
	}
	return b.String()
}

// NewServer is an http.Server for the handler with timeouts set.
func NewServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
}
