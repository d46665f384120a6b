// Command mcpcompare measures wright mcp side by side with @playwright/mcp
// (from npm), through one client: the official TypeScript MCP SDK's
// Client under Node (driver.mjs), over stdio, with both servers on the same
// system Chromium (headless; the peer with --executable-path and
// --no-sandbox, never a downloaded browser) and the same viewport. Both
// run the same logical sequence on the same real npm pages (TodoMVC, the
// Cypress kitchensink's actions page, swagger-ui exploring an OpenAPI
// document served beside them): navigate, snapshot, fills, typing and
// clicks by ref, a key press, a final snapshot. Refs are read from each
// server's own output, by role and name. Each logical step is said in
// each server's own tool names, with their default arguments.
//
// It prints, per step, the characters of each result (the JSON of the
// tools/call answer) and the median time over the repetitions, then the
// characters over the whole sequence, the size of the tools/list answer
// and the mean time per action, with the ratios wright/playwright-mcp
// against issue 31's targets. Repetitions alternate which server goes
// first, so both see the same machine load.
//
// usage (from the repository; needs node and npm):
//
//	go run ./bench/measure/mcpcompare [-reps 3] [-wright bin/wright] [-dump DIR] [-json FILE]
//
// The npm packages go to a cache folder on first use ($WRIGHT_MCPCOMPARE_NPM,
// else wright-mcpcompare in the user's cache directory); the pages come
// from internal/peerpages.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"wright/internal/peerpages"
)

type options struct {
	reps     int
	wright   string
	chromium string
	viewport string
	dump     string
	jsonOut  string
}

func main() {
	var o options
	flag.IntVar(&o.reps, "reps", 3, "repetitions of every page's sequence on each server")
	flag.StringVar(&o.wright, "wright", "", "the wright binary (default: built from this module into a temporary folder)")
	flag.StringVar(&o.chromium, "chromium", "", "the browser both servers use (default $WRIGHT_BROWSER, else chromium on PATH)")
	flag.StringVar(&o.viewport, "viewport", "1280x800", "both servers' viewport, WxH")
	flag.StringVar(&o.dump, "dump", "", "write every result text of the first repetition into this folder")
	flag.StringVar(&o.jsonOut, "json", "", "write every measured call as JSON to this file")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "mcpcompare:", err)
		os.Exit(1)
	}
}

// server is one side: how it is started and how it names the steps.
type server struct {
	dialect
	command string
	args    []string
	env     map[string]string
	cwd     string
}

func run(ctx context.Context, o options) error {
	if o.reps < 1 {
		return errors.New("-reps must be at least 1")
	}
	vw, vh, ok := parseViewport(o.viewport)
	if !ok {
		return fmt.Errorf("-viewport %q: want WxH, e.g. 1280x800", o.viewport)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return errors.New("node is not on PATH: the MCP client runs under Node")
	}
	chromium, err := findChromium(o.chromium)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "wright-mcpcompare-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	wrightBin := o.wright
	if wrightBin == "" {
		wrightBin = filepath.Join(work, "wright")
		fmt.Fprintln(os.Stderr, "mcpcompare: building wright")
		if out, err := exec.CommandContext(ctx, "go", "build", "-o", wrightBin, "wright/cmd/wright").CombinedOutput(); err != nil {
			return fmt.Errorf("build wright: %w\n%s", err, out)
		}
	} else if wrightBin, err = filepath.Abs(wrightBin); err != nil {
		return err
	}

	cacheRoot := os.Getenv("WRIGHT_MCPCOMPARE_NPM")
	if cacheRoot == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("no cache directory for the npm packages (set WRIGHT_MCPCOMPARE_NPM): %w", err)
		}
		cacheRoot = filepath.Join(cache, "wright-mcpcompare")
	}
	npmDir, err := installClients(ctx, cacheRoot)
	if err != nil {
		return err
	}
	nodeModules, err := peerpages.Dir(ctx)
	if err != nil {
		return fmt.Errorf("the npm pages: %w", err)
	}
	site, stopSite, err := serveSite(nodeModules)
	if err != nil {
		return err
	}
	defer stopSite()

	servers, err := setUp(work, wrightBin, npmDir, chromium, vw, vh)
	if err != nil {
		return err
	}
	d, err := startDriver(ctx, npmDir)
	if err != nil {
		return err
	}
	defer d.close()

	listChars := map[string]int{}
	listNames := map[string][]string{}
	startMS := map[string][]float64{}
	byServer := map[string][][]call{} // server -> repetition -> calls
	ps := pages()
	for rep := 0; rep < o.reps; rep++ {
		// Fresh servers (and browsers) every repetition: the pages keep
		// state (TodoMVC's list is in localStorage), and every repetition
		// must see them as the first did. The order alternates, so both
		// sides see the same machine load.
		order := servers
		if rep%2 == 1 {
			order = []server{servers[1], servers[0]}
		}
		for _, s := range order {
			n, names, ms, err := startServer(d, s, site)
			if err != nil {
				return err
			}
			if rep > 0 && n != listChars[s.Name] {
				return fmt.Errorf("%s: tools/list was %d characters, now %d", s.Name, listChars[s.Name], n)
			}
			listChars[s.Name], listNames[s.Name] = n, names
			startMS[s.Name] = append(startMS[s.Name], ms)
		}
		repCalls := map[string][]call{}
		for _, pg := range ps {
			for _, s := range order {
				if err := ctx.Err(); err != nil {
					return err
				}
				calls, texts, err := runSequence(d, s, site, pg)
				if err != nil {
					if ctx.Err() != nil {
						// Ctrl-C closed the client under the call.
						return fmt.Errorf("interrupted: %w", ctx.Err())
					}
					return err
				}
				repCalls[s.Name] = append(repCalls[s.Name], calls...)
				if rep == 0 && o.dump != "" {
					if err := dump(o.dump, s.Name, calls, texts); err != nil {
						return err
					}
				}
			}
		}
		for _, s := range order {
			byServer[s.Name] = append(byServer[s.Name], repCalls[s.Name])
			if err := d.request(map[string]any{"op": "stop", "server": s.Name}, nil); err != nil {
				return fmt.Errorf("stop %s: %w", s.Name, err)
			}
		}
		fmt.Fprintf(os.Stderr, "mcpcompare: repetition %d of %d done\n", rep+1, o.reps)
	}

	w, p := stepStats(byServer[wrightDialect.Name]), stepStats(byServer[playwrightDialect.Name])
	tw, tp := sum(w), sum(p)
	fmt.Printf("# wright mcp vs @playwright/mcp: %s, %d repetitions, viewport %s, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), o.reps, o.viewport, chromium)
	fmt.Println(stepTable(w, p))
	var rows []row
	for _, name := range tw.pageOrder {
		rows = append(rows, row{Measure: "characters, " + name, Wright: float64(tw.PerPageChars[name]), Peer: float64(tp.PerPageChars[name])})
	}
	rows = append(rows,
		row{Measure: "characters over the sequence (all pages)", Wright: float64(tw.Chars), Peer: float64(tp.Chars), Target: 0.35},
		row{Measure: "text characters over the sequence", Wright: float64(tw.Text), Peer: float64(tp.Text)},
		row{Measure: fmt.Sprintf("tools/list answer, characters (%d vs %d tools)", len(listNames[wrightDialect.Name]), len(listNames[playwrightDialect.Name])),
			Wright: float64(listChars[wrightDialect.Name]), Peer: float64(listChars[playwrightDialect.Name]), Target: 0.6},
		row{Measure: fmt.Sprintf("time per action, ms (mean of %d steps' medians)", tw.Actions), Wright: tw.ActionMS, Peer: tp.ActionMS, Target: 0.8, Format: "%.0f"},
		row{Measure: fmt.Sprintf("time per snapshot, ms (mean of %d steps' medians)", tw.Reads), Wright: tw.ReadMS, Peer: tp.ReadMS, Format: "%.0f"},
		row{Measure: "first call (browser start), ms, median", Wright: median(startMS[wrightDialect.Name]), Peer: median(startMS[playwrightDialect.Name])},
	)
	fmt.Println(ratioTable(rows))
	errs := 0
	for _, c := range append(append([]call(nil), w...), p...) {
		if c.Error != "" {
			errs++
			fmt.Printf("error: %s, %s, %s: %s\n", c.Page, c.Logical, c.Tool, c.Error)
		}
	}
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(map[string]any{"reps": o.reps, "viewport": o.viewport, "tools_list_chars": listChars,
			"tools": listNames, "first_call_ms": startMS, "calls": byServer}, "", "  ")
		if err := os.WriteFile(o.jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	if errs > 0 {
		return fmt.Errorf("%d steps failed: their figures are not comparable", errs)
	}
	return nil
}

// startServer starts a server through the client, lists its tools and
// makes its first call, which launches the browser on either side (timed
// apart from the sequences): the tools/list answer's characters, the tool
// names and that first call's time.
func startServer(d *driver, s server, site string) (int, []string, float64, error) {
	if err := d.request(map[string]any{"op": "start", "server": s.Name, "command": s.command, "args": s.args, "cwd": s.cwd, "env": s.env}, nil); err != nil {
		return 0, nil, 0, fmt.Errorf("start %s: %w", s.Name, err)
	}
	var l struct {
		Chars int      `json:"chars"`
		Names []string `json:"names"`
	}
	if err := d.request(map[string]any{"op": "list", "server": s.Name}, &l); err != nil {
		return 0, nil, 0, fmt.Errorf("%s tools/list: %w", s.Name, err)
	}
	tool, args := s.call(step{Kind: "navigate"}, site+"/start.html", "", "")
	var r callResult
	if err := d.request(map[string]any{"op": "call", "server": s.Name, "tool": tool, "args": args}, &r); err != nil {
		return 0, nil, 0, fmt.Errorf("%s first navigate: %w", s.Name, err)
	}
	if r.Result.IsError {
		return 0, nil, 0, fmt.Errorf("%s first navigate failed: %s", s.Name, r.text())
	}
	return l.Chars, l.Names, r.MS, nil
}

// setUp says how each server is started: each in a folder of its own
// (the peer writes its snapshot files into its working folder), on the
// same Chromium and viewport, headless.
func setUp(work, wrightBin, npmDir, chromium string, vw, vh int) ([]server, error) {
	wdir, pdir := filepath.Join(work, "wright"), filepath.Join(work, "playwright-mcp")
	for _, d := range []string{wdir, pdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	// wright's config layer pins the browser and the viewport; all else
	// is its default (headless, the sandbox for the Python runner).
	cfg := filepath.Join(work, "wright.yaml")
	layer := fmt.Sprintf("browser:\n  executable: %q\n  headless: true\n  viewport: {width: %d, height: %d}\n", chromium, vw, vh)
	if err := os.WriteFile(cfg, []byte(layer), 0o644); err != nil {
		return nil, err
	}
	return []server{
		{
			dialect: wrightDialect, command: wrightBin, args: []string{"mcp", "-c", cfg}, cwd: wdir,
			env: map[string]string{"WRIGHT_LIBRARY": filepath.Join(work, "library")},
		},
		{
			dialect: playwrightDialect, command: "node", cwd: pdir,
			args: []string{filepath.Join(npmDir, "node_modules", "@playwright", "mcp", "cli.js"),
				"--headless", "--browser", "chromium", "--executable-path", chromium, "--no-sandbox", "--isolated",
				"--viewport-size", fmt.Sprintf("%dx%d", vw, vh), "--output-dir", filepath.Join(pdir, "out")},
			// An empty browsers folder: nothing there to use, and nothing
			// fetched into the shared one.
			env: map[string]string{"PLAYWRIGHT_BROWSERS_PATH": filepath.Join(work, "no-browsers"), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"},
		},
	}, nil
}

// runSequence runs one page's steps on one server and returns each call
// and each result's text.
func runSequence(d *driver, s server, site string, pg page) ([]call, []string, error) {
	var calls []call
	var texts []string
	for i, st := range pg.Steps {
		c := call{Page: pg.Name, Step: i + 1, Logical: st.String(), Kind: st.Kind, Action: st.isAction()}
		text := strings.ReplaceAll(st.Text, "{site}", site)
		var ref string
		if st.Kind == "fill" || st.Kind == "type" || st.Kind == "click" {
			var ok bool
			if ref, ok = findRef(texts, st.Target); !ok {
				// Not called: no output of this server named the element.
				c.Tool, _ = s.call(st, "", "", text)
				c.Error = "no output of the server so far shows " + st.Target.String()
				calls, texts = append(calls, c), append(texts, "")
				continue
			}
		}
		tool, args := s.call(st, site+st.Path, ref, text)
		var r callResult
		if err := d.request(map[string]any{"op": "call", "server": s.Name, "tool": tool, "args": args}, &r); err != nil {
			return nil, nil, fmt.Errorf("%s %s %s: %w", s.Name, pg.Name, tool, err)
		}
		out := r.text()
		c.Tool, c.Ref, c.Chars, c.Text, c.MS = tool, ref, r.Chars, len(out), r.MS
		if r.Result.IsError || looksFailed(out) {
			c.Error = firstLines(out, 4)
		}
		calls, texts = append(calls, c), append(texts, out)
	}
	return calls, texts, nil
}

// failedRE is how each server says an action failed inside a result that
// is not flagged isError: the peer's "### Error" section, a Python
// traceback from wright's runner.
var failedRE = regexp.MustCompile(`(?m)^### Error$|Traceback \(most recent call last\)`)

func looksFailed(text string) bool { return failedRE.MatchString(text) }

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " / ")
}

func dump(dir, server string, calls []call, texts []string) error {
	d := filepath.Join(dir, server)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return err
	}
	for i, c := range calls {
		name := fmt.Sprintf("%s-%02d-%s.txt", slug(c.Page), c.Step, c.Tool)
		if err := os.WriteFile(filepath.Join(d, name), []byte(texts[i]), 0o644); err != nil {
			return err
		}
	}
	return nil
}

var slugRE = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	return strings.Trim(slugRE.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

func parseViewport(s string) (int, int, bool) {
	var w, h int
	if n, err := fmt.Sscanf(s, "%dx%d", &w, &h); err != nil || n != 2 || w <= 0 || h <= 0 {
		return 0, 0, false
	}
	return w, h, true
}

func findChromium(flagValue string) (string, error) {
	for _, c := range []string{flagValue, os.Getenv("WRIGHT_BROWSER")} {
		if c != "" {
			return filepath.Abs(c)
		}
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium: set -chromium or $WRIGHT_BROWSER, or install chromium (make deps)")
}
