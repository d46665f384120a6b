package bench

import (
	"testing"

	"wright/run/config"
)

// A task that names its own Chromium, a headed window or a browser of its
// own must not be run in the bench's shared browser: it would silently get
// another browser than the one it asked for.
func TestSharedBrowserFits(t *testing.T) {
	shared := &SharedBrowser{Executable: "/usr/bin/chromium"}
	live := func(edit func(*config.Browser)) *config.Config {
		c := &config.Config{}
		c.Agent.Mode = "browser"
		c.Browser.Executable = "/usr/bin/chromium"
		c.Browser.Headless = true
		if edit != nil {
			edit(&c.Browser)
		}
		return c
	}
	cases := []struct {
		name string
		cfg  *config.Config
		want bool
	}{
		{"same browser", live(nil), true},
		{"own executable", live(func(b *config.Browser) { b.Executable = "/opt/slow-chromium" }), false},
		{"headed", live(func(b *config.Browser) { b.Headless = false }), false},
		{"remote browser", live(func(b *config.Browser) { b.CDPURL = "ws://127.0.0.1:9222" }), false},
		{"workspace", func() *config.Config { c := live(nil); c.Agent.Mode = "workspace"; return c }(), true},
	}
	for _, c := range cases {
		if got := shared.Fits(c.cfg); got != c.want {
			t.Errorf("%s: Fits = %v, want %v", c.name, got, c.want)
		}
	}
	var none *SharedBrowser
	if none.Fits(live(nil)) {
		t.Error("a nil shared browser fits nothing")
	}
}
