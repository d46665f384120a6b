package driver

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Every method PathParams names exists: a filter in front of the driver
// checks by it, and a name that drifted would check nothing.
func TestPathParamsNameMethods(t *testing.T) {
	for m := range PathParams {
		if _, ok := methods[m]; !ok {
			t.Errorf("PathParams names %q, which is no method", m)
		}
	}
}

// The policy on its own: names inside the root work; outside, climbing
// out, a relative name, a link on the way or at the end are refused, and a
// link at the end is replaced by a write, never written through.
func TestFileRootRefusesWhatLeavesIt(t *testing.T) {
	root, host := t.TempDir(), t.TempDir()
	hostFile := filepath.Join(host, "f")
	os.WriteFile(hostFile, []byte("host"), 0o600)
	os.Symlink(host, filepath.Join(root, "d"))
	os.Symlink(hostFile, filepath.Join(root, "l"))
	r := fileRoot{dir: root}
	for _, p := range []string{hostFile, root + "/../x", "rel/x", filepath.Join(root, "d", "f"), filepath.Join(root, "l")} {
		if _, err := r.readFile("t", p); err == nil {
			t.Errorf("read %s: no refusal", p)
		}
	}
	for _, p := range []string{filepath.Join(host, "new"), root + "/../x", filepath.Join(root, "d", "new"), filepath.Join(root, "d", "sub", "new")} {
		if err := r.writeFile("t", p, []byte("x")); err == nil {
			t.Errorf("write %s: no refusal", p)
		}
		if _, err := r.check("t", p); err == nil {
			t.Errorf("check %s: no refusal", p)
		}
		if _, err := r.mkdir("t", p); err == nil {
			t.Errorf("mkdir %s: no refusal", p)
		}
	}
	if _, err := r.check("t", filepath.Join(root, "l")); !errors.Is(err, errOutside) {
		t.Errorf("check of a trailing link: %v", err)
	}
	if err := r.writeFile("t", filepath.Join(root, "l"), []byte("mine")); err != nil {
		t.Errorf("write over a trailing link: %v", err)
	}
	if b, _ := os.ReadFile(hostFile); string(b) != "host" {
		t.Errorf("the host file became %q", b)
	}
	if err := r.writeFile("t", filepath.Join(root, "a", "b", "c.txt"), []byte("in")); err != nil {
		t.Fatal(err)
	}
	if b, err := r.readFile("t", filepath.Join(root, "a", "b", "c.txt")); err != nil || string(b) != "in" {
		t.Errorf("read back %q %v", b, err)
	}
	entries, _ := os.ReadDir(host)
	if len(entries) != 1 {
		t.Errorf("the host folder holds %d entries", len(entries))
	}
	// Unconfined, the same calls act anywhere (a driver a user runs).
	if err := (fileRoot{}).writeFile("t", filepath.Join(host, "free"), []byte("x")); err != nil {
		t.Errorf("unconfined write: %v", err)
	}
}
