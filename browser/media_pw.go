package browser

import (
	"context"

	"github.com/go-rod/rod/lib/proto"
)

// Media is the CSS media a page is rendered for (Playwright's
// emulate_media). Every field is set on each call: "" is no override.
type Media struct {
	Type          string `json:"media"` // screen or print
	ColorScheme   string `json:"color_scheme"`
	ReducedMotion string `json:"reduced_motion"`
	ForcedColors  string `json:"forced_colors"`
	Contrast      string `json:"contrast"`
}

// EmulateMedia renders the page for m, replacing what an earlier call set.
func (p *Page) EmulateMedia(ctx context.Context, m Media) error {
	if err := p.closedErr(); err != nil {
		return err
	}
	o := p.begin(ctx, 0)
	defer o.end()
	req := proto.EmulationSetEmulatedMedia{Media: noOverride(m.Type)}
	for _, f := range []struct{ name, value string }{{"prefers-color-scheme", m.ColorScheme},
		{"prefers-reduced-motion", m.ReducedMotion}, {"forced-colors", m.ForcedColors}, {"prefers-contrast", m.Contrast}} {
		req.Features = append(req.Features, &proto.EmulationMediaFeature{Name: f.name, Value: noOverride(f.value)})
	}
	if err := callCDP(o.rodPage(), req); err != nil {
		return o.fail(err, "emulating media")
	}
	return nil
}

func noOverride(v string) string {
	if v == "null" || v == "no-override" {
		return ""
	}
	return v
}
