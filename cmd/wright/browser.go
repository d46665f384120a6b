package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// `wright browser` is a browser session for agents that have a shell: a
// small background process per session name (the wright binary run as
// `wright browser serve`) holds an agents/session.Session and answers each
// command over a Unix socket in the user's runtime directory, so a command
// attaches in milliseconds and the page keeps its state between commands.

var browserFlags struct {
	session string
	json    bool
}

// browserOpenFlags are the session's settings, given when it is opened.
var browserOpenFlags browserSettings

// browserSettings are a session's settings: `wright browser open` takes
// them as flags and hands them on to the background process it starts.
type browserSettings struct {
	configs        []string
	dir            string
	idle           time.Duration
	headed         bool
	executable     string
	allowed        []string
	blocked        []string
	sandbox        string
	actionTimeout  time.Duration
	screenshotSize int
}

func init() {
	cmd := &cobra.Command{
		Use:   "browser",
		Short: "A persistent browser session driven command by command (open, snapshot, click e12, ...)",
		Long: `A browser session that keeps its page between commands, for agents with a shell.

  wright browser open https://example.com     start the session (or reuse it) and open a page
  wright browser snapshot                     write the page's ARIA snapshot to a file; print its
                                              path, size and the lines that changed
  wright browser click e12                    act on a ref of the snapshot; print the Playwright
  wright browser fill e5 "Ada"                line performed and what changed on the page
  wright browser run steps.py                 run Python Playwright code on the session's page
  wright browser script -o flow.py            the session's actions as a runnable script
  wright browser close                        end the session and its browser

Each session (--session NAME, default "default" or $WRIGHT_BROWSER_SESSION) is
a background process listening on a Unix socket, mode 0600, in the user's
runtime directory ($XDG_RUNTIME_DIR, else a private folder under the temp
directory). It ends at close, after --idle without a command, or when its
Chromium dies. --json prints each result as one JSON object.`,
	}
	pf := cmd.PersistentFlags()
	def := os.Getenv("WRIGHT_BROWSER_SESSION")
	if def == "" {
		def = "default"
	}
	pf.StringVar(&browserFlags.session, "session", def, "session name")
	pf.BoolVar(&browserFlags.json, "json", false, "print the result as JSON")

	open := &cobra.Command{
		Use:   "open [URL]",
		Short: "Start the session if it is not running, and open URL",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			started, err := ensureBrowserDaemon(c)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				if started {
					return printBrowser(c, browserReply{Text: fmt.Sprintf("Session %q started.", browserFlags.session)})
				}
				return printBrowser(c, browserReply{Text: fmt.Sprintf("Session %q is running.", browserFlags.session)})
			}
			return browserTool(c, "navigate", map[string]any{"url": args[0]})
		},
	}
	browserOpenFlags.register(open.Flags())

	var full bool
	var out, ref string
	var maxChars int
	snapshot := &cobra.Command{
		Use:   "snapshot",
		Short: "Write the page's ARIA snapshot to a file; print its path, size and what changed",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			a := map[string]any{"to_file": maxChars == 0, "mode": "changes"}
			if full {
				a["mode"] = "full"
			}
			if ref != "" {
				a["ref"] = ref
				a["to_file"] = false
			}
			if maxChars > 0 {
				a["max_chars"] = maxChars
			}
			r, err := callBrowser(c, browserRequest{Tool: "snapshot", Args: a})
			if err != nil {
				return err
			}
			if out != "" {
				if err := copySnapshot(r, out); err != nil {
					return err
				}
			}
			if path, _ := r.Data["path"].(string); full && path != "" && r.Error == "" {
				// The session wrote the whole page to its file and said
				// where; --full prints it too.
				b, err := os.ReadFile(path)
				if err != nil {
					return fmt.Errorf("snapshot --full: %w", err)
				}
				r.Text = strings.TrimRight(r.Text, "\n") + "\n" + strings.TrimRight(string(b), "\n")
			}
			return printBrowser(c, r)
		},
	}
	snapshot.Flags().BoolVar(&full, "full", false, "print the whole snapshot, not only its changes")
	snapshot.Flags().StringVarP(&out, "output", "o", "", "also write the whole snapshot to this file")
	snapshot.Flags().StringVar(&ref, "ref", "", "only this element's subtree, printed")
	snapshot.Flags().IntVar(&maxChars, "max-chars", 0, "print the snapshot, cut at this many characters, instead of writing a file")

	var submit bool
	fill := refCmd("fill REF TEXT", "Replace a field's value", 2, func(args []string) map[string]any {
		return map[string]any{"ref": args[0], "text": args[1], "submit": submit}
	})
	fill.Flags().BoolVar(&submit, "submit", false, "press Enter after")
	var uncheck bool
	checkC := refCmd("check REF", "Check a checkbox or radio (--off unchecks)", 1, func(args []string) map[string]any {
		return map[string]any{"ref": args[0], "checked": !uncheck}
	})
	checkC.Flags().BoolVar(&uncheck, "off", false, "uncheck")
	var onRef string
	typeC := refCmd("type TEXT", "Type text key by key (into --ref, else the focused element)", 1, func(args []string) map[string]any {
		return map[string]any{"text": args[0], "ref": onRef}
	})
	typeC.Flags().StringVar(&onRef, "ref", "", "the element to type into")
	var keyRef string
	pressC := refCmd("press KEY", "Press a key or chord (Enter, Control+A)", 1, func(args []string) map[string]any {
		return map[string]any{"key": args[0], "ref": keyRef}
	})
	pressC.Flags().StringVar(&keyRef, "ref", "", "the element to press it on")

	var shotOut string
	var fullPage bool
	shot := &cobra.Command{
		Use:   "screenshot",
		Short: "Screenshot the page; print the file's path",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			a := map[string]any{"full_page": fullPage}
			if shotOut != "" {
				abs, err := filepath.Abs(shotOut)
				if err != nil {
					return err
				}
				a["path"] = abs
			}
			return browserTool(c, "screenshot", a)
		},
	}
	shot.Flags().StringVarP(&shotOut, "output", "o", "", "write the image here")
	shot.Flags().BoolVar(&fullPage, "full-page", false, "the whole page, not the viewport")

	var errorsOnly bool
	consoleC := &cobra.Command{Use: "console", Short: "The session's console messages", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return browserTool(c, "console", map[string]any{"errors_only": errorsOnly})
		}}
	consoleC.Flags().BoolVar(&errorsOnly, "errors", false, "errors only")
	var netAll bool
	networkC := &cobra.Command{Use: "network", Short: "The requests the pages made", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return browserTool(c, "network", map[string]any{"all": netAll})
		}}
	networkC.Flags().BoolVar(&netAll, "all", false, "images, styles and fonts too")

	var waitText, waitURL string
	var waitTime float64
	var waitGone bool
	waitC := &cobra.Command{Use: "wait", Short: "Wait for --text (or --gone), --url or --time seconds", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return browserTool(c, "wait", map[string]any{"text": waitText, "url": waitURL, "time": waitTime, "gone": waitGone})
		}}
	waitC.Flags().StringVar(&waitText, "text", "", "text to wait for")
	waitC.Flags().BoolVar(&waitGone, "gone", false, "wait for --text to disappear")
	waitC.Flags().StringVar(&waitURL, "url", "", "URL (or glob) to wait for")
	waitC.Flags().Float64Var(&waitTime, "time", 0, "seconds to wait")

	var scriptOut string
	scriptC := &cobra.Command{
		Use:   "script",
		Short: "The session's actions as a runnable Playwright Python script",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			r, err := callBrowser(c, browserRequest{Op: "script"})
			if err != nil {
				return err
			}
			if scriptOut == "" {
				if browserFlags.json {
					return printBrowser(c, r)
				}
				fmt.Fprint(c.OutOrStdout(), r.Text)
				return nil
			}
			if err := os.WriteFile(scriptOut, []byte(r.Text), 0o644); err != nil {
				return fmt.Errorf("write the script: %w", err)
			}
			return printBrowser(c, browserReply{Text: fmt.Sprintf("Script written to %s (%d lines).", scriptOut, strings.Count(r.Text, "\n")),
				Data: map[string]any{"path": scriptOut}})
		},
	}
	scriptC.Flags().StringVarP(&scriptOut, "output", "o", "", "write the script to this file")

	cmd.AddCommand(open, snapshot, fill, checkC, typeC, pressC, shot, consoleC, networkC, waitC, scriptC,
		refCmd("click REF", "Click an element", 1, func(a []string) map[string]any { return map[string]any{"ref": a[0]} }),
		refCmd("hover REF", "Hover over an element", 1, func(a []string) map[string]any { return map[string]any{"ref": a[0]} }),
		refCmd("drag REF TARGET", "Drag an element onto another", 2, func(a []string) map[string]any {
			return map[string]any{"ref": a[0], "target": a[1]}
		}),
		&cobra.Command{Use: "select REF VALUE...", Short: "Choose options of a select by value or label", Args: cobra.MinimumNArgs(2),
			RunE: func(c *cobra.Command, a []string) error {
				return browserTool(c, "select", map[string]any{"ref": a[0], "values": a[1:]})
			}},
		&cobra.Command{Use: "upload REF FILE...", Short: "Set a file input's files", Args: cobra.MinimumNArgs(2),
			RunE: func(c *cobra.Command, a []string) error {
				files := make([]string, len(a)-1)
				for i, f := range a[1:] {
					abs, err := filepath.Abs(f)
					if err != nil {
						return err
					}
					files[i] = abs
				}
				return browserTool(c, "upload", map[string]any{"ref": a[0], "files": files})
			}},
		simpleCmd("navigate URL", "Open URL in the current tab", "navigate", func(a []string) map[string]any { return map[string]any{"url": a[0]} }),
		simpleCmd("back", "Go back in history", "back", nil),
		simpleCmd("forward", "Go forward in history", "forward", nil),
		simpleCmd("reload", "Reload the page", "reload", nil),
		&cobra.Command{Use: "eval EXPR", Short: "Evaluate a JavaScript expression in the page; print its value", Args: cobra.ExactArgs(1),
			RunE: func(c *cobra.Command, a []string) error {
				return browserTool(c, "run_code", map[string]any{"code": "print(page.evaluate(" + pyLiteral(a[0]) + "))"})
			}},
		&cobra.Command{Use: "run FILE.py", Short: "Run Python Playwright code on the session's page (`page`, `browser` bound; variables kept)", Args: cobra.ExactArgs(1),
			RunE: func(c *cobra.Command, a []string) error {
				var code []byte
				var err error
				if a[0] == "-" {
					code, err = readAllStdin(c)
				} else {
					code, err = os.ReadFile(a[0])
				}
				if err != nil {
					return fmt.Errorf("read the code: %w", err)
				}
				return browserTool(c, "run_code", map[string]any{"code": string(code)})
			}},
		&cobra.Command{Use: "tabs [list|open [URL]|select N|close [N]]", Short: "List, open, select or close tabs", Args: cobra.MaximumNArgs(2),
			RunE: func(c *cobra.Command, a []string) error {
				args := map[string]any{}
				if len(a) > 0 {
					args["action"] = a[0]
				}
				if len(a) > 1 {
					if a[0] == "open" {
						args["url"] = a[1]
					} else {
						n, err := strconv.Atoi(a[1])
						if err != nil {
							return usageError("tabs %s: %q is no tab number", a[0], a[1])
						}
						args["index"] = n
					}
				}
				return browserTool(c, "tabs", args)
			}},
		&cobra.Command{Use: "dialog accept|dismiss [PROMPT_TEXT]", Short: "Say how the next dialog is answered", Args: cobra.RangeArgs(1, 2),
			RunE: func(c *cobra.Command, a []string) error {
				if a[0] != "accept" && a[0] != "dismiss" {
					return usageError("dialog: want accept or dismiss, got %q", a[0])
				}
				args := map[string]any{"accept": a[0] == "accept"}
				if len(a) > 1 {
					args["prompt_text"] = a[1]
				}
				return browserTool(c, "dialog", args)
			}},
		&cobra.Command{Use: "close", Short: "End the session and its browser", Args: cobra.NoArgs, RunE: closeBrowser},
		&cobra.Command{Use: "list", Short: "The running sessions", Args: cobra.NoArgs, RunE: listBrowsers},
		serveCmd(),
	)
	rootCmd.AddCommand(cmd)
}

func idleDefault() time.Duration {
	if v := os.Getenv("WRIGHT_BROWSER_IDLE"); v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			return d
		}
	}
	return 30 * time.Minute
}

// refCmd is a command whose n arguments make the tool's arguments; the
// tool is the command's name.
func refCmd(use, short string, n int, args func([]string) map[string]any) *cobra.Command {
	name, _, _ := strings.Cut(use, " ")
	return &cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(n),
		RunE: func(c *cobra.Command, a []string) error { return browserTool(c, name, args(a)) }}
}

// simpleCmd is a command that calls tool; args (nil: none) takes the
// command's one argument.
func simpleCmd(use, short, tool string, args func([]string) map[string]any) *cobra.Command {
	n := cobra.NoArgs
	if args != nil {
		n = cobra.ExactArgs(1)
	}
	return &cobra.Command{Use: use, Short: short, Args: n,
		RunE: func(c *cobra.Command, a []string) error {
			var m map[string]any
			if args != nil {
				m = args(a)
			}
			return browserTool(c, tool, m)
		}}
}

// browserTool calls a tool of the running session and prints its result.
func browserTool(c *cobra.Command, tool string, args map[string]any) error {
	r, err := callBrowser(c, browserRequest{Tool: tool, Args: args})
	if err != nil {
		return err
	}
	return printBrowser(c, r)
}

// printBrowser prints a result: the Playwright line the action performed,
// then its text; or, with --json, the whole reply.
func printBrowser(c *cobra.Command, r browserReply) error {
	w := c.OutOrStdout()
	if browserFlags.json {
		r.Image = nil // the file's path is in data
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			return err
		}
	} else {
		if r.Code != "" {
			fmt.Fprintln(w, r.Code)
		}
		if r.Text != "" {
			fmt.Fprintln(w, r.Text)
		}
	}
	if r.Error != "" {
		if browserFlags.json {
			return &exitError{code: 1, err: errSilent}
		}
		return &exitError{code: 1, err: fmt.Errorf("%s", r.Error)}
	}
	return nil
}

// copySnapshot writes the whole snapshot the session saved to out.
func copySnapshot(r browserReply, out string) error {
	path, _ := r.Data["path"].(string)
	if path == "" {
		return fmt.Errorf("snapshot -o: the session wrote no file (with --ref or --max-chars the snapshot is printed)")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("snapshot -o: %w", err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("snapshot -o: %w", err)
	}
	return nil
}

// pyLiteral is s as a Python string literal (a JSON string is one).
func pyLiteral(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func readAllStdin(c *cobra.Command) ([]byte, error) { return io.ReadAll(c.InOrStdin()) }

// register adds the settings' flags to fl: open's, and the same on the
// background process, which open passes them on to.
func (o *browserSettings) register(fl *pflag.FlagSet) {
	fl.StringArrayVarP(&o.configs, "config", "c", nil, "config layers, as for a run: the browser, its URL policy (browser.allowed_domains, ...), secrets, env.sandbox")
	fl.StringVar(&o.dir, "dir", "", "folder for the session's snapshots, screenshots and logs (default: the session's folder in the runtime directory)")
	fl.DurationVar(&o.idle, "idle", idleDefault(), "end the session after this long without a command ($WRIGHT_BROWSER_IDLE)")
	fl.BoolVar(&o.headed, "headed", false, "show the browser window")
	fl.StringVar(&o.executable, "browser", "", "Chrome/Chromium executable (default: as for a run)")
	fl.StringSliceVar(&o.allowed, "allow-domain", nil, "hosts the browser may reach (default: any)")
	fl.StringSliceVar(&o.blocked, "block-domain", nil, "hosts the browser must not reach")
	fl.StringVar(&o.sandbox, "sandbox", "auto", "the Python runner's sandbox: auto, bwrap or none")
	fl.DurationVar(&o.actionTimeout, "action-timeout", 10*time.Second, "how long an action waits for its element")
	fl.IntVar(&o.screenshotSize, "screenshot-kb", 400, "the largest screenshot sent, in KB (larger ones become JPEG)")
}
