package launcher

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// A headed Chromium on a machine without a display (a server, a container,
// CI) gets a private X server of its own: Xvfb, started by a small shell
// inside the browser's guarded process group, so the guard ends it with the
// browser however either ends. Xvfb picks a free display number and writes
// it to a file (-displayfd) once it accepts clients; the shell then starts
// Chromium on it. No display of the user's is touched, and two headed
// browsers get two servers.
const xvfbScript = `f="$WRIGHT_XVFB_DISPLAY_FILE"
Xvfb -displayfd 5 -screen 0 "$WRIGHT_XVFB_SCREEN" -nolisten tcp 5>"$f" 2>/dev/null &
x=$!
while [ ! -s "$f" ]; do
  kill -0 "$x" 2>/dev/null || { echo "wright: Xvfb (the private display of a headed browser) failed to start" >&2; exit 1; }
  sleep 0.05
done
DISPLAY=":$(cat "$f")" exec "$0" "$@"`

// needsXvfb says whether a headed launch must bring its own display: on
// Linux (and the BSDs, X11 too) with neither DISPLAY nor WAYLAND_DISPLAY in
// the environment the browser is given.
func needsXvfb(env []string) bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return false
	}
	for _, kv := range env {
		for _, name := range []string{"DISPLAY=", "WAYLAND_DISPLAY="} {
			if len(kv) > len(name) && kv[:len(name)] == name {
				return false
			}
		}
	}
	return true
}

// underXvfb rewrites a launch of exe with args into one of the shell that
// starts Xvfb first (xvfbScript); profile is the browser's profile folder,
// where the display number is written.
func underXvfb(exe string, args, env []string, profile string, width, height int) (string, []string, []string, error) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		return "", nil, nil, fmt.Errorf("a headed browser needs a display: DISPLAY is not set and Xvfb is not installed "+
			"(Debian: apt-get install xvfb; `make test-deps` installs it): %w", err)
	}
	if width <= 0 || height <= 0 {
		width, height = 1280, 720
	}
	file := filepath.Join(profile, "wright-xvfb-display")
	_ = os.Remove(file)
	env = append(env, "WRIGHT_XVFB_DISPLAY_FILE="+file,
		fmt.Sprintf("WRIGHT_XVFB_SCREEN=%dx%dx24", max(width, 1280), max(height, 720)))
	return "/bin/sh", append([]string{"-c", xvfbScript, exe}, args...), env, nil
}
