package sandbox_test

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The host guard starts with a GOGC of its own (it packs what its start-up
// leaves into less memory), and that GOGC reaches neither bubblewrap nor
// the command; a GOGC the user gave the command is the command's, as it was.
func TestHelpersGOGCIsTheirsAlone(t *testing.T) {
	needBwrap(t)
	sockDir := t.TempDir() // the guard dials only when a connection comes
	ws := t.TempDir()
	for _, c := range []struct {
		env          []string
		guard, inner string
	}{
		{nil, "GOGC=20", "command: []"},
		{[]string{"GOGC=77"}, "GOGC=77", "command: [77]"},
	} {
		cmd := exec.Command("/bin/bash", "-c", `echo "command: [$GOGC]"; read -r _`)
		cmd.Dir = ws
		cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, c.env...)
		if err := spec(t, ws, sockDir+"/p.sock").Wrap(cmd); err != nil {
			t.Fatal(err)
		}
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		// The command is up, so the guard (the process started) is too.
		environ, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/environ")
		in.Close()
		_ = cmd.Wait()
		if err != nil {
			t.Fatal(err)
		}
		var gogc []string
		for _, kv := range strings.Split(string(environ), "\x00") {
			if strings.HasPrefix(kv, "GOGC=") {
				gogc = append(gogc, kv)
			}
		}
		if len(gogc) != 1 || gogc[0] != c.guard {
			t.Errorf("with %v: the guard's GOGC is %v, want %s", c.env, gogc, c.guard)
		}
		if strings.TrimSpace(line) != c.inner {
			t.Errorf("with %v: %q, want %q", c.env, line, c.inner)
		}
	}
}
