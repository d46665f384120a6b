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
as the run: the endpoint check then asks that endpoint for its models with the key
the config names.`,
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
	cmd.Flags().StringVar(&modelName, "model", "", "the model name to check for (model.name), as for wright run")
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
		checks = append(checks, checkEndpoint(ctx, cfg.Model))
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

func checkEndpoint(ctx context.Context, mc model.Config) check {
	c := check{name: "endpoint"}
	if name, ok := strings.CutPrefix(mc.Name, model.ReplayPrefix); ok {
		if _, err := os.Stat(name); err != nil {
			c.detail, c.fix = err.Error(), "point model.name at an existing replay file"
			return c
		}
		return check{name: "endpoint", ok: true, detail: "replay file " + name}
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
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+p.ProbePath, nil)
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
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		c.detail, c.fix = fmt.Sprintf("%s refused the key (HTTP %d)", base, resp.StatusCode), "set "+keyEnv+" to a valid API key"
		return c
	case resp.StatusCode >= 500:
		c.detail, c.fix = fmt.Sprintf("%s answered HTTP %d", base, resp.StatusCode), "the server is failing; try again later"
		return c
	}
	detail := fmt.Sprintf("%s answered HTTP %d", base, resp.StatusCode)
	if key == "" {
		detail += " (no key in " + keyEnv + ")"
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
