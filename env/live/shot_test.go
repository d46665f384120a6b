package live

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without an attached image the observation does not wait for the
// screenshot, but the next step's code already finds it whole on disk.
func TestScreenshotWrittenBeforeNextStep(t *testing.T) {
	site := fixtureSite(t)
	e, run := startEnv(t, site.URL+"/", nil)
	obs := step(t, e, 1, "pass")
	wantSuccess(t, obs)
	if str(obs, "screenshot") != "screenshots/step_0001.png" || str(obs, "screenshot_path") != filepath.Join(run.ws, "screenshots", "step_0001.png") {
		t.Fatalf("screenshot %q path %q", obs["screenshot"], obs["screenshot_path"])
	}
	obs = step(t, e, 2, "import os\np = os.path.join(os.environ['WORKSPACE_DIR'], 'screenshots', 'step_0001.png')\n"+
		"b = open(p, 'rb').read()\nprint('png', b[1:4] == b'PNG', b[-8:-4] == b'IEND')")
	wantSuccess(t, obs)
	if out := str(obs, "python_output"); out != "png True True" {
		t.Errorf("step 2 read step 1's screenshot as %q", out)
	}
	if _, err := os.Stat(filepath.Join(run.ws, "screenshots", "step_0001.png.tmp")); !os.IsNotExist(err) {
		t.Errorf("a temporary screenshot file is left: %v", err)
	}
}

// Close (the end of a run, however it ended) writes the last screenshot,
// even when the step's context was cancelled as the observation was made.
func TestScreenshotWrittenByClose(t *testing.T) {
	site := fixtureSite(t)
	run := newTestRun(t, site.URL+"/")
	ctx := context.Background()
	e, err := New(ctx, run.options(site.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	obs := step(t, e, 1, "pass")
	wantSuccess(t, obs)
	// Interrupted: the step is cancelled while it runs.
	sctx, cancel := context.WithCancel(ctx)
	go func() { cancel() }()
	_, _ = e.Execute(sctx, 2, "import time\ntime.sleep(0.5)")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"step_0001.png"} {
		b, err := os.ReadFile(filepath.Join(run.ws, "screenshots", name))
		if err != nil || len(b) < 100 || string(b[1:4]) != "PNG" {
			t.Errorf("%s: %d bytes, %v", name, len(b), err)
		}
	}
	// Step 2, if it got as far as its observation, has a whole file too.
	if b, err := os.ReadFile(filepath.Join(run.ws, "screenshots", "step_0002.png")); err == nil && string(b[1:4]) != "PNG" {
		t.Errorf("step 2's screenshot is not a PNG")
	}
}

// With the image attached the observation waits for it, in the configured
// format; a bad format is refused at start.
func TestAttachedScreenshotFormat(t *testing.T) {
	site := fixtureSite(t)
	e, run := startEnv(t, site.URL+"/", func(o *Options) {
		o.AttachScreenshot, o.ScreenshotFormat, o.ScreenshotQuality = true, "jpeg", 70
	})
	obs := step(t, e, 1, "pass")
	path := str(obs, "screenshot_path")
	if path != filepath.Join(run.ws, "screenshots", "step_0001.jpg") {
		t.Fatalf("screenshot_path %q", path)
	}
	b, err := os.ReadFile(path) // no Flush: the observation waited
	if err != nil || len(b) < 100 || b[0] != 0xFF || b[1] != 0xD8 {
		t.Errorf("jpeg file: %d bytes, %v", len(b), err)
	}

	bad := newTestRun(t, "")
	opts := bad.options("")
	opts.AttachScreenshot, opts.ScreenshotFormat = true, "gif"
	if _, err := New(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "png, jpeg or webp") {
		t.Errorf("format gif: %v", err)
	}
}
