package python

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/internal/peerpages"
)

// TestTraceViewer records a trace of a small session with the Python client
// (goto, fill, click, console messages, a fetch) and opens it in Playwright's
// own trace viewer, npm's playwright-core (peerpages.PlaywrightCoreVersion),
// served on 127.0.0.1 with the trace: the viewer must list the actions and
// render their DOM snapshots, the console messages and the network requests
// (testdata/scripts/trace_viewer.py holds the checks).
func TestTraceViewer(t *testing.T) {
	needWright(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	viewerDir, err := peerpages.TraceViewer(ctx)
	if errors.Is(err, peerpages.ErrUnavailable) {
		t.Skipf("Playwright's trace viewer cannot be installed here (make deps installs npm): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	tracePath := filepath.Join(t.TempDir(), "trace.zip")
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(viewerDir)))
	mux.HandleFunc("/trace.zip", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, tracePath)
	})
	viewer := httptest.NewServer(mux) // on 127.0.0.1: a service worker needs a secure origin
	defer viewer.Close()

	stdout, stderr, tmp, err := script{name: "trace_viewer.py", fixture: fixtureServer(t),
		env: map[string]string{"TRACE_PATH": tracePath, "VIEWER_URL": viewer.URL}}.run(t)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(stdout), "OK") {
		t.Fatalf("trace_viewer.py: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	assertNothingLeft(t, tmp, 0)
}

// TestTraceFromEnvironment: WRIGHT_TRACE (gate.trace) has a script that
// knows nothing of tracing leave a trace of its browser's contexts, with
// the script's source, and snapshots free of the page's scripts, handlers
// and password values (testdata/scripts/trace_env.py).
func TestTraceFromEnvironment(t *testing.T) {
	needWright(t)
	tracePath := filepath.Join(t.TempDir(), "run_1", "trace.zip")
	stdout, stderr, tmp, err := script{name: "trace_env.py", fixture: fixtureServer(t),
		env: map[string]string{"WRIGHT_TRACE": tracePath}}.run(t)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(stdout), "OK") {
		t.Fatalf("trace_env.py: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	assertNothingLeft(t, tmp, 0)
}
