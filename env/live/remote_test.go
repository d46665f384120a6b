package live

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"wright/browser"
)

var devtoolsLine = regexp.MustCompile(`DevTools listening on (ws://\S+)`)

// remoteChromium starts a Chromium the test owns, as a grid would serve
// one, and returns its DevTools WebSocket URL, read from its stderr.
func remoteChromium(t *testing.T) string {
	t.Helper()
	exe, err := browser.FindExecutable("")
	if err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	cmd := exec.Command(exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--remote-debugging-port=0", "--user-data-dir="+t.TempDir(), "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devtoolsLine.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		// Chromium blocks if nobody drains its stderr.
		for sc.Scan() {
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("Chromium printed no DevTools URL within 60s")
		return ""
	}
}

// TestRemoteBrowserRunsAreIsolated runs two live environments, one after the
// other, on one remote browser: the second must find none of the first's
// cookies or local storage, which it would in the shared default context.
func TestRemoteBrowserRunsAreIsolated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs browsers")
	}
	site := fixtureSite(t)
	remote := remoteChromium(t)
	attach := func(o *Options) { o.Browser.CDPURL = remote }

	first, _ := startEnv(t, site.URL+"/", attach)
	obs := step(t, first, 1, `page.evaluate("() => { document.cookie = 'who=first; max-age=3600'; localStorage.setItem('who', 'first') }")
print("set", page.evaluate("() => document.cookie"), page.context.cookies()[0]["value"])`)
	if out := str(obs, "python_output"); !strings.Contains(out, "set who=first first") {
		t.Fatalf("the first run could not set its cookie: %q (%v)", out, obs)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second, _ := startEnv(t, site.URL+"/", attach)
	obs = step(t, second, 1, `print("cookie=%r storage=%r" % (page.evaluate("() => document.cookie"), page.evaluate("() => localStorage.getItem('who')")))`)
	if out := str(obs, "python_output"); !strings.Contains(out, "cookie='' storage=None") {
		t.Errorf("the second run on the same remote browser saw the first's state: %q", out)
	}
}

// TestSharedBrowserRunsSeeOnlyTheirOwn runs two live environments at once
// on one browser on this machine, as the bench shares one: each sees only
// its own context and page (not the other's tab), and each one's traffic
// goes through its own policy proxy, set on its context: a fetch to a host
// its allowed domains do not name is refused, though the browser itself
// has no proxy.
func TestSharedBrowserRunsSeeOnlyTheirOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs browsers")
	}
	site := fixtureSite(t)
	remote := remoteChromium(t)
	shared := func(o *Options) {
		o.Browser.CDPURL, o.SharedBrowser = remote, true
		o.BlockedDomains = []string{"localhost"}
	}
	first, _ := startEnv(t, site.URL+"/", shared)
	second, _ := startEnv(t, site.URL+"/", shared)
	step(t, first, 1, `page.context.new_page()`)
	count := `print("contexts=%d pages=%d" % (len(browser.contexts), sum(len(c.pages) for c in browser.contexts)))`
	if out := str(step(t, first, 2, count), "python_output"); !strings.Contains(out, "contexts=1 pages=2") {
		t.Errorf("the first run sees %q, want its own context and two pages", out)
	}
	if out := str(step(t, second, 1, count), "python_output"); !strings.Contains(out, "contexts=1 pages=1") {
		t.Errorf("the second run sees %q, want its own context and page only", out)
	}
	// Another site, on a host the policy blocks: were the context
	// not behind the run's proxy, the request would reach it.
	var hits atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(other.Close)
	port := other.URL[strings.LastIndex(other.URL, ":")+1:]
	probe := `print(page.evaluate("async (u) => { try { await fetch(u, {mode: 'no-cors'}); return 'sent' } catch (e) { return 'refused' } }", "http://localhost:` + port + `/"))`
	out := str(step(t, second, 2, probe), "python_output")
	if n := hits.Load(); n != 0 {
		t.Errorf("a fetch to a blocked host reached it %d times: %q", n, out)
	}
}
