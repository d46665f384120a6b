package browser

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"wright/browser/screencast"
	"wright/browser/video"
)

// ---- screenshots ---------------------------------------------------------------

// Screenshot captures the viewport, or the whole page with fullPage, as PNG.
func (p *Page) Screenshot(ctx context.Context, fullPage bool, timeout time.Duration) ([]byte, error) {
	return p.Capture(ctx, ShotOptions{FullPage: fullPage}, timeout)
}

func roundPx(f float64) float64 {
	if f < 1 {
		return 1
	}
	return float64(int(f + 0.5))
}

// Screenshot captures the element (scrolled into view) as PNG.
func (l *Locator) Screenshot(ctx context.Context, timeout time.Duration) ([]byte, error) {
	o := l.p.begin(ctx, timeout)
	defer o.end()
	_, _, box, err := l.actionableBox(o, action{name: "screenshot", visible: true, stable: true, position: &Point{}})
	if err != nil {
		return nil, err
	}
	if err := l.p.ensureVisible(o); err != nil {
		return nil, o.fail(err, "")
	}
	m, err := proto.PageGetLayoutMetrics{}.Call(o.rodPage())
	if err != nil {
		return nil, o.fail(err, "measuring the page")
	}
	clip := &proto.PageViewport{X: box.X, Y: box.Y, Width: box.Width, Height: box.Height, Scale: 1}
	if m.CSSVisualViewport != nil {
		// The clip is in document coordinates; the box is in the viewport's.
		clip.X += m.CSSVisualViewport.PageX
		clip.Y += m.CSSVisualViewport.PageY
	}
	shot, err := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng, Clip: clip, CaptureBeyondViewport: true}.Call(o.rodPage())
	if err != nil {
		return nil, o.fail(err, "taking the screenshot")
	}
	return shot.Data, nil
}

// ShotOptions shape a page screenshot.
type ShotOptions struct {
	FullPage bool
	Format   string // "png" (the default), "jpeg" or "webp"
	Quality  int    // 1-100 for jpeg and webp; 0: Chromium's default
	// Clip is the area to capture, in CSS pixels of the page (of the
	// document when FullPage, else of the viewport); nil: all of it.
	Clip *ShotClip
	// OmitBackground makes the page's default white background transparent
	// (png and webp), for the capture only.
	OmitBackground bool
	// CSSScale captures one image pixel per CSS pixel on a screen with more
	// than one device pixel per CSS pixel (Playwright's scale="css").
	CSSScale bool
}

// ShotClip is a screenshot's area in CSS pixels.
type ShotClip struct {
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// Validate says whether Chromium can take a screenshot so.
func (o ShotOptions) Validate() error {
	_, err := o.check()
	return err
}

// check validates the options and returns the capture format.
func (o ShotOptions) check() (proto.PageCaptureScreenshotFormat, error) {
	f := strings.ToLower(o.Format)
	switch f {
	case "", "png":
		if o.Quality != 0 {
			return "", newErr(ErrInvalidParams, "quality is for jpeg and webp screenshots, not png")
		}
		return proto.PageCaptureScreenshotFormatPng, nil
	case "jpg":
		f = "jpeg"
	case "jpeg", "webp":
	default:
		return "", newErr(ErrInvalidParams, "screenshot format must be png, jpeg or webp, got %q", o.Format)
	}
	if o.Quality < 0 || o.Quality > 100 {
		return "", newErr(ErrInvalidParams, "screenshot quality must be 0-100, got %d", o.Quality)
	}
	if c := o.Clip; c != nil && (c.Width <= 0 || c.Height <= 0) {
		return "", newErr(ErrInvalidParams, "screenshot clip width and height must be positive, got %gx%g", c.Width, c.Height)
	}
	return proto.PageCaptureScreenshotFormat(f), nil
}

// Capture takes a screenshot as the image's bytes.
func (p *Page) Capture(ctx context.Context, opts ShotOptions, timeout time.Duration) ([]byte, error) {
	b64, err := p.CaptureBase64(ctx, opts, timeout)
	if err != nil {
		return nil, err
	}
	img, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, newErr(ErrBrowser, "the browser sent a screenshot that is not base64: %v", err)
	}
	return img, nil
}

// CaptureBase64 takes a screenshot and returns it base64-encoded, as
// Chromium sends it: the driver passes it on to its client as it is,
// without decoding and encoding again. The capture asks Chromium for its
// fast encoder (optimizeForSpeed): a PNG a little larger, made several
// times faster, and it is paid on every step of a live run.
func (p *Page) CaptureBase64(ctx context.Context, opts ShotOptions, timeout time.Duration) (string, error) {
	format, err := opts.check()
	if err != nil {
		return "", err
	}
	if err := p.closedErr(); err != nil {
		return "", err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	if err := p.ensureVisible(o); err != nil {
		return "", o.fail(err, "")
	}
	req := proto.PageCaptureScreenshot{Format: format, OptimizeForSpeed: true}
	if opts.Quality > 0 {
		q := opts.Quality
		req.Quality = &q
	}
	if opts.FullPage {
		clip, err := p.pageClip(o)
		if err != nil {
			return "", err
		}
		req.CaptureBeyondViewport = true
		req.Clip = clip
	}
	if opts.Clip != nil || opts.CSSScale {
		if err := p.clipShot(o, opts, &req); err != nil {
			return "", err
		}
	}
	r := o.rodPage()
	if opts.OmitBackground {
		transparent := proto.EmulationSetDefaultBackgroundColorOverride{Color: &proto.DOMRGBA{}}
		if err := transparent.Call(r); err != nil {
			return "", o.fail(err, "making the background transparent")
		}
		// Back to the page's own background whatever the capture does.
		defer func() { _ = proto.EmulationSetDefaultBackgroundColorOverride{}.Call(r) }()
	}
	raw, err := r.Call(r.GetContext(), string(r.SessionID), req.ProtoReq(), req)
	if err != nil {
		return "", o.fail(err, "taking the screenshot")
	}
	var res struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", newErr(ErrBrowser, "decode the screenshot: %v", err)
	}
	if res.Data == "" {
		return "", newErr(ErrBrowser, "the browser sent an empty screenshot")
	}
	return res.Data, nil
}

// clipShot narrows req to opts.Clip (CSS pixels of the viewport, or of
// the document for a full page), and scales it to CSS pixels when asked.
// Chromium's clip is in document coordinates: a viewport clip is moved by
// the page's scroll offset.
func (p *Page) clipShot(o *op, opts ShotOptions, req *proto.PageCaptureScreenshot) error {
	m, err := proto.PageGetLayoutMetrics{}.Call(o.rodPage())
	if err != nil {
		return o.fail(err, "measuring the page")
	}
	var sx, sy, vw, vh float64
	if v := m.CSSVisualViewport; v != nil {
		sx, sy, vw, vh = v.PageX, v.PageY, v.ClientWidth, v.ClientHeight
	}
	area := req.Clip
	if area == nil {
		area = &proto.PageViewport{X: sx, Y: sy, Width: vw, Height: vh, Scale: 1}
	}
	if c := opts.Clip; c != nil {
		x, y := c.X, c.Y
		if !opts.FullPage {
			x, y = x+sx, y+sy
		}
		// Only what lies inside the area can be captured.
		x0, y0 := max(x, area.X), max(y, area.Y)
		x1, y1 := min(x+c.Width, area.X+area.Width), min(y+c.Height, area.Y+area.Height)
		if x1 <= x0 || y1 <= y0 {
			return newErr(ErrInvalidParams, "screenshot clip %gx%g at (%g, %g) lies outside the page", c.Width, c.Height, c.X, c.Y)
		}
		area = &proto.PageViewport{X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0, Scale: 1}
	}
	if opts.CSSScale {
		res, err := proto.RuntimeEvaluate{Expression: "window.devicePixelRatio", ReturnByValue: true}.Call(o.rodPage())
		if err != nil {
			return o.fail(err, "reading the device pixel ratio")
		}
		if dpr := res.Result.Value.Num(); dpr > 0 {
			area.Scale = 1 / dpr
		}
	}
	req.Clip = area
	req.CaptureBeyondViewport = true
	return nil
}

// pageClip is the whole page's area, never smaller than the viewport.
func (p *Page) pageClip(o *op) (*proto.PageViewport, error) {
	m, err := proto.PageGetLayoutMetrics{}.Call(o.rodPage())
	if err != nil {
		return nil, o.fail(err, "measuring the page")
	}
	if m.CSSContentSize == nil {
		return nil, newErr(ErrBrowser, "the page reported no content size")
	}
	w, h := m.CSSContentSize.Width, m.CSSContentSize.Height
	if m.CSSLayoutViewport != nil {
		w = max(w, float64(m.CSSLayoutViewport.ClientWidth))
		h = max(h, float64(m.CSSLayoutViewport.ClientHeight))
	}
	return &proto.PageViewport{Width: roundPx(w), Height: roundPx(h), Scale: 1}, nil
}

// ImageExt is the file extension of a screenshot format ("png" for "").
func ImageExt(format string) string {
	switch strings.ToLower(format) {
	case "jpeg", "jpg":
		return "jpg"
	case "webp":
		return "webp"
	}
	return "png"
}

// ---- PDF ------------------------------------------------------------------------

// PDFOptions shape page.pdf. Lengths are in inches (the client converts
// Playwright's "10cm", "2in", "96px"); zero leaves Chromium's default.
type PDFOptions struct {
	Scale               float64
	DisplayHeaderFooter bool
	HeaderTemplate      string
	FooterTemplate      string
	PrintBackground     bool
	Landscape           bool
	PageRanges          string
	Width, Height       float64
	MarginTop           float64
	MarginRight         float64
	MarginBottom        float64
	MarginLeft          float64
	PreferCSSPageSize   bool
	Outline             bool
	Tagged              bool
}

// PDF prints the page to a PDF document, with the print media Chromium
// applies when it prints (headless Chromium only: a headed one refuses).
func (p *Page) PDF(ctx context.Context, opts PDFOptions, timeout time.Duration) ([]byte, error) {
	if opts.Scale != 0 && (opts.Scale < 0.1 || opts.Scale > 2) {
		return nil, newErr(ErrInvalidParams, "pdf scale must be between 0.1 and 2, got %g", opts.Scale)
	}
	if err := p.closedErr(); err != nil {
		return nil, err
	}
	o := p.begin(ctx, timeout)
	defer o.end()
	req := proto.PagePrintToPDF{
		Landscape: opts.Landscape, DisplayHeaderFooter: opts.DisplayHeaderFooter, PrintBackground: opts.PrintBackground,
		PageRanges: opts.PageRanges, HeaderTemplate: opts.HeaderTemplate, FooterTemplate: opts.FooterTemplate,
		PreferCSSPageSize: opts.PreferCSSPageSize, GenerateDocumentOutline: opts.Outline, GenerateTaggedPDF: opts.Tagged,
	}
	set := func(dst **float64, v float64) {
		if v > 0 {
			*dst = &v
		}
	}
	set(&req.Scale, opts.Scale)
	set(&req.PaperWidth, opts.Width)
	set(&req.PaperHeight, opts.Height)
	// Margins are set even at zero: Playwright's default margin is none,
	// Chromium's is about 1cm.
	for _, m := range []struct {
		dst **float64
		v   float64
	}{{&req.MarginTop, opts.MarginTop}, {&req.MarginRight, opts.MarginRight}, {&req.MarginBottom, opts.MarginBottom}, {&req.MarginLeft, opts.MarginLeft}} {
		v := m.v
		*m.dst = &v
	}
	res, err := req.Call(o.rodPage())
	if err != nil {
		return nil, o.fail(err, "printing the page to PDF")
	}
	return res.Data, nil
}

// ---- screencast and video ------------------------------------------------------

// Screencast is the page's screencast: anyone may subscribe to its frames
// (package screencast); Chromium paints them only while someone does.
func (p *Page) Screencast() *screencast.Caster { return p.cast }

// pageSession sends the screencast's CDP calls on the page's session.
type pageSession struct{ p *Page }

func (s pageSession) Call(ctx context.Context, req proto.Request) error {
	return callCDP(s.p.rod.Context(ctx), req)
}

// RecordVideo starts recording the page into a new WebM file in dir
// (created if missing), named at random as Playwright names its videos,
// and returns the file's path at once. size zero means the viewport fitted
// into 800x800. The video ends, and its file is finished, when the page
// closes; Close waits for that. A page may have several recordings (the
// driver's WRIGHT_VIDEO and the client's record_video_dir): Video and the
// methods below act on the last one.
func (p *Page) RecordVideo(ctx context.Context, dir string, size video.Size) (string, error) {
	if err := p.closedErr(); err != nil {
		return "", err
	}
	if !filepath.IsAbs(dir) {
		return "", newErr(ErrInvalidParams, "the video directory %q must be an absolute path", dir)
	}
	if size.Width <= 0 || size.Height <= 0 {
		size = video.DefaultSize(p.viewportSize(ctx))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", wrapErr(ErrBrowser, err, "create the video directory: %v", err)
	}
	rec, err := video.Start(ctx, filepath.Join(dir, randomName()+".webm"), size)
	if err != nil {
		return "", wrapErr(ErrBrowser, err, "record a video of page %s: %v", p.id, err)
	}
	cancel, err := p.cast.Subscribe(ctx, screencast.Options{MaxWidth: size.Width, MaxHeight: size.Height}, rec.Frame)
	if err != nil {
		_ = rec.Stop(context.Background())
		return "", p.targetErr(wrapErr(ErrBrowser, err, "record a video of page %s: %v", p.id, err))
	}
	p.mu.Lock()
	p.videos, p.videoCancels = append(p.videos, rec), append(p.videoCancels, cancel)
	closed := p.closed != ""
	p.mu.Unlock()
	if closed {
		// It closed while the recording started: end it as endScreencast would.
		p.endScreencast()
	}
	return rec.Path(), nil
}

// recordAll records a page the driver opened into Options.VideoDir
// (WRIGHT_VIDEO); a video that cannot be made is noted in the log, and the
// page is used all the same.
func (p *Page) recordAll(ctx context.Context) {
	dir := p.b.opts.VideoDir
	if dir == "" {
		return
	}
	if _, err := p.RecordVideo(ctx, dir, video.Size{}); err != nil && p.b.opts.Log != nil {
		fmt.Fprintf(p.b.opts.Log, "wright driver: no video of page %s: %v\n", p.id, err)
	}
}

// randomName is a file name no other video has.
func randomName() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Video is the page's last recording, or nil.
func (p *Page) Video() *video.Recorder {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.videos) == 0 {
		return nil
	}
	return p.videos[len(p.videos)-1]
}

// viewportSize is the page's viewport in CSS pixels (the browser's
// default viewport if the page cannot say).
func (p *Page) viewportSize(ctx context.Context) (int, int) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	v, err := proto.RuntimeEvaluate{Expression: "[innerWidth, innerHeight]", ReturnByValue: true}.Call(p.rod.Context(ctx))
	if err == nil && v.Result != nil && v.ExceptionDetails == nil {
		var wh [2]int
		if json.Unmarshal([]byte(v.Result.Value.JSON("", "")), &wh) == nil && wh[0] > 0 && wh[1] > 0 {
			return wh[0], wh[1]
		}
	}
	vp := p.b.opts.viewport()
	return vp.Width, vp.Height
}

// endScreencast runs once the page has closed (or crashed, or its browser
// went): the screencast ends and the video, if any, is finished with the
// frames it got. It makes calls and waits for the encoder, so it runs off
// the event pump, on a goroutine of the browser's, whose Close waits.
func (p *Page) endScreencast() {
	p.mu.Lock()
	recs, cancels := p.videos, p.videoCancels
	p.videoCancels = nil
	p.mu.Unlock()
	// The caster first: the page's session is gone, so the subscriptions'
	// ends must not try to stop Chromium's screencast over it.
	p.cast.Close()
	for _, cancel := range cancels {
		cancel()
	}
	for _, rec := range recs {
		_ = rec.Stop(context.Background())
	}
}

// videoFinishTimeout bounds the wait for an encoder to finish a file; the
// recorder itself kills an ffmpeg that takes longer than a minute.
const videoFinishTimeout = 2 * time.Minute

// waitVideo waits until the page's video file is finished (after the page
// closed); the recorder's error says why one could not be.
func (p *Page) waitVideo(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, videoFinishTimeout)
	defer cancel()
	p.mu.Lock()
	recs := p.videos
	p.mu.Unlock()
	var first error
	for _, rec := range recs {
		if err := rec.Wait(ctx); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// SaveVideo copies the page's finished video to path. The page must be
// closed: its video is finished only then.
func (p *Page) SaveVideo(ctx context.Context, path string) error {
	rec, err := p.closedVideo()
	if err != nil {
		return err
	}
	if err := rec.Wait(ctx); err != nil {
		return wrapErr(ErrBrowser, err, "%v", err)
	}
	if err := copyFile(rec.Path(), path); err != nil {
		return wrapErr(ErrBrowser, err, "save the video: %v", err)
	}
	return nil
}

// DeleteVideo removes the page's video file, now or once it is finished.
func (p *Page) DeleteVideo() error {
	rec := p.Video()
	if rec == nil {
		return newErr(ErrBrowser, "page %s records no video", p.id)
	}
	rec.Discard()
	return nil
}

func (p *Page) closedVideo() (*video.Recorder, error) {
	rec := p.Video()
	if rec == nil {
		return nil, newErr(ErrBrowser, "page %s records no video: start one with page.video_start", p.id)
	}
	if !p.isClosed() {
		return nil, newErr(ErrBrowser, "Page is not yet closed. Close the page prior to calling save_as")
	}
	return rec, nil
}
