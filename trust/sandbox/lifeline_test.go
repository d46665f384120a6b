//go:build linux

package sandbox_test

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/trust/sandbox"
)

// sandboxParent is the test binary as a wright that starts one sandboxed
// sleep, says so, and waits to be killed. With proxy set, the sandbox has
// a proxy socket (nothing answers on it), so its host guard also carries
// the sandbox's connections.
func sandboxParent(ws, marker, proxy string) {
	self, _ := os.Executable()
	s := &sandbox.Spec{Writable: []string{ws}, ReadOnly: []string{filepath.Dir(self)}, Wright: self}
	if proxy != "" {
		dir, err := os.MkdirTemp("", "wsp")
		if err != nil {
			fmt.Println("proxy dir:", err)
			os.Exit(1)
		}
		l, err := net.Listen("unix", filepath.Join(dir, "p.sock"))
		if err != nil {
			fmt.Println("proxy socket:", err)
			os.Exit(1)
		}
		defer l.Close()
		s.ProxySocket = l.Addr().String()
	}
	cmd := exec.Command("/usr/bin/sleep", marker)
	cmd.Dir = ws
	started, err := s.Wrap(cmd)
	if err != nil {
		fmt.Println("wrap:", err)
		os.Exit(1)
	}
	err = cmd.Start()
	started()
	if err != nil {
		fmt.Println("start:", err)
		os.Exit(1)
	}
	fmt.Println("started")
	time.Sleep(time.Hour)
	os.Exit(0)
}

// A wright SIGKILLed 0 to 4 ms after a sandbox's bubblewrap started leaves
// nothing of the sandbox: bubblewrap's own parent-death signal is set too
// late for that, the lifeline is not.
func TestSandboxDiesWithAParentKilledAtStart(t *testing.T) {
	needBwrap(t)
	t.Run("no proxy", func(t *testing.T) { parentKilledAtStart(t, "") })
	t.Run("proxy", func(t *testing.T) { parentKilledAtStart(t, "1") })
}

func parentKilledAtStart(t *testing.T, proxy string) {
	ws := t.TempDir()
	const rounds = 15
	left := 0
	for i := 0; i < rounds; i++ {
		marker := fmt.Sprintf("4242.%06d", os.Getpid()%1000000*0+i+100000*(1+os.Getpid()%9))
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "SANDBOX_TEST_PARENT_WS="+ws, "SANDBOX_TEST_PARENT_MARKER="+marker, "SANDBOX_TEST_PARENT_PROXY="+proxy)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if !strings.Contains(line, "started") {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the parent did not start its sandbox: %q", line)
		}
		time.Sleep(time.Duration(i%5) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		deadline := time.Now().Add(5 * time.Second)
		for len(sleepers(marker)) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if s := sleepers(marker); len(s) > 0 {
			left++
			for _, f := range s {
				b, _ := os.ReadFile(f)
				st, _ := os.ReadFile(strings.TrimSuffix(f, "cmdline") + "stat")
				t.Logf("round %d (%d ms): left %s: %.60s | %.80s", i, i%5, f, strings.ReplaceAll(string(b), "\x00", " "), st)
				var pid int
				fmt.Sscanf(f, "/proc/%d/cmdline", &pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	if left > 0 {
		t.Errorf("%d of %d sandboxes outlived a parent killed at their start", left, rounds)
	}
}
