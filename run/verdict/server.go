package verdict

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"wright/internal/atomicfile"
	"wright/model"
	"wright/run/gate"
	"wright/run/judge"
	"wright/run/output"
)

// SocketEnv names the variable that tells `wright reflect` inside a run
// where the harness listens.
const SocketEnv = "WRIGHT_HARNESS_SOCKET"

// Request is what `wright reflect` asks the harness: which run folder to
// judge (relative to the workspace), or the newest run with screenshots
// under RunsDir.
type Request struct {
	RunDir  string `json:"run_dir,omitempty"`
	RunsDir string `json:"runs_dir,omitempty"`
}

// Response is the harness's answer: the sealed verdict as written, where
// it was written, or why there is none.
type Response struct {
	Verdict json.RawMessage `json:"verdict,omitempty"`
	Path    string          `json:"path,omitempty"`
	Error   string          `json:"error,omitempty"`
	// Config marks an error in the judge's configuration (exit 2).
	Config bool `json:"config,omitempty"`
}

// Judge runs the judge for one run's workspace and seals its verdicts.
type Judge struct {
	Workspace string
	Client    model.Client
	// Model and Endpoint are recorded in the verdict.
	Model, Endpoint string
	Sealer          *Sealer
	// Schema, when set, is the run's output schema: a run folder whose
	// result.json breaks it is not judged (judge.ErrInvalidResult).
	Schema *output.Schema
	// OnUsage, when set, gets the tokens and cost of each judgement, so
	// they count toward the run's cost limit.
	OnUsage func(model.Usage)

	mu sync.Mutex // one judgement at a time: they write the same files
}

// Run judges and writes the sealed verdict into the judged run folder.
func (j *Judge) Run(ctx context.Context, req Request) Response {
	j.mu.Lock()
	defer j.mu.Unlock()
	opts := judge.ReflectOptions{Workspace: j.Workspace, Model: j.Model, Endpoint: j.Endpoint, Prompts: judge.DefaultPrompts(), Schema: j.Schema}
	for _, p := range []*string{&req.RunDir, &req.RunsDir} {
		if *p == "" {
			continue
		}
		if err := inside(j.Workspace, *p); err != nil {
			return Response{Error: err.Error(), Config: true}
		}
	}
	opts.RunDir, opts.RunsDir = req.RunDir, req.RunsDir
	// The judge's prompts stay wright's own; a self_reflect_config.json the
	// model wrote reaches the judge only as labelled data, and its images
	// are ignored: the verdict is on the run folder's own screenshots.
	if cfgPath := filepath.Join(j.Workspace, gate.ReflectConfig); fileExists(cfgPath) {
		cfg, err := judge.LoadReflectConfig(cfgPath, j.Workspace)
		if err != nil {
			return Response{Error: err.Error(), Config: true}
		}
		opts.AgentNotes = judge.AgentNotes(cfg.Prompts)
	}
	res, err := judge.Reflect(ctx, j.Client, opts)
	if res != nil && j.OnUsage != nil {
		j.OnUsage(res.Usage)
	}
	if err != nil {
		var cfgErr *judge.ConfigError
		return Response{Error: err.Error(), Config: errors.As(err, &cfgErr)}
	}
	if res.RunDir == "" {
		return Response{Error: "reflect: no run folder was judged"}
	}
	runDir := filepath.Join(j.Workspace, filepath.FromSlash(res.RunDir))
	data, err := json.Marshal(res)
	if err != nil {
		return Response{Error: err.Error()}
	}
	sealed, err := j.Sealer.Sign(data, j.Workspace, runDir)
	if err != nil {
		return Response{Error: err.Error()}
	}
	out := filepath.Join(runDir, gate.VerdictName)
	if err := atomicfile.Write(out, sealed, 0o644); err != nil {
		return Response{Error: err.Error()}
	}
	return Response{Verdict: sealed, Path: out}
}

// Server serves a Judge on a Unix socket.
type Server struct {
	srv  *http.Server
	l    net.Listener
	done chan struct{}
	once sync.Once
}

// Serve listens on socketPath (mode 0600) until Close or ctx ends.
func Serve(ctx context.Context, socketPath string, j *Judge) (*Server, error) {
	_ = os.Remove(socketPath)
	l, err := net.Listen("unix", socketPath)
	if err != nil {
		return nil, fmt.Errorf("harness socket: %w", err)
	}
	if err := os.Chmod(socketPath, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("harness socket: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /reflect", func(w http.ResponseWriter, r *http.Request) {
		var req Request
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
			http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(j.Run(r.Context(), req))
	})
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 30 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}, l: l, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(l)
	}()
	go func() {
		select {
		case <-ctx.Done():
			s.Close()
		case <-s.done:
		}
	}()
	return s, nil
}

// Close stops the server and removes the socket.
func (s *Server) Close() {
	s.once.Do(func() {
		_ = s.srv.Close()
		<-s.done
		_ = os.Remove(s.l.Addr().String())
	})
}

// Ask sends a request to the harness at socketPath.
func Ask(ctx context.Context, socketPath string, req Request) (Response, error) {
	var d net.Dialer
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "unix", socketPath)
	}}}
	body, _ := json.Marshal(req)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://wright-harness/reflect", strings.NewReader(string(body)))
	if err != nil {
		return Response{}, err
	}
	resp, err := client.Do(hreq)
	if err != nil {
		return Response{}, fmt.Errorf("ask the harness to judge: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Response{}, fmt.Errorf("ask the harness to judge: HTTP %d", resp.StatusCode)
	}
	var out Response
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return Response{}, fmt.Errorf("ask the harness to judge: %w", err)
	}
	return out, nil
}

// inside refuses a path that leaves the workspace.
func inside(ws, p string) error {
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(ws, p)
	}
	rel, err := filepath.Rel(ws, filepath.Clean(abs))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("reflect: %s is outside the workspace", p)
	}
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
