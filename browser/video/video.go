// Package video records a page's screencast frames into a WebM (VP8)
// file, as Playwright's record_video_dir does. The encoding is ffmpeg's
// (Debian's ffmpeg, libvpx): a child process fed JPEG frames on its stdin.
// Frames come only when the page repaints, so the recorder repeats the
// last one to keep a constant frame rate and the video in real time.
package video

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"wright/browser/screencast"
)

// FPS is the frame rate of the videos.
const FPS = 25

// Size is a video's frame size in pixels.
type Size struct{ Width, Height int }

// DefaultSize is Playwright's rule for a video of a viewport: the viewport
// scaled down to fit 800x800, aspect ratio kept.
func DefaultSize(viewportWidth, viewportHeight int) Size {
	if viewportWidth <= 0 || viewportHeight <= 0 {
		return Size{800, 450}
	}
	scale := min(1, 800/float64(viewportWidth), 800/float64(viewportHeight))
	return Size{even(int(float64(viewportWidth) * scale)), even(int(float64(viewportHeight) * scale))}
}

// even rounds down to an even number of at least 2: VP8 in yuv420p
// halves each dimension for colour.
func even(n int) int {
	n &^= 1
	return max(n, 2)
}

// FFmpegEnv names the environment variable that points at an ffmpeg
// binary; otherwise ffmpeg is looked up on PATH.
const FFmpegEnv = "WRIGHT_FFMPEG"

// FindFFmpeg returns the ffmpeg to encode with, or an error saying how to
// install one.
func FindFFmpeg() (string, error) {
	if p := os.Getenv(FFmpegEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", FFmpegEnv, p, err)
		}
		return p, nil
	}
	p, err := exec.LookPath("ffmpeg")
	if err != nil {
		return "", errors.New("recording a video needs ffmpeg, which is not on PATH: install it (make deps, " +
			"or apt-get install ffmpeg / brew install ffmpeg) or set " + FFmpegEnv)
	}
	return p, nil
}

// Recorder writes one video. Frame feeds it; Stop finishes the file.
type Recorder struct {
	path  string
	size  Size
	start time.Time
	cmd   *exec.Cmd
	stdin io.WriteCloser
	log   bytes.Buffer // ffmpeg's stderr, for the error that says why it failed

	frames  chan screencast.Frame
	stop    sync.Once
	discard chan struct{} // closed by Discard
	discOne sync.Once
	done    chan struct{} // closed when the file is finished (or removed)
	err     error         // why the video could not be finished; set before done closes
}

// Start begins a video at path (its directory must exist), of frames
// padded or cropped to size, starting now.
func Start(ctx context.Context, path string, size Size) (*Recorder, error) {
	if size.Width <= 0 || size.Height <= 0 {
		return nil, fmt.Errorf("video size %dx%d: width and height must be positive", size.Width, size.Height)
	}
	size = Size{even(size.Width), even(size.Height)}
	bin, err := FindFFmpeg()
	if err != nil {
		return nil, err
	}
	r := &Recorder{path: path, size: size, start: time.Now(),
		frames: make(chan screencast.Frame, 64), done: make(chan struct{}), discard: make(chan struct{})}
	// Not CommandContext: the recorder ends ffmpeg by closing its input, so
	// the file gets its index; a killed ffmpeg leaves a file without one.
	r.cmd = exec.Command(bin, ffmpegArgs(path, size)...)
	r.cmd.Stderr = &limitedWriter{w: &r.log, n: 8 << 10}
	// A process group of its own: a Ctrl-C at the terminal must not end
	// ffmpeg before the recorder has given it the last frames. If the
	// driver dies instead, ffmpeg reads the end of its input and finishes
	// the file by itself, so it never outlives its owner for long.
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if r.stdin, err = r.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("start ffmpeg: %w", err)
	}
	if err := r.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start ffmpeg: %w", err)
	}
	go r.run()
	return r, nil
}

// ffmpegArgs reads JPEGs from stdin at FPS and writes VP8 WebM: frames of
// another size (a resized viewport) are padded with grey or cropped,
// top-left anchored, to the video's size. The settings favour speed: the
// machine encodes while the browser runs.
func ffmpegArgs(path string, size Size) []string {
	w, h := strconv.Itoa(size.Width), strconv.Itoa(size.Height)
	return []string{
		"-loglevel", "error",
		"-f", "image2pipe", "-c:v", "mjpeg", "-framerate", strconv.Itoa(FPS), "-i", "pipe:0",
		"-an", "-c:v", "libvpx", "-pix_fmt", "yuv420p", "-deadline", "realtime", "-cpu-used", "8",
		"-b:v", "1M", "-crf", "8", "-qmin", "0", "-qmax", "50", "-threads", "1",
		"-vf", "pad=max(iw\\," + w + "):max(ih\\," + h + "):0:0:gray,crop=" + w + ":" + h + ":0:0",
		"-r", strconv.Itoa(FPS), "-f", "webm", "-y", path,
	}
}

// Path is the video file's path.
func (r *Recorder) Path() string { return r.path }

// Frame adds a frame. It never blocks: when the encoder falls behind, the
// frame is dropped and the one before it stands in for its time.
func (r *Recorder) Frame(f screencast.Frame) {
	select {
	case <-r.done:
	default:
		select {
		case r.frames <- f:
		default:
		}
	}
}

// Stop ends the video at this moment and waits until the file is finished
// or ctx ends. It may be called any number of times.
func (r *Recorder) Stop(ctx context.Context) error {
	r.stop.Do(func() { close(r.frames) })
	return r.Wait(ctx)
}

// Wait waits until the video is finished (after Stop) or ctx ends.
func (r *Recorder) Wait(ctx context.Context) error {
	select {
	case <-r.done:
		return r.err
	case <-ctx.Done():
		return fmt.Errorf("wait for the video %s: %w", r.path, ctx.Err())
	}
}

// Discard removes the video: now if it is finished, else as soon as it is.
// The recording goes on meanwhile (its page is still open).
func (r *Recorder) Discard() {
	r.discOne.Do(func() { close(r.discard) })
	select {
	case <-r.done:
		_ = os.Remove(r.path)
	default:
	}
}

// Done is closed when the video is finished.
func (r *Recorder) Done() <-chan struct{} { return r.done }

// run feeds ffmpeg until Stop, then finishes the file.
func (r *Recorder) run() {
	defer close(r.done)
	var last []byte
	written := 0
	// fill writes the last frame until the video reaches time t.
	fill := func(t time.Time) error {
		target := int(t.Sub(r.start).Seconds() * FPS)
		for ; written < target; written++ {
			if _, err := r.stdin.Write(last); err != nil {
				return err
			}
		}
		return nil
	}
	var werr error
	for f := range r.frames {
		if werr != nil || len(f.JPEG) == 0 {
			continue // ffmpeg is gone: drain until Stop, then say why
		}
		if last == nil {
			last = f.JPEG // the first frame stands for the time before it
		}
		werr = fill(f.Time)
		last = f.JPEG
	}
	if werr == nil {
		werr = r.finishFrames(&last, &written, fill)
	}
	r.err = r.finish(werr)
	select {
	case <-r.discard:
		_ = os.Remove(r.path)
	default:
	}
}

// finishFrames writes the frames up to now, and at least one: a page that
// never painted gets a grey picture, so the file is a video either way.
func (r *Recorder) finishFrames(last *[]byte, written *int, fill func(time.Time) error) error {
	if *last == nil {
		*last = greyJPEG(r.size)
	}
	if err := fill(time.Now()); err != nil {
		return err
	}
	if *written == 0 {
		if _, err := r.stdin.Write(*last); err != nil {
			return err
		}
		*written = 1
	}
	return nil
}

// finish closes ffmpeg's input and waits for it to write the file's end.
// A video that could not be finished is removed, so no half file is left
// looking like a good one.
func (r *Recorder) finish(werr error) error {
	_ = r.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- r.cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(60 * time.Second):
		_ = r.cmd.Process.Kill()
		<-exited
		err = errors.New("ffmpeg did not finish within 60 s and was killed")
	}
	if err == nil && werr == nil {
		return nil
	}
	if err == nil {
		err = werr
	}
	_ = os.Remove(r.path)
	msg := bytes.TrimSpace(r.log.Bytes())
	if len(msg) > 0 {
		return fmt.Errorf("record the video %s: ffmpeg: %w: %s", r.path, err, msg)
	}
	return fmt.Errorf("record the video %s: ffmpeg: %w", r.path, err)
}

// greyJPEG is a plain grey frame of size.
func greyJPEG(size Size) []byte {
	img := image.NewRGBA(image.Rect(0, 0, size.Width, size.Height))
	draw.Draw(img, img.Bounds(), &image.Uniform{C: color.Gray{Y: 128}}, image.Point{}, draw.Src)
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, nil)
	return buf.Bytes()
}

// limitedWriter keeps the first n bytes written to it and drops the rest.
type limitedWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
	n  int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.n - l.w.Len(); room > 0 {
		l.w.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// Info is what ffprobe, the demuxer and decoder of standard players, reads
// from a video file.
type Info struct {
	Codec         string // "vp8"
	Width, Height int
	Seconds       float64
}

// Probe reads a WebM file's one video stream with ffprobe; an error means a
// player would not play it.
func Probe(ctx context.Context, path string) (Info, error) {
	bin := "ffprobe"
	if p := os.Getenv(FFmpegEnv); p != "" {
		bin = filepath.Join(filepath.Dir(p), "ffprobe")
	}
	out, err := exec.CommandContext(ctx, bin, "-v", "error", "-show_entries",
		"stream=codec_name,width,height:format=duration,format_name", "-of", "json", path).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return Info{}, fmt.Errorf("ffprobe %s: %w: %s", path, err, bytes.TrimSpace(ee.Stderr))
		}
		return Info{}, fmt.Errorf("ffprobe %s: %w", path, err)
	}
	var v struct {
		Streams []struct {
			Codec  string `json:"codec_name"`
			Width  int    `json:"width"`
			Height int    `json:"height"`
		} `json:"streams"`
		Format struct {
			Duration string `json:"duration"`
			Name     string `json:"format_name"`
		} `json:"format"`
	}
	if err := json.Unmarshal(out, &v); err != nil || len(v.Streams) != 1 {
		return Info{}, fmt.Errorf("ffprobe %s: not one video stream: %s", path, bytes.TrimSpace(out))
	}
	if !strings.Contains(v.Format.Name, "webm") {
		return Info{}, fmt.Errorf("%s is %q, not WebM", path, v.Format.Name)
	}
	secs, _ := strconv.ParseFloat(v.Format.Duration, 64)
	s := v.Streams[0]
	return Info{Codec: s.Codec, Width: s.Width, Height: s.Height, Seconds: secs}, nil
}
