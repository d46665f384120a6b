package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"

	"wright/browser"
	"wright/browser/screencast"
	"wright/browser/video"
)

// onRecordedPage is onPage for the video's methods, which also work on a
// closed page: its video is finished only then.
func onRecordedPage[P interface{ pageID() string }](run func(ctx context.Context, p *browser.Page, params *P) (any, error)) handler {
	return func(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
		var params P
		if err := decode(raw, &params); err != nil {
			return nil, err
		}
		b, _ := c.s.current()
		var p *browser.Page
		if b != nil {
			p = b.Page(params.pageID())
		}
		if p == nil {
			_, err := c.s.page(params.pageID()) // its error names the page that is missing
			return nil, err
		}
		return run(withRoot(ctx, c.s.files()), p, &params)
	}
}

// pageVideoStart answers page.video_start.
func pageVideoStart(ctx context.Context, p *browser.Page, vp *struct {
	pageParams
	Dir    string `json:"dir"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}) (any, error) {
	if vp.Dir == "" {
		return nil, invalid("page.video_start needs \"dir\", the directory the video goes to")
	}
	if !filepath.IsAbs(vp.Dir) {
		return nil, invalid("page.video_start: \"dir\" must be an absolute path, got %q", vp.Dir)
	}
	if vp.Width < 0 || vp.Height < 0 {
		return nil, invalid("page.video_start: width and height must be positive, got %dx%d", vp.Width, vp.Height)
	}
	// ffmpeg writes into the folder by name: it is made here, beneath the
	// root and through no link, before ffmpeg is given it.
	dir, err := rootOf(ctx).mkdir("the video folder", vp.Dir)
	if err != nil {
		return nil, err
	}
	path, err := p.RecordVideo(ctx, dir, video.Size{Width: vp.Width, Height: vp.Height})
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": path}, nil
}

// pageVideoSaveAs answers page.video_save_as.
func pageVideoSaveAs(ctx context.Context, p *browser.Page, sp *struct {
	pageParams
	Path string `json:"path"`
}) (any, error) {
	if sp.Path == "" || !filepath.IsAbs(sp.Path) {
		return nil, invalid("page.video_save_as needs \"path\", an absolute path, got %q", sp.Path)
	}
	root := rootOf(ctx)
	if !root.confined() {
		return nil, p.SaveVideo(ctx, sp.Path)
	}
	if _, err := root.check("save the video", sp.Path); err != nil {
		return nil, err
	}
	// The finished video is saved to a folder of the driver's own, then
	// written through the policy: never to the client's name directly.
	tmp, err := os.MkdirTemp("", "wright-video-")
	if err != nil {
		return nil, browser.WrapError(browser.ErrBrowser, err, "save the video: %v", err)
	}
	defer os.RemoveAll(tmp)
	if err := p.SaveVideo(ctx, filepath.Join(tmp, "video.webm")); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(tmp, "video.webm"))
	if err != nil {
		return nil, browser.WrapError(browser.ErrBrowser, err, "save the video: %v", err)
	}
	return nil, root.writeFile("save the video", sp.Path, data)
}

// pageVideoDelete answers page.video_delete.
func pageVideoDelete(ctx context.Context, p *browser.Page, _ *pageParams) (any, error) {
	return nil, p.DeleteVideo()
}

// clientCast is one connection's screencast of one page: frames go to the
// client one at a time, each after the client acknowledged the one before
// (page.screencast_ack). A frame that comes meanwhile replaces the one
// waiting, so a slow client sees the newest picture, never a backlog.
type clientCast struct {
	c      *conn
	page   string
	cancel func()

	mu       sync.Mutex
	inFlight bool
	waiting  *screencast.Frame
}

// offer runs on the page's event goroutine; it only writes to the
// connection, as every event does.
func (cc *clientCast) offer(f screencast.Frame) {
	cc.mu.Lock()
	if cc.inFlight {
		cc.waiting = &f
		cc.mu.Unlock()
		return
	}
	cc.inFlight = true
	cc.mu.Unlock()
	cc.send(f)
}

func (cc *clientCast) ack() {
	cc.mu.Lock()
	next := cc.waiting
	cc.waiting = nil
	cc.inFlight = next != nil
	cc.mu.Unlock()
	if next != nil {
		cc.send(*next)
	}
}

func (cc *clientCast) send(f screencast.Frame) {
	cc.c.notifyParams("page.screencastframe", map[string]any{
		"page": cc.page, "data": f.JPEG, "timestamp": float64(f.Time.UnixNano()) / float64(time.Millisecond),
		"viewport_width": f.ViewportWidth, "viewport_height": f.ViewportHeight,
	})
}

// notifyParams writes a notification that only this connection gets.
func (c *conn) notifyParams(method string, params any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"jsonrpc": "2.0", "method": method, "params": params}); err != nil {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = c.w.Write(buf.Bytes())
}

type screencastParams struct {
	pageParams
	Width      int  `json:"width"`
	Height     int  `json:"height"`
	Quality    int  `json:"quality"`
	SendFrames bool `json:"send_frames"`
}

// pageScreencastStart answers page.screencast_start.
func pageScreencastStart(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var sp screencastParams
	if err := decode(raw, &sp); err != nil {
		return nil, err
	}
	p, err := c.s.page(sp.pageID())
	if err != nil {
		return nil, err
	}
	if sp.Width < 0 || sp.Height < 0 || sp.Quality < 0 || sp.Quality > 100 {
		return nil, invalid("page.screencast_start: width and height must be positive and quality 0-100, got %dx%d, %d",
			sp.Width, sp.Height, sp.Quality)
	}
	c.castMu.Lock()
	defer c.castMu.Unlock()
	if c.casts[sp.Page] != nil {
		return nil, browser.Errorf(browser.ErrBrowser, "Screencast is already started on page %s: stop it first", sp.Page)
	}
	cc := &clientCast{c: c, page: sp.Page}
	fn := func(screencast.Frame) {}
	if sp.SendFrames {
		fn = cc.offer
	}
	cc.cancel, err = p.Screencast().Subscribe(ctx, screencast.Options{MaxWidth: sp.Width, MaxHeight: sp.Height, Quality: sp.Quality}, fn)
	if err != nil {
		if err == screencast.ErrClosed {
			return nil, p.Err()
		}
		return nil, browser.Errorf(browser.ErrBrowser, "page.screencast_start: %v", err)
	}
	if c.casts == nil {
		c.casts = map[string]*clientCast{}
	}
	c.casts[sp.Page] = cc
	return nil, nil
}

// pageScreencastAck answers page.screencast_ack: the client is ready for
// the next frame.
func pageScreencastAck(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var pp pageParams
	if err := decode(raw, &pp); err != nil {
		return nil, err
	}
	c.castMu.Lock()
	cc := c.casts[pp.Page]
	c.castMu.Unlock()
	if cc != nil {
		cc.ack()
	}
	return nil, nil
}

// pageScreencastStop answers page.screencast_stop; stopping a screencast
// that is not running is fine.
func pageScreencastStop(ctx context.Context, c *conn, raw json.RawMessage) (any, error) {
	var pp pageParams
	if err := decode(raw, &pp); err != nil {
		return nil, err
	}
	c.castMu.Lock()
	cc := c.casts[pp.Page]
	delete(c.casts, pp.Page)
	c.castMu.Unlock()
	if cc != nil {
		cc.cancel()
	}
	return nil, nil
}

// endScreencasts stops the connection's screencasts when it ends.
func endScreencasts(c *conn) {
	c.castMu.Lock()
	casts := c.casts
	c.casts = nil
	c.castMu.Unlock()
	for _, cc := range casts {
		cc.cancel()
	}
}
