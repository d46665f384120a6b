package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoad(t *testing.T) {
	t.Setenv(Env, "")
	if r, err := Load(); r != nil || err != nil {
		t.Fatalf("unset: %v %v", r, err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "req.json")
	if err := os.WriteFile(good, []byte(`{"exprs":["document.title"],"out":"/x/probe.json"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(Env, good)
	r, err := Load()
	if err != nil || r.Out != "/x/probe.json" || len(r.Exprs) != 1 {
		t.Fatalf("good: %+v %v", r, err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"exprs":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(Env, bad)
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), "not a probe request with an out path") {
		t.Fatalf("no out: %v", err)
	}
	t.Setenv(Env, filepath.Join(dir, "missing.json"))
	if _, err := Load(); err == nil || !strings.HasPrefix(err.Error(), Env+": ") {
		t.Fatalf("missing: %v", err)
	}
}
