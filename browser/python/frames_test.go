package python

import (
	"strings"
	"testing"
)

// TestFrameScenarios runs the scenarios of Playwright's frames (identity,
// events, detaching, child-frame navigation) and of beforeunload.
func TestFrameScenarios(t *testing.T) {
	needWright(t)
	base := fixtureServer(t)
	for _, name := range []string{"pw_frames", "pw_beforeunload"} {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, tmp, err := script{name: name + ".py", fixture: base}.run(t)
			if err != nil || !strings.HasSuffix(strings.TrimSpace(stdout), "OK") {
				t.Fatalf("%s.py: %v\nstdout:\n%s\nstderr:\n%s", name, err, stdout, stderr)
			}
			assertNothingLeft(t, tmp, 0)
		})
	}
}
