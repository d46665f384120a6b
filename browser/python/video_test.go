package python

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/browser/video"
)

// TestVideoWhenTheScriptEnds records a page and ends the script mid-record
// the rude ways: a Ctrl-C (SIGINT) to the script, or a SIGKILL of the
// driver under it. No ffmpeg may be left, and the video either plays or
// is gone.
func TestVideoWhenTheScriptEnds(t *testing.T) {
	needWright(t)
	for _, bin := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed (make deps installs it)", bin)
		}
	}
	base := fixtureServer(t)
	for _, mode := range []string{"sigint", "driver"} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			cmd, tmp := script{name: "video.py", args: []string{mode}, fixture: base}.command(t, ctx)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			path, pid, seen := readVideoLines(bufio.NewScanner(stdout))
			if pid == 0 || path == "" {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("the script never reported its video and driver\nstdout:\n%s\nstderr:\n%s", seen, stderr.String())
			}
			if mode == "sigint" {
				_ = cmd.Process.Signal(syscall.SIGINT)
			} else {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			_ = cmd.Wait() // it fails either way: KeyboardInterrupt, or the driver's death
			if ctx.Err() != nil {
				t.Fatalf("the script hung\nstderr:\n%s", stderr.String())
			}
			assertNothingLeft(t, tmp, pid) // ffmpeg's command line names the video under tmp
			if _, err := os.Stat(path); err == nil {
				info, err := video.Probe(ctx, path)
				if err != nil {
					t.Fatalf("a video was left that does not play: %v\nstderr:\n%s", err, stderr.String())
				}
				t.Logf("the video plays: %+v", info)
			} else if !os.IsNotExist(err) {
				t.Fatal(err)
			} else {
				t.Logf("the video was removed")
			}
		})
	}
}

func readVideoLines(lines *bufio.Scanner) (path string, pid int, seen string) {
	var all []string
	for lines.Scan() {
		line := lines.Text()
		all = append(all, line)
		if rest, ok := strings.CutPrefix(line, "VIDEO "); ok {
			path = rest
		}
		if rest, ok := strings.CutPrefix(line, "DRIVER_PID "); ok {
			pid, _ = strconv.Atoi(rest)
			break
		}
	}
	return path, pid, strings.Join(all, "\n")
}
