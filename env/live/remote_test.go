package live

import (
	"bufio"
	"os/exec"
	"regexp"
	"strings"
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
