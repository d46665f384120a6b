package browser

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/browser/screencast"
	"wright/browser/video"
)

// BenchmarkScreenshot measures a viewport screenshot (1280x1800) as PNG.
func BenchmarkScreenshot(b *testing.B) {
	p := open(b, "/buttons.html")
	if _, err := p.Screenshot(bg, false, 0); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Screenshot(bg, false, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func TestScreenshots(t *testing.T) {
	p := open(t, "/lazy.html")
	if err := loc(t, p, "text=Item 20").WaitFor(bg, "", 0); err != nil {
		t.Fatal(err)
	}
	if err := p.SetViewportSize(bg, 800, 600); err != nil {
		t.Fatal(err)
	}
	decode := func(b []byte) (w, h int) {
		t.Helper()
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("not a PNG: %v", err)
		}
		return img.Bounds().Dx(), img.Bounds().Dy()
	}
	shot, err := p.Screenshot(bg, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := decode(shot); w != 800 || h != 600 {
		t.Errorf("viewport screenshot %dx%d, want 800x600", w, h)
	}
	full, err := p.Screenshot(bg, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w, h := decode(full); w != 800 || h < 2000 {
		t.Errorf("full page screenshot %dx%d, want 800 wide and over 2000 high", w, h)
	}
	// An element below the fold: scrolled to, cropped to its box. The list
	// is told it is full first: scrolling to its end would load more items
	// and push the box down between the measuring and the capture.
	eval[any](t, p, `(() => { n = 60; const d = document.createElement('div'); d.id = 'box';
		d.style.cssText = 'width: 120px; height: 40px; background: rgb(255, 0, 0)'; document.body.appendChild(d) })()`)
	el, err := loc(t, p, "#box").Screenshot(bg, 0)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(el))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 120 || img.Bounds().Dy() != 40 {
		t.Errorf("element screenshot %v, want 120x40", img.Bounds())
	}
	r, g, b, _ := img.At(60, 20).RGBA()
	if r>>8 < 240 || g>>8 > 20 || b>>8 > 20 {
		t.Errorf("element screenshot is not the red box: rgb(%d,%d,%d)", r>>8, g>>8, b>>8)
	}
	wantType(t, p.SetViewportSize(bg, 0, 10), ErrInvalidParams)
}

func needFFmpeg(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed (make deps installs it)", bin)
		}
	}
}

// animate makes the page repaint on every animation frame until it closes.
const animate = `(() => { const f = () => { document.body.style.background = document.body.style.background === "red" ? "blue" : "red"; requestAnimationFrame(f); }; f(); return 1; })()`

// ffmpegsOf lists the live processes whose command line names path: the
// encoder of that video, while it runs.
func ffmpegsOf(path string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(path)) {
			found = append(found, e.Name()+": "+string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
		}
	}
	return found
}

// assertNoEncoder fails if an ffmpeg still writes path once its video is
// finished (Wait returned, so it was waited for: no grace needed).
func assertNoEncoder(t *testing.T, path string) {
	t.Helper()
	if left := ffmpegsOf(path); len(left) > 0 {
		t.Fatalf("ffmpeg left running:\n%s", strings.Join(left, "\n"))
	}
}

func TestRecordVideoIsAPlayableWebMOfThePage(t *testing.T) {
	needFFmpeg(t)
	p := open(t, "/form.html")
	dir := filepath.Join(t.TempDir(), "videos")
	path, err := p.RecordVideo(context.Background(), dir, video.Size{})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(path) != dir || filepath.Ext(path) != ".webm" {
		t.Fatalf("video path %s, want a .webm in %s", path, dir)
	}
	eval[int](t, p, animate)
	for i := 0; i < 5; i++ {
		eval[int](t, p, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))`)
	}
	if err := p.SaveVideo(context.Background(), filepath.Join(dir, "copy.webm")); err == nil || !strings.Contains(err.Error(), "not yet closed") {
		t.Fatalf("save of an open page's video: %v", err)
	}
	if err := p.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	info, err := video.Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	w, h := eval0(t)
	want := video.DefaultSize(w, h)
	if info.Codec != "vp8" || info.Width != want.Width || info.Height != want.Height || info.Seconds <= 0 {
		t.Fatalf("video %+v, want vp8 %dx%d with a duration", info, want.Width, want.Height)
	}
	assertNoEncoder(t, path)
	copyPath := filepath.Join(dir, "copy.webm")
	if err := p.SaveVideo(context.Background(), copyPath); err != nil {
		t.Fatal(err)
	}
	if err := p.DeleteVideo(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("deleted video still there: %v", err)
	}
	if _, err := video.Probe(context.Background(), copyPath); err != nil {
		t.Fatalf("the saved copy: %v", err)
	}
}

// eval0 is the shared browser's viewport, which a page's video fits.
func eval0(t *testing.T) (int, int) {
	vp := shared.opts.viewport()
	return vp.Width, vp.Height
}

// A context closed while its page records: the close returns with the
// video finished and its encoder gone.
func TestVideoOfAContextClosedMidRecord(t *testing.T) {
	needFFmpeg(t)
	needBrowser(t)
	ctx := context.Background()
	bc, err := shared.NewContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p, err := bc.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	path, err := p.RecordVideo(ctx, t.TempDir(), video.Size{Width: 320, Height: 240})
	if err != nil {
		t.Fatal(err)
	}
	eval[int](t, p, animate)
	if err := bc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	info, err := video.Probe(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Width != 320 || info.Height != 240 {
		t.Fatalf("video %+v, want 320x240", info)
	}
	assertNoEncoder(t, path)
}

// A browser with Options.VideoDir (the driver's WRIGHT_VIDEO) films every
// page it opens; one that crashes mid-record leaves a finished video (or
// none, with the reason), never a running encoder.
func TestVideoOfACrashedBrowser(t *testing.T) {
	needFFmpeg(t)
	needBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	dir := t.TempDir()
	b, err := Launch(ctx, Options{VideoDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	p, err := b.NewPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p.Video() == nil || filepath.Dir(p.Video().Path()) != dir {
		t.Fatalf("the page is not filmed into the VideoDir %s", dir)
	}
	path := p.Video().Path()
	eval[int](t, p, animate)
	if err := syscall.Kill(b.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	werr := p.Video().Wait(ctx)
	if _, serr := os.Stat(path); werr == nil {
		if _, err := video.Probe(ctx, path); err != nil {
			t.Fatalf("the video finished without an error but does not play: %v", err)
		}
	} else if !os.IsNotExist(serr) {
		t.Fatalf("the video failed (%v) but its file is still there", werr)
	}
	assertNoEncoder(t, path)
}

// Two subscribers share one screencast: both get frames, and the page's
// viewport comes with each.
func TestScreencastSubscribers(t *testing.T) {
	needBrowser(t)
	p := open(t, "/form.html")
	got := make(chan screencast.Frame, 1)
	cancelA, err := p.Screencast().Subscribe(context.Background(), screencast.Options{MaxWidth: 200, MaxHeight: 200},
		func(f screencast.Frame) {
			select {
			case got <- f:
			default:
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	defer cancelA()
	cancelB, err := p.Screencast().Subscribe(context.Background(), screencast.Options{}, func(screencast.Frame) {})
	if err != nil {
		t.Fatal(err)
	}
	cancelB()
	eval[int](t, p, animate)
	select {
	case f := <-got:
		vp := shared.opts.viewport()
		if len(f.JPEG) == 0 || f.ViewportWidth != vp.Width || f.ViewportHeight != vp.Height {
			t.Fatalf("frame of %d bytes, viewport %dx%d; want an image and %dx%d", len(f.JPEG), f.ViewportWidth, f.ViewportHeight, vp.Width, vp.Height)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no frame from an animated page")
	}
}
