package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"wright/trust/keyring"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"wright/bench/results"
	"wright/review"
	"wright/run/harness"
)

type reviewFlags struct {
	step   int
	grep   string
	plain  bool
	asJSON bool
	html   bool
	output string
	serve  string
	public bool
}

func init() {
	var f reviewFlags
	cmd := &cobra.Command{
		Use:   "review RUN_DIR|BENCH_DIR",
		Short: "Read a run or a bench: in the terminal, as one HTML file, or served on loopback",
		Long: `Show what a run did: a header (task, exit status, final response, steps, tokens,
cost, the gate's verdict), then every step with its thought, code, output and
what the harness said (format errors, refused "done"s, notices, compactions).
A run still going, or one that crashed, is shown as far as its files go.

  wright review RUN_DIR                 the terminal view (paged when long)
  wright review RUN_DIR --step 4        one step, its whole output
  wright review RUN_DIR --grep timeout  the steps that mention a word
  wright review RUN_DIR --json          a compact digest for a script or a model
  wright review RUN_DIR --html -o r.html  one self-contained page, screenshots inline
  wright review DIR --serve [ADDR]      serve the pages on 127.0.0.1, live while it runs

A bench directory (results.jsonl) is shown as its results table, with the
failures grouped by exit status and by their first error line.`,
		Args: reviewArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := serveArgs(cmd, args, &f)
			if err != nil {
				return err
			}
			return runReview(cmd, dir, f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.step, "step", 0, "show this step alone, with its whole output")
	fl.StringVar(&f.grep, "grep", "", "show only the steps that hold this text (case-insensitive)")
	fl.BoolVar(&f.plain, "plain", false, "print Markdown without colours and without a pager")
	fl.BoolVar(&f.asJSON, "json", false, "print a compact JSON digest")
	fl.BoolVar(&f.html, "html", false, "write one self-contained HTML page")
	fl.StringVarP(&f.output, "output", "o", "", "the HTML file --html writes (default: review.html in the folder reviewed; - for stdout)")
	fl.StringVar(&f.serve, "serve", "", "serve the pages over HTTP at ADDR (default 127.0.0.1:0, a free port)")
	fl.Lookup("serve").NoOptDefVal = "127.0.0.1:0"
	fl.BoolVar(&f.public, "public", false, "let --serve listen on an address other than loopback")
	rootCmd.AddCommand(cmd)
}

// reviewArgs takes the one folder the usage line shows; a second word is
// --serve's address (serveArgs).
func reviewArgs(cmd *cobra.Command, args []string) error {
	switch {
	case len(args) == 0:
		return usageError("give a run folder or a bench folder\nusage: %s (see %s --help)", cmd.UseLine(), cmd.CommandPath())
	case len(args) > 2:
		return usageError("too many arguments (%s): review one folder at a time\nusage: %s (see %s --help)", strings.Join(args[1:], " "), cmd.UseLine(), cmd.CommandPath())
	}
	return nil
}

// serveArgs lets --serve take its address as a separate word
// (`--serve 127.0.0.1:8080`), which a flag with an optional value cannot:
// the word arrives as a second argument, beside the directory.
func serveArgs(cmd *cobra.Command, args []string, f *reviewFlags) (string, error) {
	if len(args) == 1 {
		return args[0], nil
	}
	if !cmd.Flags().Changed("serve") {
		return "", usageError("too many arguments (%s): review one folder at a time: wright review RUN_DIR", strings.Join(args[1:], " "))
	}
	dir, addr := args[0], args[1]
	if fi, err := os.Stat(addr); err == nil && fi.IsDir() {
		dir, addr = addr, dir
	}
	f.serve = addr
	return dir, nil
}

func runReview(cmd *cobra.Command, dir string, f reviewFlags) error {
	modes := 0
	for _, on := range []bool{f.asJSON, f.html, f.serve != ""} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return usageError("choose one of --json, --html and --serve")
	}
	if f.public && f.serve == "" {
		return usageError("--public only applies to --serve")
	}
	if f.serve != "" {
		return serveReview(cmd, dir, f)
	}
	if review.IsBenchDir(dir) {
		return reviewBench(cmd, dir, f)
	}
	run, err := review.LoadRun(dir)
	if err != nil {
		return usageError("%v", err)
	}
	out := cmd.OutOrStdout()
	switch {
	case f.asJSON:
		o := review.TextOptions{Step: f.step, Grep: f.grep}
		var buf bytes.Buffer
		if err := run.WriteDigest(&buf, o); err != nil {
			return usageError("%v", err)
		}
		return redacted(out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err })
	case f.html:
		out := htmlPath(dir, f.output)
		return writeHTML(cmd, out, func(w io.Writer) error {
			return review.WriteRunHTML(w, run, review.HTMLOptions{FileBase: review.LinkBase(dir, out)})
		})
	}
	tty := isTTY(out)
	text, err := run.Text(review.TextOptions{Step: f.step, Grep: f.grep, Plain: f.plain || !tty, Width: termWidth(out)})
	if err != nil {
		return usageError("%v", err)
	}
	return page(cmd, text, tty && !f.plain)
}

func reviewBench(cmd *cobra.Command, dir string, f reviewFlags) error {
	bench, err := review.LoadBench(dir)
	if err != nil {
		return usageError("%v", err)
	}
	out := cmd.OutOrStdout()
	switch {
	case f.asJSON:
		return redacted(out, bench.WriteJSON)
	case f.html:
		return writeBenchHTML(cmd, bench, htmlPath(dir, f.output))
	}
	tty := isTTY(out)
	text, err := bench.Text(review.TextOptions{Plain: f.plain || !tty, Width: termWidth(out)})
	if err != nil {
		return err
	}
	return page(cmd, text, tty && !f.plain)
}

func htmlPath(dir, output string) string {
	if output == "" {
		return filepath.Join(dir, "review.html")
	}
	return output
}

// writeBenchHTML writes the bench page and, in review_runs/ beside it, a
// page for every run it found, which the bench's rows link to.
func writeBenchHTML(cmd *cobra.Command, bench *review.Bench, out string) error {
	pagesDir := "review_runs"
	links := map[string]string{}
	if out != "-" {
		dirs := bench.Pending
		records := map[string]*results.Record{}
		for i, a := range bench.Attempts {
			dirs = append(dirs, a.Found)
			records[a.Found] = &bench.Attempts[i].Record
		}
		for _, found := range dirs {
			if found == "" || links[found] != "" {
				continue
			}
			name := pagesDir + "/" + strings.NewReplacer("/", "_", "\\", "_").Replace(found) + ".html"
			runDir := filepath.Join(bench.Dir, found)
			run, err := review.LoadRun(runDir)
			if err != nil {
				continue
			}
			page := filepath.Join(filepath.Dir(out), filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
				return err
			}
			up := review.LinkBase(filepath.Dir(out), page) + filepath.Base(out)
			err = writeHTMLQuiet(page, func(w io.Writer) error {
				return review.WriteRunHTML(w, run, review.HTMLOptions{FileBase: review.LinkBase(runDir, page), Up: up, Attempt: records[found]})
			})
			if err != nil {
				return err
			}
			links[found] = name
		}
	}
	err := writeHTML(cmd, out, func(w io.Writer) error {
		return review.WriteBenchHTML(w, bench, review.HTMLOptions{FileBase: review.LinkBase(bench.Dir, out), RunLink: func(rel string) string { return links[rel] }})
	})
	if err == nil && len(links) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "wright: wrote %s, one page per run, linked from it\n",
			harness.Plural(len(links), "run page")+" in "+filepath.Join(filepath.Dir(out), pagesDir)+string(filepath.Separator))
	}
	return err
}

// writeHTML writes a page to a file or to stdout ("-"), and says where it
// went.
func writeHTML(cmd *cobra.Command, output string, render func(io.Writer) error) error {
	if output == "-" {
		return redacted(cmd.OutOrStdout(), render)
	}
	size, err := writeFileVia(output, render)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wright: wrote %s (%.1f MB)\n", output, float64(size)/1e6)
	return nil
}

func writeHTMLQuiet(output string, render func(io.Writer) error) error {
	_, err := writeFileVia(output, render)
	return err
}

// writeFileVia renders into memory, then writes a temp file and renames it,
// so a reader never opens half a page.
func writeFileVia(output string, render func(io.Writer) error) (int, error) {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return 0, err
	}
	page := reviewRedactor().Redact(buf.Bytes())
	tmp := output + ".tmp"
	if err := os.WriteFile(tmp, page, 0o644); err != nil {
		return 0, fmt.Errorf("write %s: %w", output, err)
	}
	if err := os.Rename(tmp, output); err != nil {
		os.Remove(tmp)
		return 0, fmt.Errorf("write %s: %w", output, err)
	}
	return len(page), nil
}

// redacted renders into memory and writes the result with the secrets of
// this process's environment masked.
func redacted(w io.Writer, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	_, err := w.Write(reviewRedactor().Redact(buf.Bytes()))
	return err
}

// serveReview serves the pages until the command's context ends (Ctrl-C).
func serveReview(cmd *cobra.Command, dir string, f reviewFlags) error {
	if err := review.CheckAddr(f.serve, f.public); err != nil {
		return usageError("%v", err)
	}
	if !review.IsBenchDir(dir) && !review.IsRunDir(dir) {
		return usageError("%s is neither a run directory nor a bench directory", dir)
	}
	token, err := review.NewToken()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.serve)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := review.NewServer(&review.Handler{Dir: dir, Token: token, Public: f.public, Redactor: review.RedactorFromEnv()})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Fprintf(cmd.OutOrStdout(), "http://%s/%s/\n", ln.Addr(), token)
	fmt.Fprintln(cmd.ErrOrStderr(), "wright: serving until Ctrl-C; the page follows the run as it changes")
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-cmd.Context().Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 20 {
			return min(width, 120)
		}
	}
	return 100
}

// page prints text, through $PAGER (less -R by default) when it is longer
// than the terminal.
func page(cmd *cobra.Command, text string, tty bool) error {
	out := cmd.OutOrStdout()
	text = string(reviewRedactor().Redact([]byte(text)))
	if !tty || !tooLong(out, text) {
		_, err := io.WriteString(out, text)
		return err
	}
	pager := os.Getenv("PAGER")
	if pager == "" {
		if _, err := exec.LookPath("less"); err != nil {
			_, err := io.WriteString(out, text)
			return err
		}
		pager = "less -R"
	}
	p := exec.CommandContext(cmd.Context(), "sh", "-c", pager)
	p.Stdin, p.Stdout, p.Stderr = strings.NewReader(text), out, cmd.ErrOrStderr()
	if err := p.Run(); err != nil {
		return fmt.Errorf("pager %q: %w", pager, err)
	}
	return nil
}

func tooLong(w io.Writer, text string) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, height, err := term.GetSize(int(f.Fd()))
	return err == nil && strings.Count(text, "\n") > height
}

// reviewRedactor masks the secrets this process knows: those still in its
// environment and the credentials the keyring took out of it at start.
func reviewRedactor() *review.Redactor {
	var held []string
	for _, name := range keyring.Names() {
		held = append(held, keyring.Getenv(name))
	}
	return review.RedactorFromEnv(held...)
}
