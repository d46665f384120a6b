package python

import (
	"strings"
	"testing"
)

// TestExpectLocatorScenario runs pw_expect_locators.py: expect() details
// and locator behaviour of the Playwright API, each checked by the script.
func TestExpectLocatorScenario(t *testing.T) {
	needWright(t)
	base := fixtureServer(t)
	stdout, stderr, tmp, err := script{name: "pw_expect_locators.py", fixture: base}.run(t)
	if err != nil || !strings.HasSuffix(strings.TrimSpace(stdout), "OK") {
		t.Fatalf("pw_expect_locators.py: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	assertNothingLeft(t, tmp, 0)
}
