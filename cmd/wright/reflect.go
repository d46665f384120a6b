package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"wright/model"
	"wright/run/config"
	"wright/run/gate"
	"wright/run/judge"
	"wright/run/judge/keyproxy"
	"wright/run/verdict"
	"wright/trust/keyring"
)

// judgeSettings are the model flags reflect and image-qa share, and the
// config layers that fill in what neither the flags nor the environment say.
type judgeSettings struct {
	judge.JudgeModel
	layers []string
}

// judgeModelFlags registers the shared flags.
func judgeModelFlags(cmd *cobra.Command, js *judgeSettings) {
	j := &js.JudgeModel
	f := cmd.Flags()
	f.StringArrayVar(&js.layers, "wright-config", nil, "wright config layers, as for wright run: the judge is gate.model, falling back to model (used when neither --model nor $WRIGHT_MODEL names one)")
	f.StringVar(&j.Name, "model", "", "judge model name (default $WRIGHT_MODEL)")
	f.StringVar(&j.API, "api", "", "wire API: "+model.ProviderChoices()+" (default $WRIGHT_MODEL_API, else "+model.DefaultAPI+")")
	f.StringVar(&j.BaseURL, "base-url", "", "base URL, with or without /v1 (default $WRIGHT_MODEL_BASE_URL, $OPENAI_BASE_URL or $ANTHROPIC_BASE_URL, or $WRIGHT_MODEL_SOCKET's key proxy when no key is set)")
	f.StringVar(&j.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (default ANTHROPIC_API_KEY for anthropic, else OPENAI_API_KEY)")
	f.Float64Var(&j.TimeoutSeconds, "timeout-seconds", 0, "per-request timeout in seconds (default: the client's)")
	f.IntVar(&j.MaxAttempts, "max-attempts", 0, "attempts per request on transient errors such as HTTP 429/5xx (default: the client's)")
}

// newJudgeClient builds the judge's client; every problem here is a usage
// or configuration error.
func newJudgeClient(js judgeSettings) (model.Client, string, string, error) {
	j := js.JudgeModel
	if j.Name == "" && os.Getenv(keyproxy.ModelEnv) == "" && os.Getenv("WRIGHT_MODEL_NAME") == "" {
		// Outside a run: the judge of the config files.
		c, err := config.Load(js.layers, nil)
		if err != nil {
			return nil, "", "", usageError("%v", err)
		}
		jm, err := c.JudgeModel()
		if err != nil {
			return nil, "", "", usageError("%v", err)
		}
		j.Name = jm.Name
		if j.API == "" {
			j.API = jm.API
		}
		if j.BaseURL == "" {
			j.BaseURL = jm.BaseURL
		}
		if j.APIKeyEnv == "" {
			j.APIKeyEnv = jm.APIKeyEnv
		}
	}
	cfg, endpoint, err := j.Resolve(keyring.Getenv)
	if err != nil {
		return nil, "", "", usageError("%v", err)
	}
	client, err := model.New(cfg, nil) // price warnings mean nothing for a judge call
	if err != nil {
		return nil, "", "", usageError("%v", err)
	}
	return client, cfg.Name, endpoint, nil
}

// judgeError maps the gate's errors onto exit codes: configuration problems
// are usage errors (2), everything else a failure (1).
func judgeError(err error) error {
	var cfgErr *judge.ConfigError
	if errors.As(err, &cfgErr) {
		return &exitError{code: 2, err: err}
	}
	return &exitError{code: 1, err: err}
}

// reflectFlags are the flags of `wright reflect`.
type reflectFlags struct {
	j            judgeSettings
	configPath   string
	workspace    string
	output       string
	runsDir      string
	parseRetries int
	concurrency  int
	printDefault bool
}

func init() {
	var f reflectFlags
	cmd := &cobra.Command{
		Use:   "reflect",
		Short: "Judge the newest final run from its screenshots and log (the self-reflection gate's judge)",
		Long: `reflect runs the two-stage screenshot judge on a final run.

Stage 1 scores each screenshot 1-5 with reasoning; stage 2 sees all of them,
those notes and final_script_log.txt, and ends "Status: success|failure".
The verdict is written as JSON (predicted_label 1, 0 or null) to --output,
by default self_reflect_result.json in the run folder judged.

Exit status: 0 success, 1 failure or no verdict, 2 usage or config error.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runReflect(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.configPath, "config", "", "the judge's prompt file, self_reflect_config.json (not wright's YAML config; default: the workspace's self_reflect_config.json if present, else the built-in prompts)")
	fl.StringVar(&f.workspace, "workspace-dir", ".", "the workspace holding final_runs/ and task.json")
	fl.StringVar(&f.output, "output", "", "where to write the verdict JSON (default: self_reflect_result.json in the run folder judged)")
	fl.StringVar(&f.runsDir, "auto-latest-run", gate.FinalRunsDir, "folder of run_<N> folders, relative to the workspace; the newest run with screenshots is judged")
	fl.IntVar(&f.parseRetries, "max-image-parse-retries", 3, "re-asks per screenshot when the judge's answer has no readable Score")
	fl.IntVar(&f.concurrency, "concurrency", 4, "screenshots judged in parallel")
	fl.BoolVar(&f.printDefault, "print-default-config", false, "print the built-in self_reflect_config.json and exit")
	judgeModelFlags(cmd, &f.j)
	rootCmd.AddCommand(cmd)
}

// runReflect is `wright reflect`: judge, write the verdict, exit 0 on a
// success.
func runReflect(cmd *cobra.Command, f reflectFlags) error {
	if f.printDefault {
		_, err := cmd.OutOrStdout().Write(judge.DefaultReflectConfigJSON())
		return err
	}
	ws, err := filepath.Abs(f.workspace)
	if err != nil {
		return usageError("--workspace-dir: %v", err)
	}
	opts := judge.ReflectOptions{
		Workspace:       ws,
		RunsDir:         f.runsDir,
		MaxParseRetries: f.parseRetries,
		Concurrency:     f.concurrency,
		Warn:            func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), "wright reflect: note:", s) },
	}
	if f.parseRetries == 0 {
		opts.MaxParseRetries = -1 // the flag's 0 means no retry; the API's 0 means the default
	}
	if f.parseRetries < 0 || f.concurrency < 1 {
		return usageError("--max-image-parse-retries must be >= 0 and --concurrency >= 1")
	}
	if sock := os.Getenv(verdict.SocketEnv); sock != "" {
		return reflectByHarness(cmd, sock, ws, f.runsDir, f.output)
	}
	if configPath := reflectConfigPath(ws, f.configPath); configPath != "" {
		cfg, err := judge.LoadReflectConfig(configPath, ws)
		if err != nil {
			return judgeError(err)
		}
		opts.Prompts, opts.ConfigImages = cfg.Prompts, cfg.Images
	}
	if opts.Schema, err = schemaFromEnv(); err != nil {
		return usageError("%v", err)
	}
	client, name, endpoint, err := newJudgeClient(f.j)
	if err != nil {
		return err
	}
	opts.Model, opts.Endpoint = name, endpoint

	res, err := judge.Reflect(cmd.Context(), client, opts)
	if err != nil {
		return judgeError(err)
	}
	out := f.output
	if out == "" {
		out = filepath.Join(ws, filepath.FromSlash(res.RunDir), gate.VerdictName)
	}
	if err := judge.WriteResult(out, res); err != nil {
		return &exitError{code: 1, err: err}
	}
	printVerdict(cmd, res, out)
	if !res.Success() {
		return &exitError{code: 1, err: errSilent}
	}
	return nil
}

// reflectConfigPath is the judge config to read: the one named (relative
// to the current directory, or else to the workspace), else the
// workspace's own self_reflect_config.json, else none.
func reflectConfigPath(ws, configPath string) string {
	if configPath == "" {
		if p := filepath.Join(ws, gate.ReflectConfig); judgeFileExists(p) {
			return p
		}
		return ""
	}
	if !filepath.IsAbs(configPath) && !judgeFileExists(configPath) && judgeFileExists(filepath.Join(ws, configPath)) {
		return filepath.Join(ws, configPath) // named relative to the workspace
	}
	return configPath
}

// printVerdict tells the reader what the judge decided and where it is.
func printVerdict(cmd *cobra.Command, res *judge.ReflectResult, out string) {
	w := cmd.OutOrStdout()
	for _, r := range res.ImageRecords {
		if r.ParseFailed {
			fmt.Fprintf(w, "  %s: unreadable after %d attempts (score 0)\n", r.ImagePath, r.Attempts)
			continue
		}
		fmt.Fprintf(w, "  %s: %d/5 %s\n", r.ImagePath, r.Score, judgeFirstLine(r.Reasoning))
	}
	verdict := "NO VERDICT (predicted_label null: the judge gave no Status line)"
	if res.PredictedLabel != nil {
		verdict = map[int]string{1: "SUCCESS (predicted_label 1)", 0: "FAILURE (predicted_label 0)"}[*res.PredictedLabel]
	}
	fmt.Fprintf(w, "verdict: %s\nwritten to %s\n", verdict, out)
	if !res.Success() {
		fmt.Fprintf(w, "judge's reasoning:\n%s\n", strings.TrimSpace(res.FinalResponse))
	}
}

func judgeFirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "..."
	}
	return s
}

func judgeFileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// reflectByHarness is `wright reflect` inside a run: the harness judges
// and writes the sealed verdict into the run folder (the only verdict the
// gate accepts); this process only asks and reports. The workspace must be
// the run's own.
func reflectByHarness(cmd *cobra.Command, sock, ws, runsDir, output string) error {
	req := verdict.Request{RunsDir: runsDir}
	if rel, err := filepath.Rel(currentWorkspace(ws), ws); err == nil && rel != "." {
		return usageError("inside a run, reflect judges the run's own workspace (%s), not %s", os.Getenv("WORKSPACE_DIR"), ws)
	}
	resp, err := verdict.Ask(cmd.Context(), sock, req)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if resp.Error != "" {
		code := 1
		if resp.Config {
			code = 2
		}
		return &exitError{code: code, err: errors.New(resp.Error)}
	}
	var res judge.ReflectResult
	if err := json.Unmarshal(resp.Verdict, &res); err != nil {
		return &exitError{code: 1, err: fmt.Errorf("the harness's verdict: %w", err)}
	}
	out := resp.Path
	if abs, err := filepath.Abs(output); output != "" && err == nil && abs != filepath.Clean(resp.Path) {
		// A copy elsewhere is for reading; the gate reads the run folder's.
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, resp.Verdict, "", "  "); err != nil {
			return &exitError{code: 1, err: err}
		}
		pretty.WriteByte('\n')
		if err := os.WriteFile(abs, pretty.Bytes(), 0o644); err != nil {
			return &exitError{code: 1, err: err}
		}
		out = abs
	}
	printVerdict(cmd, &res, out)
	if !res.Success() {
		return &exitError{code: 1, err: errSilent}
	}
	return nil
}

// currentWorkspace is the run's workspace as the harness exported it.
func currentWorkspace(fallback string) string {
	if w := os.Getenv("WORKSPACE_DIR"); w != "" {
		if abs, err := filepath.Abs(w); err == nil {
			return abs
		}
	}
	return fallback
}
