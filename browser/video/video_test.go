package video

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/browser/screencast"
)

func probe(t *testing.T, path string) Info {
	t.Helper()
	info, err := Probe(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func needFFmpeg(t *testing.T) {
	t.Helper()
	for _, bin := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed (make deps installs it)", bin)
		}
	}
}

func frameJPEG(t *testing.T, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRecorderWritesAPlayableWebMInRealTime(t *testing.T) {
	needFFmpeg(t)
	path := filepath.Join(t.TempDir(), "v.webm")
	r, err := Start(context.Background(), path, Size{100, 200})
	if err != nil {
		t.Fatal(err)
	}
	red, blue := frameJPEG(t, 100, 150, color.RGBA{255, 0, 0, 255}), frameJPEG(t, 120, 220, color.RGBA{0, 0, 255, 255})
	// Two frames a second apart: the first must be repeated for that second.
	r.Frame(screencast.Frame{JPEG: red, Time: r.start})
	r.Frame(screencast.Frame{JPEG: blue, Time: r.start.Add(time.Second)})
	if err := r.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := probe(t, path)
	if p.Codec != "vp8" || p.Width != 100 || p.Height != 200 {
		t.Fatalf("got %+v, want vp8 100x200", p)
	}
	if p.Seconds < 0.9 {
		t.Fatalf("duration %.2f s, want the second between the frames", p.Seconds)
	}
	if err := r.Stop(context.Background()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
}

func TestRecorderWithoutFramesStillWritesAVideo(t *testing.T) {
	needFFmpeg(t)
	path := filepath.Join(t.TempDir(), "v.webm")
	r, err := Start(context.Background(), path, DefaultSize(1280, 720))
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if p := probe(t, path); p.Width != 800 || p.Height != 450 {
		t.Fatalf("got %+v, want 800x450 (1280x720 fitted into 800x800)", p)
	}
}

// A killed ffmpeg cannot finish the file: the recorder says so and removes
// what is left rather than leave a broken video behind.
func TestRecorderWhoseEncoderDiedRemovesTheFile(t *testing.T) {
	needFFmpeg(t)
	path := filepath.Join(t.TempDir(), "v.webm")
	r, err := Start(context.Background(), path, Size{64, 64})
	if err != nil {
		t.Fatal(err)
	}
	r.Frame(screencast.Frame{JPEG: frameJPEG(t, 64, 64, color.White), Time: r.start})
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	err = r.Stop(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ffmpeg") {
		t.Fatalf("Stop after ffmpeg was killed: %v, want an ffmpeg error", err)
	}
	if _, serr := os.Stat(path); !os.IsNotExist(serr) {
		t.Fatalf("the broken video is still there (%v)", serr)
	}
}

func TestStartWithoutFFmpegSaysHowToInstallIt(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(FFmpegEnv, "")
	_, err := Start(context.Background(), filepath.Join(t.TempDir(), "v.webm"), Size{10, 10})
	if err == nil || !strings.Contains(err.Error(), "install") {
		t.Fatalf("got %v, want an error saying how to install ffmpeg", err)
	}
}

func TestDefaultSize(t *testing.T) {
	for _, c := range []struct{ w, h, ww, wh int }{{1280, 720, 800, 450}, {100, 200, 100, 200}, {1000, 400, 800, 320}, {0, 0, 800, 450}, {801, 3, 800, 2}} {
		if got := DefaultSize(c.w, c.h); got != (Size{c.ww, c.wh}) {
			t.Errorf("DefaultSize(%d, %d) = %v, want %dx%d", c.w, c.h, got, c.ww, c.wh)
		}
	}
}
