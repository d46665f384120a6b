package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallWritesBytecodePythonUses: every install, the first of the
// process (which compiles) and a later one (which copies), leaves bytecode
// that a script's Python loads instead of compiling the client, with
// PYTHONDONTWRITEBYTECODE set as a read-only sandbox effectively has it.
func TestInstallWritesBytecodePythonUses(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	for _, name := range []string{"first", "second"} {
		dir := filepath.Join(t.TempDir(), name)
		if _, err := Install(dir); err != nil {
			t.Fatal(err)
		}
		pycs, _ := filepath.Glob(filepath.Join(dir, PackageName, "_impl", "__pycache__", "_page.*.pyc"))
		if len(pycs) == 0 {
			t.Fatalf("%s install: no bytecode of _page.py", name)
		}
		cmd := exec.Command("python3", "-v", "-c", "import playwright.sync_api, wright_browser")
		cmd.Env = append(os.Environ(), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE=1")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s install: import: %v\n%s", name, err, out)
		}
		// -v names the file each module's code came from.
		for _, want := range []string{
			filepath.Join(dir, PackageName, "__pycache__", "__init__."),
			filepath.Join(dir, PackageName, "_impl", "__pycache__", "_page."),
		} {
			if !strings.Contains(string(out), "code object from '"+want) {
				t.Errorf("%s install: the import did not load %s*.pyc", name, want)
			}
		}
	}
}
