package python

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	pngenc "image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/browser/har"
	"wright/internal/peerpages"
)

// harSite is a page with a stylesheet, a script that fetches JSON, an
// image and a POST echo: every kind of entry a replay must answer.
func harSite(t *testing.T) *httptest.Server {
	t.Helper()
	var png bytes.Buffer
	if err := pngenc.Encode(&png, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/page.html", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Recorded</title><link rel=stylesheet href=style.css>`+
			`<img src=pixel.png><p id=data></p><script src=app.js></script>`)
	})
	mux.HandleFunc("/style.css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, "body { background: rgb(255, 192, 203) }")
	})
	mux.HandleFunc("/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "fetch('/data.json').then(r => r.json()).then(d => { document.querySelector('#data').textContent = d.word })")
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"word": "served live"}`)
	})
	mux.HandleFunc("/pixel.png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(png.Bytes())
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "echo:%s", b)
	})
	return httptest.NewServer(mux)
}

// TestHARReplayOffline records a page into a HAR, stops the server, and
// replays the page from the HAR alone: it shows the same. The full HAR of
// the same visit must pass har-validator, the HAR 1.2 schema check from
// npm that no one here wrote (the test installs it, as the npm pages are).
func TestHARReplayOffline(t *testing.T) {
	needWright(t)
	srv := harSite(t)
	dir := t.TempDir()
	zipPath, fullPath := filepath.Join(dir, "visit.har.zip"), filepath.Join(dir, "visit.har")
	recorded, stderr, _, err := script{name: "har.py", args: []string{"record", zipPath, fullPath}, fixture: srv.URL}.run(t)
	srv.Close()
	if err != nil || !strings.HasSuffix(strings.TrimSpace(recorded), "OK") {
		t.Fatalf("record: %v\n%s\n%s", err, recorded, stderr)
	}
	lines := strings.Split(strings.TrimSpace(recorded), "\n")
	if len(lines) != 3 || lines[0] != lines[1] || !strings.Contains(lines[0], "served live") || !strings.Contains(lines[0], "echo:two") {
		t.Fatalf("the recorded visits differ or miss something:\n%s", recorded)
	}
	replayed, stderr, _, err := script{name: "har.py", args: []string{"replay", zipPath}, fixture: srv.URL}.run(t)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(replayed), "OK") {
		t.Fatalf("replay: %v\n%s\n%s", err, replayed, stderr)
	}
	if got := strings.SplitN(replayed, "\n", 2)[0]; got != lines[0] {
		t.Fatalf("the replay shows another page:\nrecorded %s\nreplayed %s", lines[0], got)
	}
	checkHARFile(t, fullPath)
	validateHAR(t, fullPath)
}

// checkHARFile reads the full HAR back with the package's own reader.
func checkHARFile(t *testing.T, path string) {
	t.Helper()
	a, err := har.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	urls := map[string]bool{}
	for _, e := range a.Log.Entries {
		urls[e.Request.URL[strings.LastIndex(e.Request.URL, "/"):]] = true
	}
	for _, want := range []string{"/page.html", "/style.css", "/app.js", "/data.json", "/pixel.png", "/echo"} {
		if !urls[want] {
			t.Errorf("the HAR has no entry for %s (it has %v)", want, urls)
		}
	}
	if len(a.Log.Pages) == 0 || a.Log.Browser == nil {
		t.Errorf("a full HAR names its pages and browser: %+v", a.Log.Browser)
	}
}

// validateHAR runs har-validator on the file with node.
func validateHAR(t *testing.T, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	modules, err := peerpages.HARValidator(ctx)
	if errors.Is(err, peerpages.ErrUnavailable) {
		t.Skipf("the HAR's schema check needs npm (make deps installs it): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("the HAR's schema check needs node (make deps installs it)")
	}
	js := `const fs = require('fs'); const v = require('har-validator');
v.har(JSON.parse(fs.readFileSync(process.argv[1], 'utf8')))
  .then(() => console.log('valid'))
  .catch(e => { console.log(JSON.stringify(e.errors || e.message, null, 1)); process.exit(1); });`
	cmd := exec.CommandContext(ctx, node, "-e", js, path)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "valid" {
		t.Fatalf("har-validator refuses the HAR: %v\n%s", err, out)
	}
}
