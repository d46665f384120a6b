package aria

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"text/template"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
)

// The tests drive a real Chromium found on PATH (or WRIGHT_BROWSER), one
// per isolation mode, shared by the whole package and ended in TestMain.

var (
	browsersMu sync.Mutex
	browsers   = map[bool]*testBrowser{} // keyed by "site isolation on"
	server     *httptest.Server
)

type testBrowser struct {
	browser  *rod.Browser
	launcher *launcher.Launcher
	dataDir  string
	err      error
}

func TestMain(m *testing.M) {
	server = httptest.NewServer(fixtureHandler())
	code := m.Run()
	server.Close()
	browsersMu.Lock()
	for _, b := range browsers {
		if b.browser != nil {
			_ = b.browser.Close()
		}
		if b.launcher != nil {
			b.launcher.Kill()
			b.launcher.Cleanup()
		}
		if b.dataDir != "" {
			_ = os.RemoveAll(b.dataDir)
		}
	}
	browsersMu.Unlock()
	os.Exit(code)
}

func chromiumPath() (string, error) {
	if p := os.Getenv("WRIGHT_BROWSER"); p != "" {
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on PATH (set WRIGHT_BROWSER)")
}

// getBrowser returns the shared browser. With isolate, cross-site iframes
// run out of process (Chrome's default); without, rod's launcher defaults
// keep them in the page's renderer.
func getBrowser(t testing.TB, isolate bool) *rod.Browser {
	t.Helper()
	browsersMu.Lock()
	defer browsersMu.Unlock()
	if b, ok := browsers[isolate]; ok {
		if b.err != nil {
			t.Fatalf("browser: %v", b.err)
		}
		return b.browser
	}
	b := &testBrowser{}
	browsers[isolate] = b
	b.err = func() error {
		bin, err := chromiumPath()
		if err != nil {
			return err
		}
		b.dataDir, err = os.MkdirTemp("", "aria-test-chromium-")
		if err != nil {
			return err
		}
		l := launcher.New().Bin(bin).Leakless(false).Headless(true).UserDataDir(b.dataDir).
			Set("no-sandbox").Set("disable-gpu").Set("no-first-run").
			Set("disable-background-networking").Set("disable-component-update").Set("disable-sync")
		if isolate {
			l = l.Delete("disable-features").Delete("disable-site-isolation-trials").Set("site-per-process")
		}
		b.launcher = l
		u, err := l.Launch()
		if err != nil {
			return fmt.Errorf("launch chromium: %w", err)
		}
		b.browser = rod.New().ControlURL(u)
		if err := b.browser.Connect(); err != nil {
			return fmt.Errorf("connect chromium: %w", err)
		}
		b.browser = b.browser.NoDefaultDevice()
		return nil
	}()
	if b.err != nil {
		t.Fatalf("browser: %v", b.err)
	}
	return b.browser
}

// fixtureHandler serves testdata. HTML files are templates whose {{.Cross}}
// is the same server under another host name: another site, so Chromium
// treats its frames as cross-origin (and, with isolation, out of process).
func fixtureHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" {
			name = "refs.html"
		}
		body, err := os.ReadFile(filepath.Join("testdata", filepath.Clean(name)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		_, port, _ := net.SplitHostPort(r.Host)
		cross := "http://localhost:" + port
		if strings.HasPrefix(r.Host, "localhost") {
			cross = "http://127.0.0.1:" + port
		}
		tpl, err := template.New(name).Parse(string(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var buf bytes.Buffer
		if err := tpl.Execute(&buf, map[string]string{"Cross": cross}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(buf.Bytes())
	})
}

// openPage opens fixture name in a new tab of the shared browser.
func openPage(t testing.TB, isolate bool, name string) (*rod.Page, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	b := getBrowser(t, isolate)
	page, err := b.Context(ctx).Page(proto.TargetCreateTarget{})
	if err != nil {
		t.Fatalf("open page: %v", err)
	}
	t.Cleanup(func() { _ = page.Context(context.Background()).Close() })
	navigate(t, page, ctx, server.URL+"/"+name)
	return page.Context(context.Background()), ctx
}

func navigate(t testing.TB, page *rod.Page, ctx context.Context, url string) {
	t.Helper()
	p := page.Context(ctx)
	wait := p.WaitNavigation("load")
	if err := p.Navigate(url); err != nil {
		t.Fatalf("navigate %s: %v", url, err)
	}
	wait()
	if err := p.WaitLoad(); err != nil {
		t.Fatalf("wait load %s: %v", url, err)
	}
}

func snapshot(t testing.TB, ctx context.Context, page *rod.Page, reg *Registry, opts Options) string {
	t.Helper()
	out, err := Snapshot(ctx, page, reg, opts)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return out
}

// assertSnapshot compares a snapshot with the expected text (leading
// newline and common indentation of the literal ignored).
func assertSnapshot(t testing.TB, got, want string) {
	t.Helper()
	want = dedent(want)
	if got != want {
		t.Errorf("snapshot mismatch\n--- got:\n%s\n--- want:\n%s", got, want)
	}
}

func dedent(s string) string {
	s = strings.TrimPrefix(s, "\n")
	lines := strings.Split(strings.TrimRight(s, "\n\t "), "\n")
	min := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if min < 0 || n < min {
			min = n
		}
	}
	for i, l := range lines {
		if len(l) >= min && min > 0 {
			lines[i] = l[min:]
		}
	}
	return strings.Join(lines, "\n")
}
