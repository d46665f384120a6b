package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"wright/browser"
)

// A step's screenshot is taken beside its ARIA snapshot. When the model
// does not see it (the default), the observation does not wait for it: the
// capture goes on in the background and is written before the next step
// starts and before Close returns, so the run's files are complete when
// the run ends. When the model sees it, the observation waits, since the
// agent reads the file as soon as the observation is back.

// pendingShot is a screenshot still being taken for an observation
// already returned.
type pendingShot struct {
	step int
	path string // workspace-relative, for the notice
	done chan error
}

// shotPath is where step's screenshot goes, in the configured format when
// the model sees it, PNG otherwise.
func (e *Env) shotPath(step int) string {
	ext := "png"
	if e.opts.AttachScreenshot {
		ext = browser.ImageExt(e.opts.ScreenshotFormat)
	}
	return filepath.Join(e.ws, "screenshots", fmt.Sprintf("step_%04d.%s", step, ext))
}

// shotOptions is the capture's format: the configured one when the model
// sees the image; PNG, lossless, for the run's files otherwise.
func (e *Env) shotOptions() browser.ShotOptions {
	if !e.opts.AttachScreenshot {
		return browser.ShotOptions{}
	}
	return browser.ShotOptions{Format: e.opts.ScreenshotFormat, Quality: e.opts.ScreenshotQuality}
}

// startShot begins the viewport screenshot of p for step and returns the
// channel its outcome arrives on. The capture outlives ctx's cancellation
// (an interrupted run still gets its last screenshot) but not
// observeTimeout.
func (e *Env) startShot(ctx context.Context, p *browser.Page, step int) (string, chan error) {
	path := e.shotPath(step)
	opts := e.shotOptions()
	done := make(chan error, 1)
	go func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), observeTimeout)
		defer cancel()
		done <- writeShot(sctx, p, opts, path)
	}()
	return path, done
}

func writeShot(ctx context.Context, p *browser.Page, opts browser.ShotOptions, path string) error {
	img, err := p.Capture(ctx, opts, observeTimeout)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// Written whole under a temporary name, then renamed: a reader never
	// sees half an image, even if wright is killed mid-write.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, img, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// settleShot waits for the screenshot of the previous observation, if one
// is still being taken; a failure becomes a notice for the next
// observation. Called with e.mu held.
func (e *Env) settleShot() {
	ps := e.pending
	if ps == nil {
		return
	}
	e.pending = nil
	if err := <-ps.done; err != nil {
		e.notices = append(e.notices, fmt.Sprintf("The screenshot of step %d could not be taken (%v), so %s does not exist.", ps.step, err, ps.path))
	}
}

// awaitShot is settleShot bounded by ctx: when ctx ends first, the
// screenshot stays pending (Close or the next step settles it).
func (e *Env) awaitShot(ctx context.Context) error {
	if e.pending == nil {
		return nil
	}
	select {
	case err := <-e.pending.done:
		e.pending.done <- err // settleShot takes it
		e.settleShot()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Flush waits until every file the last observation named is written (its
// screenshot). The agent calls it before the run's result is saved.
func (e *Env) Flush() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.settleShot()
}
