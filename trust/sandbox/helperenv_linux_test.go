package sandbox_test

import (
	"strings"
	"testing"
)

// The helpers start with a GOGC of their own (it packs what their start-up
// leaves into less memory), and that GOGC reaches neither bubblewrap nor
// the command; a GOGC the user gave the command is the command's, as it was.
func TestHelpersGOGCIsTheirsAlone(t *testing.T) {
	needBwrap(t)
	sockDir := t.TempDir() // the forwarder dials only when a connection comes
	ws := t.TempDir()
	forwarder := `for f in /proc/[0-9]*/cmdline; do if tr '\0' ' ' <$f | grep -q -- '--serve-fd'; then echo "forwarder: $(tr '\0' '\n' <${f%cmdline}environ | grep '^GOGC=')"; fi; done; `
	script := forwarder + `echo "command: [$GOGC]"`
	out, err := inSandbox(t, spec(t, ws, sockDir+"/p.sock"), ws, script)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(out, "forwarder: GOGC=20") || !strings.Contains(out, "command: []") {
		t.Errorf("without a GOGC of the user's:\n%s", out)
	}
	out, err = inSandbox(t, spec(t, ws, sockDir+"/p.sock"), ws, script, "GOGC=77")
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(out, "forwarder: GOGC=77") || !strings.Contains(out, "command: [77]") {
		t.Errorf("with the user's GOGC=77:\n%s", out)
	}
}
