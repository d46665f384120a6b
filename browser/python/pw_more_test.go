package python

import (
	"strings"
	"testing"
)

// TestPlaywrightMoreScenarios runs the scenario scripts of selectors.register,
// console values and the smaller page API.
func TestPlaywrightMoreScenarios(t *testing.T) {
	needWright(t)
	base := fixtureServer(t)
	for _, name := range []string{"pw_selectors", "pw_misc"} {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, tmp, err := script{name: name + ".py", fixture: base}.run(t)
			if err != nil || !strings.HasSuffix(strings.TrimSpace(stdout), "OK") {
				t.Fatalf("%s.py: %v\nstdout:\n%s\nstderr:\n%s", name, err, stdout, stderr)
			}
			assertNothingLeft(t, tmp, 0)
		})
	}
}
