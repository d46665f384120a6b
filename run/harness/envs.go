package harness

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"wright/browser"
	"wright/env"
	"wright/env/live"
	"wright/env/workspace"
	"wright/run/config"
	"wright/run/rundir"
	"wright/trust/sandbox"
	"wright/trust/secrets"
)

// setup is what an environment is started from.
type setup struct {
	cfg  *config.Config
	run  *rundir.Run
	task Task
	// vars are the variables the model's code gets on top of this
	// process's environment (keys removed).
	vars map[string]string
	// secrets are typed by the live driver and redacted from its logs.
	secrets *secrets.Set
	// sandbox, when set, is the bubblewrap sandbox of the model's
	// processes (env.sandbox).
	sandbox *sandbox.Spec
	// sharedBrowser is Options.SharedBrowser.
	sharedBrowser string
}

// environment is one agent.mode: the kind of action it runs and how to
// start it for a run.
type environment struct {
	kind  env.Kind
	start func(ctx context.Context, s setup) (env.Environment, error)
}

// environments is the registry of agent.mode values. It is only read.
var environments = map[string]environment{
	"workspace": {workspace.Kind, newWorkspace},
	"browser":   {live.Kind, newLive},
}

// Modes lists the agent.mode values the harness can run.
func Modes() []string {
	var out []string
	for m := range environments {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// newWorkspace starts workspace mode: a persistent bash in a pty.
func newWorkspace(ctx context.Context, s setup) (env.Environment, error) {
	cfg := s.cfg
	return workspace.New(ctx, workspace.Options{
		Dir:         s.run.Workspace,
		Env:         s.vars,
		HideEnv:     cfg.KeyNames(),
		PathPrepend: []string{filepath.Dir(s.vars["WRIGHT_BIN"])},
		Timeout:     time.Duration(cfg.Env.CommandTimeoutSeconds * float64(time.Second)),
		OutputLimit: cfg.Env.OutputTruncationChars,
		RecentFiles: 8,
		Sandbox:     s.sandbox,
		Redact:      logRedactor(s.secrets),
	})
}

// newLive starts live browser mode: one persistent Python process bound to
// one live page.
func newLive(ctx context.Context, s setup) (env.Environment, error) {
	cfg := s.cfg
	private, err := privateRanges(cfg)
	if err != nil {
		return nil, err
	}
	har, err := harOptions(cfg, s.run.Dir)
	if err != nil {
		return nil, err
	}
	cdpURL, shared := cfg.Browser.CDPURL, false
	if cdpURL == "" && s.sharedBrowser != "" {
		cdpURL, shared = s.sharedBrowser, true
	}
	return live.New(ctx, live.Options{
		HAR:           har,
		SharedBrowser: shared,
		AllowPrivate:  private,
		Redact:        s.secrets.Redact,
		Workspace:     s.run.Workspace,
		LibDir:        filepath.Join(s.run.Dir, "lib", "live"),
		TaskJSON:      filepath.Join(s.run.Workspace, "task.json"),
		StartURL:      s.task.StartURL,
		Browser: browser.Options{
			Executable: config.Abs(cfg.Browser.Executable),
			CDPURL:     cdpURL,
			Headed:     !cfg.Browser.Headless,
			Viewport:   browser.Viewport{Width: cfg.Browser.Viewport.Width, Height: cfg.Browser.Viewport.Height},
			Timeout:    time.Duration(cfg.Browser.TimeoutMS) * time.Millisecond,
			Env:        hiddenEnviron(cfg.KeyNames()),
			Secrets:    browserSecrets(s.secrets),
		},
		AllowedDomains: cfg.Browser.AllowedDomains,
		BlockedDomains: cfg.Browser.BlockedDomains,
		StepTimeout:    time.Duration(cfg.Env.StepTimeoutSeconds * float64(time.Second)),
		AriaChars:      cfg.Env.AriaSnapshotChars,
		AriaMode:       cfg.Env.AriaSnapshot,
		OutputLimit:    cfg.Env.OutputTruncationChars,
		Env:            s.vars,
		HideEnv:        cfg.KeyNames(),

		AttachScreenshot:  cfg.Model.AttachObservationScreenshot,
		ScreenshotFormat:  cfg.Model.ObservationScreenshotFormat,
		ScreenshotQuality: cfg.Model.ObservationScreenshotQuality,
		Sandbox:           s.sandbox,
	})
}

// logRedactor is what rewrites the workspace's step logs: nothing without
// secrets (a log is read back only when there is something to find).
func logRedactor(set *secrets.Set) func(string) string {
	if set == nil || len(set.Names()) == 0 {
		return nil
	}
	return set.Redact
}
