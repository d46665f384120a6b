package browser

import (
	"context"
	"strconv"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// A window.open with a size in its features ("width=600,height=300") gives
// its popup that viewport, as a browser would size the new window. Chromium
// reports the features on the opener (Page.windowOpen) before the popup is
// adopted; each popup of the opener takes the oldest features not taken yet.

// maxWindowOpens bounds the features a page keeps for popups not adopted
// yet: a page opening windows in a loop cannot grow the queue for ever.
const maxWindowOpens = 64

// noteWindowOpen queues the features of a window.open of p.
func (p *Page) noteWindowOpen(msg *rod.Message) {
	var e proto.PageWindowOpen
	if msg.Method != "Page.windowOpen" || !msg.Load(&e) {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.windowOpens) >= maxWindowOpens {
		p.windowOpens = p.windowOpens[1:]
	}
	p.windowOpens = append(p.windowOpens, e.WindowFeatures)
}

// nextWindowFeatures takes the oldest queued features (nil for none).
func (p *Page) nextWindowFeatures() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.windowOpens) == 0 {
		return nil
	}
	f := p.windowOpens[0]
	p.windowOpens = p.windowOpens[1:]
	return f
}

// featuresSize reads width= and height= from window features; ok only
// when both are positive numbers.
func featuresSize(features []string) (width, height int, ok bool) {
	for _, f := range features {
		name, val, _ := strings.Cut(strings.TrimSpace(f), "=")
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil || n <= 0 {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "width", "innerwidth":
			width = n
		case "height", "innerheight":
			height = n
		}
	}
	return width, height, width > 0 && height > 0
}

// sizeFromWindowFeatures gives popup p the size its opener's window.open
// asked for, with its context's scale and mobile settings.
func (b *Browser) sizeFromWindowFeatures(ctx context.Context, p, opener *Page) error {
	w, h, ok := featuresSize(opener.nextWindowFeatures())
	if !ok {
		return nil
	}
	m := proto.EmulationSetDeviceMetricsOverride{Width: w, Height: h, DeviceScaleFactor: 1}
	if c := p.Context(); c != nil {
		b.mu.Lock()
		d := c.defaults
		b.mu.Unlock()
		if d != nil && d.Emulation != nil {
			if d.Emulation.DeviceScaleFactor > 0 {
				m.DeviceScaleFactor = d.Emulation.DeviceScaleFactor
			}
			m.Mobile = d.Emulation.IsMobile
		}
	}
	return callCDP(p.rod.Context(ctx), m)
}
