package launcher

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A headed launch with no display in its environment runs on a private
// Xvfb that lives in the browser's process group: Chromium answers on
// DevTools, and ending the browser ends the X server too.
func TestHeadedWithoutDisplayRunsOnPrivateXvfb(t *testing.T) {
	if _, err := exec.LookPath("Xvfb"); err != nil {
		t.Skip("Xvfb is not installed (make test-deps installs it)")
	}
	if _, err := FindExecutable(""); err != nil {
		t.Skip("no Chromium: ", err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			env = append(env, kv)
		}
	}
	profile := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := Start(ctx, Config{Headed: true, UserDataDir: profile, Width: 800, Height: 600, Env: env})
	if err != nil {
		t.Fatalf("headed start without a display: %v", err)
	}
	if !strings.HasPrefix(p.URL, "ws://") {
		t.Errorf("DevTools URL = %q", p.URL)
	}
	b, err := os.ReadFile(filepath.Join(profile, "wright-xvfb-display"))
	if err != nil {
		t.Fatalf("the display file Xvfb writes: %v", err)
	}
	if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err != nil || n < 0 {
		t.Errorf("display number %q", b)
	}
	pgid := p.PID()
	p.Kill()
	p.Reap(func() {})
	// Nothing of the group is left, Xvfb included (the killed X server is an
	// orphan the init process reaps, so it may take a moment to be gone).
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Kill(-pgid, 0)
		if errors.Is(err, syscall.ESRCH) {
			break
		}
		if time.Now().After(deadline) {
			out, _ := exec.Command("ps", "-o", "pid,ppid,stat,comm", "-g", strconv.Itoa(pgid)).CombinedOutput()
			t.Fatalf("process group %d still has processes 5s after Reap (kill -0: %v):\n%s", pgid, err, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestNeedsXvfb(t *testing.T) {
	if needsXvfb([]string{"PATH=/bin", "DISPLAY=:3"}) || needsXvfb([]string{"WAYLAND_DISPLAY=wayland-0"}) {
		t.Error("a display in the environment needs no Xvfb")
	}
	if !needsXvfb([]string{"PATH=/bin", "DISPLAY="}) {
		t.Error("an empty DISPLAY is no display")
	}
}
