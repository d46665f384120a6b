package live

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/browser"
)

// fixtureSite serves testdata/site and /submit, which thanks the sender of
// the contact form by name.
func fixtureSite(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join("testdata", "site"))))
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Message sent</title></head><body>
<h1>Thank you, %s</h1><p id="confirm">We will answer at %s.</p><p>Newsletter: %s</p></body></html>`,
			html.EscapeString(q.Get("name")), html.EscapeString(q.Get("email")), html.EscapeString(q.Get("newsletter")))
	})
	// A long catalogue, for the ARIA budget: 400 rows of links and prices.
	mux.HandleFunc("/big.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html lang="en"><head><title>Catalogue</title></head><body><h1>Catalogue</h1><table><caption>All items</caption>`)
		for i := 1; i <= 400; i++ {
			fmt.Fprintf(w, `<tr><td><a href="/item/%d">Item number %d</a></td><td>€%d.99</td><td><button type="button">Add item %d</button></td></tr>`, i, i, i%90+10, i)
		}
		fmt.Fprint(w, `</table></body></html>`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// testRun is a run directory with a workspace and task.json, as wright run
// makes it.
type testRun struct {
	dir, ws, taskJSON string
}

func newTestRun(t testing.TB, startURL string) testRun {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	ws := filepath.Join(dir, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	task := filepath.Join(ws, "task.json")
	b, _ := json.Marshal(map[string]any{"task_id": "fixture", "task": "a fixture task", "start_url": startURL})
	if err := os.WriteFile(task, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return testRun{dir: dir, ws: ws, taskJSON: task}
}

func (r testRun) options(startURL string) Options {
	return Options{
		Workspace:   r.ws,
		TaskJSON:    r.taskJSON,
		StartURL:    startURL,
		Browser:     browser.Options{Timeout: 15 * time.Second}, // room for a loaded machine to open a tab
		StepTimeout: 20 * time.Second,
	}
}

// startEnv starts a live environment at startURL; mod adjusts the options.
func startEnv(t testing.TB, startURL string, mod func(*Options)) (*Env, testRun) {
	t.Helper()
	run := newTestRun(t, startURL)
	opts := run.options(startURL)
	if mod != nil {
		mod(&opts)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e, err := New(ctx, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return e, run
}

// step runs one step and fails the test on an environment error.
// flat is an observation's flat form, as templates and trajectory.json see
// it: the tests read the keys the model reads.
type flat = map[string]any

func step(t testing.TB, e *Env, n int, code string) flat {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	obs, err := e.Execute(ctx, n, code)
	if err != nil {
		t.Fatalf("step %d: %v", n, err)
	}
	return obs.Flat()
}

func str(obs flat, key string) string {
	s, _ := obs[key].(string)
	return s
}

func notices(obs flat) []string {
	n, _ := obs["notices"].([]string)
	return n
}

func hasNotice(obs flat, sub string) bool {
	for _, n := range notices(obs) {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func wantSuccess(t testing.TB, obs flat) {
	t.Helper()
	if obs["success"] != true {
		t.Fatalf("step failed: %s\noutput: %s", str(obs, "exception"), str(obs, "python_output"))
	}
}

func itoa(n int) string { return fmt.Sprint(n) }
