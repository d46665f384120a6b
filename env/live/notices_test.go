package live

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// One browser for the notice tests: each subtest goes on from where the
// last one left the page.
func TestNotices(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", nil)
	n := 0
	run := func(t *testing.T, code string) map[string]any {
		t.Helper()
		n++
		return step(t, e, n, code)
	}

	t.Run("navigation", func(t *testing.T) {
		obs := run(t, "page.get_by_role('link', name='Products').click()")
		wantSuccess(t, obs)
		if !hasNotice(obs, "The page moved to "+site.URL+"/products.html since the last step (it was at "+site.URL+"/)") {
			t.Errorf("notices %q", notices(obs))
		}
		obs = run(t, "print(page.title())")
		if len(notices(obs)) != 0 {
			t.Errorf("a step that stayed put has notices: %q", notices(obs))
		}
	})

	t.Run("dialog", func(t *testing.T) {
		wantSuccess(t, run(t, "page.goto('"+site.URL+"/order.html')"))
		obs := run(t, "page.get_by_role('button', name='Cancel order').click()\nprint(page.get_by_role('status').inner_text())")
		wantSuccess(t, obs)
		if !hasNotice(obs, `A dialog was handled: confirm "Cancel the order?"`) {
			t.Errorf("notices %q", notices(obs))
		}
		if str(obs, "python_output") != "Order cancelled" {
			t.Errorf("output %q", obs["python_output"])
		}
	})

	t.Run("console errors", func(t *testing.T) {
		obs := run(t, "page.get_by_role('button', name='Place order').click()  # no size yet")
		if c := str(obs, "console_output"); !strings.Contains(c, "[error] no size chosen") {
			t.Errorf("console_output %q", c)
		}
	})

	t.Run("loop", func(t *testing.T) {
		code := "page.get_by_role('button', name='Place order').click()"
		for i := 1; i <= 2; i++ {
			if obs := run(t, code); hasNotice(obs, "same code") {
				t.Fatalf("loop notice after %d runs: %q", i+1, notices(obs))
			}
		}
		obs := run(t, code)
		if !hasNotice(obs, "The same code has now run 3 times in a row and the page did not change") {
			t.Errorf("notices %q", notices(obs))
		}
		// Progress resets it.
		obs = run(t, "page.get_by_label('Size').select_option('42')\n"+code)
		if hasNotice(obs, "same code") {
			t.Errorf("loop notice after a change: %q", notices(obs))
		}
	})

	t.Run("new tab and page errors", func(t *testing.T) {
		obs := run(t, "page.goto('"+site.URL+"/popup.html')")
		if c := str(obs, "console_output"); !strings.Contains(c, "[pageerror]") || !strings.Contains(c, "offers widget failed") {
			t.Errorf("console_output %q", c)
		}
		obs = run(t, "with page.expect_popup() as info:\n    page.get_by_role('link', name='See all products').click()\ninfo.value.wait_for_load_state()")
		wantSuccess(t, obs)
		if !hasNotice(obs, "A new tab opened during this step: tab 1 at "+site.URL+"/products.html") {
			t.Errorf("notices %q", notices(obs))
		}
		tabs, _ := obs["tabs"].([]map[string]any)
		if len(tabs) != 2 || tabs[0]["current"] != true || tabs[1]["title"] != "Products" {
			t.Errorf("tabs %v", tabs)
		}
		// Switching tabs in code moves the observation along.
		obs = run(t, "page = browser.pages[1]")
		if str(obs, "url") != site.URL+"/products.html" || !hasNotice(obs, "The page moved to "+site.URL+"/products.html") {
			t.Errorf("url %q notices %q", obs["url"], notices(obs))
		}
		// Closing the current tab rebinds `page` to the one left.
		obs = run(t, "page.close()")
		wantSuccess(t, obs)
		if !hasNotice(obs, "The tab `page` pointed to is closed; `page` now points to the tab at "+site.URL+"/popup.html") {
			t.Errorf("notices %q", notices(obs))
		}
		obs = run(t, "print(page.title())")
		if str(obs, "python_output") != "Offers" {
			t.Errorf("page not rebound: %q %s", obs["python_output"], obs["exception"])
		}
	})

	t.Run("page reassigned to something else", func(t *testing.T) {
		obs := run(t, "page = 'oops'")
		if !hasNotice(obs, "`page` no longer names an open tab") || str(obs, "url") != site.URL+"/popup.html" {
			t.Errorf("url %q notices %q", obs["url"], notices(obs))
		}
		wantSuccess(t, run(t, "page = browser.pages[0]"))
	})

	t.Run("browser.close only disconnects", func(t *testing.T) {
		obs := run(t, "browser.close()")
		wantSuccess(t, obs)
		obs = run(t, "print(page.title(), browser.is_connected())")
		wantSuccess(t, obs)
		if str(obs, "python_output") != "Offers True" || !hasNotice(obs, "connected again") {
			t.Errorf("output %q notices %q", obs["python_output"], notices(obs))
		}
	})
}

func TestURLPolicyInTheBrowser(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", func(o *Options) {
		o.AllowedDomains = []string{"*.example.com"}
		o.BlockedDomains = []string{"ads.example.com", "localhost"}
	})
	cases := []struct{ url, want string }{
		{"http://elsewhere.test/", "host elsewhere.test is not in browser.allowed_domains (*.example.com)"},
		{"http://ads.example.com/", `matches "ads.example.com" in browser.blocked_domains`},
		{"file:///etc/passwd", "file: URLs are not allowed"},
		{"http://169.254.169.254/latest/meta-data/", "link-local or cloud metadata"},
		{"chrome://settings", "chrome: URLs are not allowed"},
	}
	for i, c := range cases {
		obs := step(t, e, i+1, "page.goto('"+c.url+"')")
		exc := str(obs, "exception")
		if obs["success"] != false || !strings.Contains(exc, "BlockedURL") || !strings.Contains(exc, c.want) {
			t.Errorf("%s: exception %q", c.url, exc)
		}
		if str(obs, "url") != site.URL+"/" {
			t.Errorf("%s: the page moved to %q", c.url, obs["url"])
		}
	}
	// Links, redirects and scripts are held to it too, not only goto. The
	// fixture site is also reachable as localhost, which this run blocks:
	// the page must not load.
	blocked := strings.Replace(site.URL, "127.0.0.1", "localhost", 1) + "/products.html"
	obs := step(t, e, 10, "page.evaluate(\"() => { location.href = '"+blocked+"' }\")\npage.wait_for_timeout(500)")
	if strings.Contains(str(obs, "aria_snapshot"), "Trail runner") {
		t.Errorf("the blocked page loaded:\n%s", obs["aria_snapshot"])
	}
	if !strings.Contains(str(obs, "console_output"), "blocked a navigation to "+blocked) {
		t.Errorf("console %q", obs["console_output"])
	}
	if !hasNotice(obs, "A navigation to "+blocked+` was blocked: host localhost matches "localhost" in browser.blocked_domains`) {
		t.Errorf("notices %q", notices(obs))
	}
	obs = step(t, e, 11, "page.go_back()\nprint(page.title())")
	if str(obs, "python_output") != "Fixture shop" {
		t.Errorf("go_back after a blocked navigation: %q %s", obs["python_output"], obs["exception"])
	}
}

func TestOutputIsTruncatedAndLogged(t *testing.T) {
	site := fixtureSite(t)
	e, run := startEnv(t, site.URL+"/", func(o *Options) { o.OutputLimit = 100; o.AriaChars = 150 })
	obs := step(t, e, 1, "print('A' * 50 + 'B' * 5000 + 'C' * 50)\nimport sys\nprint('to stderr', file=sys.stderr)")
	out := str(obs, "python_output")
	if !strings.HasPrefix(out, strings.Repeat("A", 50)) || !strings.HasSuffix(out, "to stderr") ||
		!strings.Contains(out, "characters omitted; the whole output is in logs/step_0001.log") || len(out) > 300 {
		t.Errorf("python_output %q", out)
	}
	whole, err := os.ReadFile(filepath.Join(run.ws, "logs", "step_0001.log"))
	if err != nil || !strings.Contains(string(whole), strings.Repeat("B", 5000)) {
		t.Errorf("log: %v", err)
	}
	aria := str(obs, "aria_snapshot")
	if len(aria) > 250 || !strings.Contains(aria, "more") {
		t.Errorf("aria_snapshot over its budget (%d chars):\n%s", len(aria), aria)
	}
}

func TestCancelInterruptsPromptly(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", nil)
	wantSuccess(t, step(t, e, 1, "kept = 'yes'"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(500 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	_, err := e.Execute(ctx, 2, "import time\ntime.sleep(60)")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	t.Logf("Execute returned %v after the cancel", time.Since(start)-500*time.Millisecond)
	obs := step(t, e, 3, "print(kept)")
	wantSuccess(t, obs)
	if str(obs, "python_output") != "yes" {
		t.Errorf("output %q", obs["python_output"])
	}
}

func TestCloseDuringAStep(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", nil)
	done := make(chan error, 1)
	go func() {
		_, err := e.Execute(context.Background(), 1, "import time\ntime.sleep(60)")
		done <- err
	}()
	time.Sleep(700 * time.Millisecond)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("Execute succeeded although the environment was closed under it")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Execute did not return after Close")
	}
	if _, err := e.Execute(context.Background(), 2, "pass"); !errors.Is(err, errClosed) {
		t.Errorf("Execute after Close: %v", err)
	}
}

func TestBadOptions(t *testing.T) {
	run := newTestRun(t, "http://127.0.0.1:1/")
	broken := filepath.Join(run.ws, "broken.json")
	os.WriteFile(broken, []byte("{not json"), 0o644)
	cases := []struct {
		name string
		mod  func(*Options)
		want string
	}{
		{"no workspace", func(o *Options) { o.Workspace = "" }, "Workspace is empty"},
		{"missing workspace", func(o *Options) { o.Workspace = filepath.Join(run.dir, "nope") }, "no such file"},
		{"missing task", func(o *Options) { o.TaskJSON = filepath.Join(run.ws, "none.json") }, "task file"},
		{"broken task", func(o *Options) { o.TaskJSON = broken }, "is not a JSON object"},
		{"blocked start", func(o *Options) { o.StartURL = "file:///etc/hosts" }, "the start URL file:///etc/hosts is blocked"},
		{"bad pattern", func(o *Options) { o.AllowedDomains = []string{"https://example.com/"} }, "is a URL"},
		{"negative timeout", func(o *Options) { o.StepTimeout = -time.Second }, "negative StepTimeout"},
		{"no python", func(o *Options) { o.Python = "no-such-python-here" }, "python"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := run.options("http://127.0.0.1:1/")
			c.mod(&opts)
			e, err := New(context.Background(), opts)
			if err == nil {
				e.Close()
				t.Fatal("New accepted it")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestUnreachableStartURLIsANoticeNotAFailure(t *testing.T) {
	e, _ := startEnv(t, "http://127.0.0.1:1/", nil)
	obs := step(t, e, 1, "print(page.url)")
	wantSuccess(t, obs)
	if !hasNotice(obs, "The start URL http://127.0.0.1:1/ did not load") {
		t.Errorf("notices %q", notices(obs))
	}
}
