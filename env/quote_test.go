package env

import (
	"os/exec"
	"testing"
)

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"plain/path.py", "", "two words", "it's", "$HOME", "a\nb", "*"} {
		q := ShellQuote(s)
		out, err := exec.Command("bash", "-c", "printf %s "+q).Output()
		if err != nil || string(out) != s {
			t.Errorf("ShellQuote(%q) = %s: bash read %q (%v)", s, q, out, err)
		}
	}
	if got := ShellQuote("final_runs/run_1"); got != "final_runs/run_1" {
		t.Errorf("a plain path was quoted: %s", got)
	}
}
