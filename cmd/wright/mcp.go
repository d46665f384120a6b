package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"wright/agents/mcp"
	"wright/library"
	"wright/library/rerun"
	"wright/run/config"
	"wright/trust/keyring"
)

type mcpFlags struct {
	http        string
	allowRemote bool
	idle        time.Duration
	keepalive   time.Duration
	maxSessions int
	maxCalls    int
	configs     []string
	model       string
	baseURL     string
	library     string
	outputDir   string
	noBrowser   bool
	workspace   string
}

func init() {
	var f mcpFlags
	cmd := &cobra.Command{
		Use:   "mcp [--http ADDR]",
		Short: "Serve wright's browser tools and verified scripts to an MCP client (Claude Code, Codex, Copilot, Cursor)",
		Long: `Serve the Model Context Protocol over stdio (the default: the client starts
wright mcp itself) or streamable HTTP (--http 127.0.0.1:8931). Each MCP session
gets its own browser session, opened on its first browser tool call and ended
with the session: navigate, snapshot, click, fill and the others act by the refs
of the newest snapshot and return what changed. script_make runs a whole wright
run with its gate and saves the verified script; script_rerun, script_heal,
script_list, script_show and script_check use the script library.

Runs use the model and config that wright run would (-c, --model, --base-url,
the environment). Over HTTP every request must carry the bearer token printed
at start ($` + mcp.TokenEnv + ` fixes it), and only loopback is served unless
--allow-remote: a request whose Host or Origin is not the server's own (a web
page, a rebound name) is refused before its body is read, as are bodies over
1 MiB and sessions or requests past --max-sessions and --max-calls. Browser
tools read and write files inside --workspace only. wright mcp config
--agent NAME prints a client's config.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMCP(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.http, "http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	fl.BoolVar(&f.allowRemote, "allow-remote", false, "with --http, listen on and answer a non-loopback address (the token is still required)")
	fl.DurationVar(&f.idle, "idle-timeout", 30*time.Minute, "with --http, end a session (and its browser) after this long without a request")
	fl.DurationVar(&f.keepalive, "keepalive", 30*time.Second, "with --http, ping each session this often and end it (and its browser) after three unanswered pings: a client that died; 0 never pings")
	fl.IntVar(&f.maxSessions, "max-sessions", 8, "with --http, the most sessions open at once (each may hold a Chromium); one more is refused with 503")
	fl.IntVar(&f.maxCalls, "max-calls", 16, "with --http, the most requests served at once; one more is refused with 429")
	fl.StringArrayVarP(&f.configs, "config", "c", nil, "config layer, as for wright run (the model, the judge, the browser, the URL policy, secrets)")
	fl.StringVar(&f.model, "model", "", "the model of script_make and script_heal runs (model.name)")
	fl.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint (model.base_url)")
	fl.StringVar(&f.library, "library", "", "the script library (default $"+library.EnvDir+", else the user's data directory)")
	fl.StringVarP(&f.outputDir, "output-dir", "o", "runs", "the folder script_make makes run folders in")
	fl.BoolVar(&f.noBrowser, "no-browser", false, "serve the script tools only")
	fl.StringVar(&f.workspace, "workspace", ".", "the only folder whose files the browser tools read or write (upload, screenshot path); links are not followed")
	cmd.AddCommand(mcpConfigCommand())
	rootCmd.AddCommand(cmd)
}

func runMCP(cmd *cobra.Command, f mcpFlags) error {
	// Before the config is read, so that model.api: sampling is an API.
	mcp.RegisterSampling()
	overrides := map[string]any{}
	if f.model != "" {
		overrides["model.name"] = f.model
	}
	if f.baseURL != "" {
		overrides["model.base_url"] = f.baseURL
	}
	// The config is loaded once here so that a bad one is a usage error
	// at start, not a failure of the first tool call.
	cfg, err := config.Load(f.configs, overrides)
	if err != nil {
		return usageError("%v", err)
	}
	lib, err := library.Open(f.library)
	if err != nil {
		return usageError("%v", err)
	}
	stderr := cmd.ErrOrStderr()
	warn := func(msg string) { fmt.Fprintln(stderr, "wright: warning:", msg) }
	if err := keyring.Drop(cfg.KeyNames()); err != nil {
		warn(err.Error())
	}
	rerun.WrightVersion = version
	opts := mcp.Options{Version: version, Layers: f.configs, Overrides: overrides, Library: lib, OutputDir: f.outputDir, Warn: warn}
	if f.http != "" {
		// Over stdio a dead client closes the pipe; over HTTP only an
		// unanswered ping tells.
		opts.KeepAlive = f.keepalive
	}
	// The browser's options hold the config's secrets, which every answer
	// is redacted of, browser tools or not.
	so, err := mcp.SessionOptions(cfg)
	if err != nil {
		return usageError("%v", err)
	}
	opts.Secrets = so.Secrets
	if so.FileRoot, err = filepath.Abs(f.workspace); err != nil {
		return usageError("--workspace: %v", err)
	}
	if !f.noBrowser {
		opts.Browser = mcp.Sessions{Options: so}
	}
	srv := mcp.New(opts)
	if f.http == "" {
		return srv.ServeStdio(cmd.Context())
	}
	return serveMCPHTTP(cmd, srv, f)
}

// serveMCPHTTP serves streamable HTTP until Ctrl-C, then closes every
// session's browser.
func serveMCPHTTP(cmd *cobra.Command, srv *mcp.Server, f mcpFlags) error {
	defer srv.Close()
	if err := mcp.CheckAddr(f.http, f.allowRemote); err != nil {
		return usageError("%v", err)
	}
	token := strings.TrimSpace(os.Getenv(mcp.TokenEnv))
	if token == "" {
		var err error
		if token, err = mcp.NewToken(); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", f.http)
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	hs := &http.Server{Handler: srv.Handler(mcp.HTTPOptions{Token: token, AllowRemote: f.allowRemote,
		IdleTimeout: f.idle, MaxSessions: f.maxSessions, MaxCalls: f.maxCalls}),
		ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	fmt.Fprintf(cmd.OutOrStdout(), "url: http://%s/mcp\ntoken: %s\n", ln.Addr(), token)
	fmt.Fprintln(cmd.ErrOrStderr(), "wright: serving MCP until Ctrl-C; send the token as Authorization: Bearer TOKEN")
	select {
	case err := <-done:
		if !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("mcp: %w", err)
		}
		return nil
	case <-cmd.Context().Done():
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(ctx)
}

func mcpConfigCommand() *cobra.Command {
	var agent, url, command string
	var args []string
	cmd := &cobra.Command{
		Use:   "config --agent " + strings.Join(mcp.ClientNames(), "|"),
		Short: "Print the config snippet an MCP client needs to start or reach wright mcp",
		Long: `Print the JSON (or, for Codex, TOML) a client's MCP config needs for wright, and
say on stderr which file it goes in. With --url the snippet points at a running
wright mcp --http and reads the token from $` + mcp.TokenEnv + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			text, file, err := mcp.Snippet(agent, mcp.ClientSetup{Command: command, Args: args, URL: url})
			if err != nil {
				return usageError("--agent: %v", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wright: for %s, in %s:\n", agent, file)
			_, err = fmt.Fprint(cmd.OutOrStdout(), text)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&agent, "agent", "claude", "the client: "+strings.Join(mcp.ClientNames(), ", "))
	fl.StringVar(&url, "url", "", "the URL of a running wright mcp --http (http://127.0.0.1:8931/mcp) instead of stdio")
	fl.StringVar(&command, "command", "wright", "the wright binary the client starts")
	fl.StringArrayVar(&args, "arg", nil, "an argument after `mcp` (repeatable): --arg -c --arg my.yaml")
	return cmd
}
