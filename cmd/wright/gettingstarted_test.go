package main

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// keylessSections are the headings of docs/getting-started.md whose
// commands need no key; TestGettingStartedAsWritten runs them as written.
var keylessSections = []string{
	"The demo: a whole run, no key",
	"The life of a script, no key",
	"Reading a run",
	"Many tasks: a bench",
}

// docCommand is one command of a shell block: its text (continuation
// lines joined), whether it is left running in the background (a trailing
// &), and the output the page shows under it (comment lines starting with
// "# wright:", pieces separated by "...").
type docCommand struct {
	section, line string
	background    bool
	shows         []string
}

// gettingStartedCommands reads the bin/wright commands of the keyless
// sections, in order.
func gettingStartedCommands(t *testing.T) []docCommand {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "docs", "getting-started.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		cmds             []docCommand
		section          string
		inBlock, keyless bool
		pending          string
		seen             = map[string]bool{}
	)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = strings.TrimSpace(strings.TrimLeft(strings.TrimPrefix(line, "## "), "0123456789. "))
			keyless = false
			for _, s := range keylessSections {
				if section == s {
					keyless, seen[s] = true, true
				}
			}
		case strings.HasPrefix(line, "```"):
			inBlock = !inBlock && strings.TrimPrefix(line, "```") == "sh"
		case inBlock && keyless:
			text := strings.TrimSpace(line)
			if pending != "" {
				text = pending + " " + text
				pending = ""
			}
			if strings.HasSuffix(text, `\`) {
				pending = strings.TrimSpace(strings.TrimSuffix(text, `\`))
				continue
			}
			if strings.HasPrefix(text, "# wright:") && len(cmds) > 0 {
				for _, piece := range strings.Split(strings.TrimPrefix(text, "# "), "...") {
					if p := strings.TrimSpace(piece); p != "" {
						cmds[len(cmds)-1].shows = append(cmds[len(cmds)-1].shows, p)
					}
				}
				continue
			}
			if !strings.HasPrefix(text, "bin/wright ") {
				continue // a comment, kill %1: the test ends background commands itself
			}
			if i := strings.Index(text, "   #"); i >= 0 {
				text = strings.TrimSpace(text[:i])
			}
			c := docCommand{section: section, line: text}
			if strings.HasSuffix(text, "&") {
				c.line, c.background = strings.TrimSpace(strings.TrimSuffix(text, "&")), true
			}
			cmds = append(cmds, c)
		}
	}
	for _, s := range keylessSections {
		if !seen[s] {
			t.Fatalf("docs/getting-started.md has no section %q any more: keep this test's list in step with the page", s)
		}
	}
	return cmds
}

// TestGettingStartedAsWritten is a newcomer following getting-started.md
// with no key: each command of the keyless sections, as the page writes
// it, in one folder, in order (the demo, the script's life, reading the
// demo's run, a bench and its resume). Each must exit 0, or 1 where the
// page shows a NOT verified, and print what the page shows under it.
func TestGettingStartedAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo, the tour and a bench: about two minutes")
	}
	// Alone in holding the shop's default address: the other tour test
	// serves on a port of its own.
	t.Parallel()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(wrightBin, filepath.Join(dir, "bin", "wright")); err != nil {
		t.Fatal(err)
	}
	// A newcomer has no key and a library of their own.
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(k, "_API_KEY") || strings.HasPrefix(k, "WRIGHT_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "XDG_DATA_HOME="+filepath.Join(dir, "data"), "HOME="+dir)

	cmds := gettingStartedCommands(t)
	if len(cmds) < 6 {
		t.Fatalf("found %d commands in the keyless sections, want the demo, the tour, the reviews and the bench", len(cmds))
	}
	var background []*exec.Cmd
	defer func() {
		for _, c := range background {
			c.Process.Signal(syscall.SIGINT)
			c.Wait()
		}
	}()
	var demoRun string
	for _, c := range cmds {
		line := c.line
		if strings.Contains(line, "<run>") {
			if demoRun == "" {
				t.Fatalf("%s: %q names the demo's run, but no demo run was found", c.section, line)
			}
			line = strings.ReplaceAll(line, "demo-runs/<run>", demoRun)
		}
		sh := exec.Command("bash", "-c", line)
		sh.Dir, sh.Env = dir, env
		if c.background {
			if err := sh.Start(); err != nil {
				t.Fatal(err)
			}
			background = append(background, sh)
			waitForShop(t, sh)
			continue
		}
		start := time.Now()
		out, err := sh.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s: exit %d in %.1fs", c.section, line, code, time.Since(start).Seconds())
		want := 0
		for _, s := range c.shows {
			if strings.Contains(s, "NOT verified") {
				want = 1
			}
		}
		if code != want {
			t.Fatalf("%s: %s exited %d, want %d:\n%s", c.section, line, code, want, out)
		}
		for _, s := range c.shows {
			if !strings.Contains(string(out), s) {
				t.Errorf("%s: %s does not print %q, as the page shows:\n%s", c.section, line, s, out)
			}
		}
		checkStep(t, dir, line, string(out))
		if strings.HasPrefix(line, "bin/wright demo") && demoRun == "" {
			if m, _ := filepath.Glob(filepath.Join(dir, "demo-runs", "demo_bookshop_*")); len(m) == 1 {
				demoRun = filepath.Join("demo-runs", filepath.Base(m[0]))
			}
		}
	}
}

var tourRowLine = regexp.MustCompile(`(?m)^  [1-6]  .*exit [01], as expected$`)

// checkStep holds what the page says each kind of command does.
func checkStep(t *testing.T, dir, line, out string) {
	t.Helper()
	switch {
	case line == "bin/wright demo":
		if !strings.Contains(out, "Submitted after 6 steps, ~") || !strings.Contains(out, "prompt tokens est.") {
			t.Errorf("the demo did not submit, or its end line is not the page's (a recording's tokens are wright's estimate, marked est.):\n%s", out)
		}
	case line == "bin/wright demo scripts":
		if n := len(tourRowLine.FindAllString(out, -1)); n != 6 {
			t.Errorf("the tour's table shows %d steps as expected, want 6:\n%s", n, out)
		}
		for _, s := range []string{"are recordings", "saved script demo-book v1", "broken", "healed into v2", "demo-book v2 verified"} {
			if !strings.Contains(out, s) {
				t.Errorf("the tour does not say %q:\n%s", s, out)
			}
		}
	case strings.HasSuffix(line, "--html"):
		if !strings.Contains(out, ".html") {
			t.Errorf("%s names no page it wrote:\n%s", line, out)
		}
	case strings.HasPrefix(line, "bin/wright bench "):
		if _, err := os.Stat(filepath.Join(dir, "bench-out", "summary.md")); err != nil {
			t.Errorf("the bench left no summary.md: %v\n%s", err, out)
		}
	}
}

// waitForShop waits until the backgrounded `wright demo serve` listens, as
// a person would before typing the next command.
func waitForShop(t *testing.T, c *exec.Cmd) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if conn, err := net.Dial("tcp", demoAddr); err == nil {
			conn.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s did not start serving on %s", c.String(), demoAddr)
}
