// Package screencast shares one page's Chromium screencast (CDP
// Page.startScreencast) among any number of subscribers: a video recorder,
// a client's page.screencast, anything else that wants the page as it is
// painted. Chromium runs one screencast per page session, so the Caster
// starts it for the first subscriber, widens it when a later one asks for
// bigger frames, and stops it when the last one leaves.
package screencast

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Frame is one picture of the page as Chromium painted it.
type Frame struct {
	JPEG []byte    // the image, scaled by Chromium to fit the largest size asked for
	Time time.Time // when it arrived
	// The page's viewport in CSS pixels when it was painted (not the
	// image's size, which the subscribers' sizes decide).
	ViewportWidth, ViewportHeight int
}

// Options are what one subscriber asks of the screencast. Zero fields take
// the defaults: the page's viewport size, quality 80.
type Options struct {
	MaxWidth, MaxHeight int
	Quality             int // JPEG quality, 1-100
}

// Session sends a CDP request on the page's session. The browser package
// gives the Caster one; a test may give it any page's.
type Session interface {
	Call(ctx context.Context, req proto.Request) error
}

// ErrClosed is returned by Subscribe on a Caster whose page has gone.
var ErrClosed = errors.New("screencast: the page is closed")

type subscriber struct {
	opts Options
	fn   func(Frame)
}

// Caster is one page's screencast. Its methods are safe for concurrent use.
type Caster struct {
	session Session

	mu     sync.Mutex // the subscribers; never held across a call
	subs   map[int]*subscriber
	next   int
	closed bool

	// applyMu orders the start and stop calls; Handle never takes it, so a
	// call in flight cannot hold up the page's events.
	applyMu sync.Mutex
	running *Options // what Chromium was asked for; nil while stopped

	acks sync.WaitGroup // frame acknowledgements in flight
}

// New returns the Caster of the page behind session. It does nothing until
// someone subscribes.
func New(session Session) *Caster {
	return &Caster{session: session, subs: map[int]*subscriber{}}
}

// Subscribe delivers each frame to fn until cancel is called or the page
// closes. fn runs on the page's event goroutine: it must return at once
// (copy the frame somewhere, drop it if busy), never call the browser.
func (c *Caster) Subscribe(ctx context.Context, opts Options, fn func(Frame)) (cancel func(), err error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	id := c.next
	c.next++
	c.subs[id] = &subscriber{opts: opts, fn: fn}
	c.mu.Unlock()
	if err := c.apply(ctx); err != nil {
		c.remove(ctx, id)
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { c.remove(context.Background(), id) }) }, nil
}

func (c *Caster) remove(ctx context.Context, id int) {
	c.mu.Lock()
	delete(c.subs, id)
	c.mu.Unlock()
	// Stopping on a closed page fails; nothing is left to stop then.
	_ = c.apply(ctx)
}

// wantedLocked is the screencast the subscribers need: the largest size
// and quality any of them asked for, nil when there is none.
func (c *Caster) wantedLocked() *Options {
	if len(c.subs) == 0 || c.closed {
		return nil
	}
	var w Options
	for _, s := range c.subs {
		w.MaxWidth = max(w.MaxWidth, s.opts.MaxWidth)
		w.MaxHeight = max(w.MaxHeight, s.opts.MaxHeight)
		w.Quality = max(w.Quality, s.opts.Quality)
	}
	if w.Quality <= 0 || w.Quality > 100 {
		w.Quality = 80
	}
	return &w
}

// apply starts, restarts or stops Chromium's screencast to match what the
// subscribers want now.
func (c *Caster) apply(ctx context.Context) error {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	c.mu.Lock()
	want := c.wantedLocked()
	c.mu.Unlock()
	if want != nil && c.running != nil && *want == *c.running {
		return nil
	}
	if want == nil && c.running == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if want == nil {
		c.running = nil
		return c.session.Call(ctx, proto.PageStopScreencast{})
	}
	req := proto.PageStartScreencast{Format: proto.PageStartScreencastFormatJpeg, Quality: &want.Quality}
	if want.MaxWidth > 0 {
		req.MaxWidth = &want.MaxWidth
	}
	if want.MaxHeight > 0 {
		req.MaxHeight = &want.MaxHeight
	}
	// A new startScreencast replaces the running one with the new size.
	if err := c.session.Call(ctx, req); err != nil {
		return fmt.Errorf("start the screencast: %w", err)
	}
	o := *want
	c.running = &o
	return nil
}

// Handle takes the page's CDP events; it acts on Page.screencastFrame and
// ignores the rest. It is called on the page's event goroutine.
func (c *Caster) Handle(msg *rod.Message) {
	if msg.Method != "Page.screencastFrame" {
		return
	}
	var e proto.PageScreencastFrame
	if !msg.Load(&e) {
		return
	}
	// Chromium sends the next frame only once this one is acknowledged.
	// The acknowledgement is a call, which must not wait on the event
	// goroutine that delivers its own answer's neighbours.
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.acks.Add(1)
	subs := make([]*subscriber, 0, len(c.subs))
	for _, s := range c.subs {
		subs = append(subs, s)
	}
	c.mu.Unlock()
	go func() {
		defer c.acks.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.session.Call(ctx, proto.PageScreencastFrameAck{SessionID: e.SessionID})
	}()
	// The arrival time, not Chromium's swap timestamp, whose clock is not
	// always the wall clock: a recorder paces its video by it.
	f := Frame{JPEG: e.Data, Time: time.Now()}
	if m := e.Metadata; m != nil {
		f.ViewportWidth, f.ViewportHeight = int(m.DeviceWidth+0.5), int(m.DeviceHeight+0.5)
	}
	for _, s := range subs {
		s.fn(f)
	}
}

// Close ends the Caster when its page has gone: no more frames, Subscribe
// fails, and the acknowledgements in flight are waited for.
func (c *Caster) Close() {
	c.mu.Lock()
	c.closed = true
	c.subs = map[int]*subscriber{}
	c.mu.Unlock()
	c.applyMu.Lock()
	c.running = nil
	c.applyMu.Unlock()
	c.acks.Wait()
}
