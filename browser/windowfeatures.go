package browser

import (
	"context"
	"strconv"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// A window.open with a size in its features ("width=600,height=300") gives
// its popup that viewport, as a browser would size the new window, and its
// URL is the popup's until the popup's document commits. Chromium reports
// them on the opener (Page.windowOpen) before the popup is adopted; each
// popup of the opener takes the oldest window.open not taken yet.

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
	p.windowOpens = append(p.windowOpens, windowOpen{url: e.URL, features: e.WindowFeatures})
}

// windowOpen is one window.open of a page, as Chromium reported it.
type windowOpen struct {
	url      string
	features []string
}

// nextWindowOpen takes the oldest queued window.open (zero for none).
func (p *Page) nextWindowOpen() windowOpen {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.windowOpens) == 0 {
		return windowOpen{}
	}
	w := p.windowOpens[0]
	p.windowOpens = p.windowOpens[1:]
	return w
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

// fromWindowOpen gives popup p what its opener's window.open asked for:
// the size, with its context's scale and mobile settings, and, until its
// first document commits, the URL it is opening (Chromium's target info has
// none yet, so popup.url would be blank when the popup is announced).
func (b *Browser) fromWindowOpen(ctx context.Context, p, opener *Page) error {
	open := opener.nextWindowOpen()
	if !isBlankURL(open.url) {
		p.mu.Lock()
		if isBlankURL(p.url) {
			p.url = open.url
		}
		p.mu.Unlock()
	}
	w, h, ok := featuresSize(open.features)
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
