package suite

import (
	"testing"

	"wright/config"
)

func TestBrowserGridSharedInTurn(t *testing.T) {
	var x HarnessExecutor
	var got []string
	for range 5 {
		cfg := &config.Config{Browser: config.Browser{CDPURLs: []string{"ws://a", "ws://b"}}}
		x.shareBrowsers(cfg)
		got = append(got, cfg.Browser.CDPURL)
	}
	if want := "ws://a ws://b ws://a ws://b ws://a"; joinSpace(got) != want {
		t.Errorf("turns %v", got)
	}
	cfg := &config.Config{Browser: config.Browser{CDPURL: "ws://own", CDPURLs: []string{"ws://a"}}}
	x.shareBrowsers(cfg)
	if cfg.Browser.CDPURL != "ws://own" {
		t.Errorf("cdp_url overridden: %s", cfg.Browser.CDPURL)
	}
}

func joinSpace(xs []string) string {
	out := ""
	for i, x := range xs {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
