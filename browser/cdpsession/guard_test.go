package cdpsession

import (
	"errors"
	"testing"
)

func TestAllowed(t *testing.T) {
	for _, c := range []struct {
		method  string
		browser bool
		ok      bool
	}{
		{"Runtime.evaluate", false, true},
		{"DOM.getDocument", false, true},
		{"Network.enable", false, true},
		{"Page.captureScreenshot", false, true},
		{"Page.navigate", false, false},
		{"Fetch.enable", false, false},
		{"Network.loadNetworkResource", false, false},
		{"DOM.setFileInputFiles", false, false},
		{"Page.setDownloadBehavior", false, false},
		{"Target.createTarget", false, false},
		{"Browser.setDownloadBehavior", true, false},
		{"Target.getTargets", true, true},
		{"Runtime.evaluate", true, false},
		{"nonsense", false, false},
		{"Madeup.method", false, false},
	} {
		err := Allowed(c.method, c.browser)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrRefused)) {
			t.Errorf("Allowed(%q, browser=%v) = %v, want allowed=%v", c.method, c.browser, err, c.ok)
		}
	}
}
