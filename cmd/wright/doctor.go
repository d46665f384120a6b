package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"wright/browser"
	"wright/model"
	"wright/run/config"
	"wright/run/harness"
	"wright/trust/keyring"
	"wright/trust/sandbox"
)

func init() {
	var layers []string
	var modelName, baseURL string
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check that this machine can run wright, and say how to fix what is missing",
		Long: `Check Chromium, Python, the sandbox and the model endpoint with the config a run
would use, and say how to fix what fails. Give the same -c, --model and --base-url
as the run: the endpoint check first checks the model and its key as wright run
does (a key missing for an endpoint off this machine fails here as it would
there), then asks that endpoint for its models with the key the config names; an
answer other than 2xx fails. Recorded replies (--model builtin:recorded or
replay:FILE) need no endpoint and no key, and none is asked.

Exit codes: 0 when nothing failed (warnings allowed), 1 when a check failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			overrides := map[string]any{}
			if modelName != "" {
				overrides["model.name"] = modelName
			}
			if baseURL != "" {
				overrides["model.base_url"] = baseURL
			}
			return doctor(cmd.Context(), cmd, layers, overrides)
		},
	}
	cmd.Flags().StringArrayVarP(&layers, "config", "c", nil, "config layers, as for wright run")
	cmd.Flags().StringVar(&modelName, "model", "", "the model name to check for (model.name), as for wright run; builtin:recorded or replay:FILE checks no endpoint")
	cmd.Flags().StringVar(&baseURL, "base-url", "", "the OpenAI-compatible endpoint to check (model.base_url), as for wright run")
	rootCmd.AddCommand(cmd)
}

type check struct {
	name, detail, fix string
	ok                bool
	warn              bool // works, with a limit worth knowing; not a failure
}

func doctor(ctx context.Context, cmd *cobra.Command, layers []string, overrides map[string]any) error {
	var checks []check
	cfg, err := config.Load(layers, overrides)
	if err != nil {
		checks = append(checks, check{name: "config", detail: err.Error(), fix: "correct the file or -c value it names"})
	} else {
		checks = append(checks, check{name: "config", ok: true, detail: fmt.Sprintf("mode %s, model %s", cfg.Agent.Mode, cfg.Model.Name)})
	}
	checks = append(checks, checkChromium(ctx, cfg), checkPython(ctx), checkPlatform(), checkConfinement(), checkSandbox(cfg))
	if cfg != nil {
		checks = append(checks, checkEndpoint(ctx, cfg))
	}
	failed := 0
	for _, c := range checks {
		mark := "ok  "
		switch {
		case c.warn:
			mark = "warn"
		case !c.ok:
			mark, failed = "FAIL", failed+1
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s %-9s %s\n", mark, c.name, c.detail)
		if (!c.ok || c.warn) && c.fix != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "     fix: %s\n", c.fix)
		}
	}
	if failed > 0 {
		return &exitError{code: 1, err: errSilent}
	}
	return nil
}

func checkChromium(ctx context.Context, cfg *config.Config) check {
	c := check{name: "chromium", fix: chromiumFix()}
	want := ""
	if cfg != nil {
		want = cfg.Browser.Executable
		if cfg.Browser.CDPURL != "" {
			return check{name: "chromium", ok: true, detail: "remote browser at " + cfg.Browser.CDPURL + " (not checked)"}
		}
	}
	path, err := browser.FindExecutable(want)
	if err != nil {
		c.detail = err.Error()
		return c
	}
	out, err := commandOutput(ctx, path, "--version")
	if err != nil {
		c.detail = fmt.Sprintf("%s does not start: %v", path, err)
		return c
	}
	return check{name: "chromium", ok: true, detail: out + " (" + path + ")"}
}

// checkConfinement says whether the model's shell and Python runner get a
// PID namespace of their own (sandbox.Confine).
func checkConfinement() check {
	if ok, why := sandbox.PIDNamespaces(); !ok {
		return check{name: "confine", warn: true,
			detail: "no PID namespace for the model's processes (" + why + "): a process that clears its environment and leaves its session (env -i setsid ...) can outlive the run, and a SIGKILLed wright leaves the shell's children behind",
			fix:    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces > 0), or run in a container that permits them"}
	}
	return check{name: "confine", ok: true, detail: "the model's shell and Python runner get their own PID namespace; they end with the run and with wright"}
}

func checkPython(ctx context.Context) check {
	c := check{name: "python3", fix: "install Python 3.9 or newer (Debian: apt-get install python3)"}
	out, err := commandOutput(ctx, "python3", "-c", "import sys; assert sys.version_info >= (3, 9), sys.version; print(sys.version.split()[0])")
	if err != nil {
		c.detail = "python3: " + err.Error()
		return c
	}
	return check{name: "python3", ok: true, detail: "Python " + out}
}

// checkEndpoint checks the model a run would use as `wright run` checks
// it (harness.Build: the model, its key and the judge's), then, for a
// model behind an endpoint, asks the endpoint's probe path. Recorded
// replies need neither an endpoint nor a key.
func checkEndpoint(ctx context.Context, cfg *config.Config) check {
	mc := cfg.Model
	c := check{name: "endpoint"}
	if mc.Name == recordedModel {
		return check{name: "endpoint", ok: true, detail: recordedModel + ": the built-in demo suite's recorded replies (wright bench builtin:demo, wright demo); no endpoint and no key"}
	}
	replay, isReplay := strings.CutPrefix(mc.Name, model.ReplayPrefix)
	if isReplay {
		if _, err := os.Stat(replay); err != nil {
			c.detail, c.fix = err.Error(), "point model.name at an existing replay file"
			return c
		}
	}
	if _, err := harness.Build(cfg, harness.Options{}); err != nil {
		// What run would refuse, said in run's words: a missing key on
		// an endpoint that is not this machine's, a bad base URL, a
		// judge that cannot be built.
		c.detail, c.fix = err.Error(), "correct the setting it names: wright run refuses this config"
		if strings.Contains(err.Error(), "no API key") {
			c.fix = "export the key in the variable it names, or point model.base_url at an endpoint on this machine (loopback needs no key)"
		}
		return c
	}
	if isReplay {
		return check{name: "endpoint", ok: true, detail: "replay file " + replay + " (no endpoint, no key)"}
	}
	p, ok := model.LookupProvider(mc.API)
	if !ok {
		// config.Load refuses such a value first; this keeps the check
		// honest if it is ever called without.
		c.detail, c.fix = fmt.Sprintf("model.api is %q", mc.API), "use "+model.ProviderChoices()
		return c
	}
	base := model.ResolveBaseURL(mc.API, mc.BaseURL)
	keyEnv := mc.APIKeyEnv
	if keyEnv == "" {
		keyEnv = model.DefaultKeyEnv(mc.API)
	}
	key := keyring.Getenv(keyEnv)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	probe := strings.TrimRight(base, "/") + p.ProbePath
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, probe, nil)
	if err != nil {
		c.detail, c.fix = err.Error(), "set model.base_url to an http(s) URL"
		return c
	}
	p.Authorize(req.Header, key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.detail, c.fix = fmt.Sprintf("%s unreachable: %v", base, err), "check model.base_url / OPENAI_BASE_URL and that the server runs"
		return c
	}
	resp.Body.Close()
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		c.detail, c.fix = fmt.Sprintf("%s refused the key (HTTP %d)", base, code), "set "+keyEnv+" to a valid API key"
		return c
	case code == http.StatusNotFound:
		// Something answers, but not the API: a base URL without its
		// /v1, or a web server that is not a model endpoint.
		c.detail = fmt.Sprintf("%s answered HTTP 404 on %s: no %s API at this base URL", base, probe, mc.API)
		c.fix = fmt.Sprintf("check model.base_url (%s): it is the API's root, the URL its %s path hangs from (often ending in /v1)", base, p.ProbePath)
		return c
	case code >= 500:
		c.detail, c.fix = fmt.Sprintf("%s answered HTTP %d", base, code), "the server is failing; try again later"
		return c
	case code >= 300:
		c.detail, c.fix = fmt.Sprintf("%s answered HTTP %d on %s", base, code, probe), fmt.Sprintf("check model.base_url (%s) and the server's logs", base)
		return c
	}
	detail := fmt.Sprintf("%s answered HTTP %d", base, resp.StatusCode)
	if key == "" {
		detail += " (no key in " + keyEnv + ": an endpoint on this machine needs none)"
	}
	return check{name: "endpoint", ok: true, detail: detail}
}

func commandOutput(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var stderr strings.Builder
	c := exec.CommandContext(ctx, name, args...)
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", fmt.Errorf("%w: %s", err, firstLineOf(msg))
		}
		return "", err
	}
	return firstLineOf(strings.TrimSpace(string(out))), nil
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
