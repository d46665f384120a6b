package harness

import (
	"context"
	"path/filepath"
	"time"

	"wright/browser"
	"wright/env"
	"wright/env/live"
	"wright/run/config"
)

func init() { registerEnvironment("browser", environment{live.Kind, newLive}) }

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
			Secrets:    env.BrowserSecrets(s.secrets),
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
