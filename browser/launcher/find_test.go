package launcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// install lays out a program at root/rel as an installer would, and
// returns its path.
func install(t *testing.T, root, rel string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho Chromium 1.0\n"), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFindLinuxPath(t *testing.T) {
	root := t.TempDir()
	usrBin := filepath.Join(root, "usr", "bin")
	snapBin := filepath.Join(root, "snap", "bin")
	space := searchSpace{goos: "linux", path: snapBin + string(os.PathListSeparator) + usrBin, roots: []string{root}}

	if _, err := space.find(""); err == nil || !strings.Contains(err.Error(), "never downloads") {
		t.Fatalf("empty machine: %v", err)
	}
	// Google's package: google-chrome on PATH.
	chrome := install(t, root, "usr/bin/google-chrome", 0o755)
	if p, err := space.find(""); err != nil || p != chrome {
		t.Fatalf("find = %q, %v; want %q", p, err, chrome)
	}
	// Chromium as a snap comes first: chromium is preferred over Chrome,
	// and PATH order decides between directories.
	snap := install(t, root, "snap/bin/chromium", 0o755)
	install(t, root, "usr/bin/chromium", 0o755)
	if p, err := space.find(""); err != nil || p != snap {
		t.Fatalf("find = %q, %v; want %q", p, err, snap)
	}
	// A file without an execute bit is not a browser.
	other := searchSpace{goos: "linux", path: filepath.Join(root, "opt")}
	install(t, root, "opt/chromium", 0o644)
	if _, err := other.find(""); err == nil {
		t.Fatal("a non-executable chromium was accepted")
	}
	// macOS bundles are not looked for on Linux.
	install(t, root, "Applications/Chromium.app/Contents/MacOS/Chromium", 0o755)
	if _, err := other.find(""); err == nil {
		t.Fatal("an application bundle was searched on Linux")
	}
}

func TestFindMacBundles(t *testing.T) {
	sys, home := t.TempDir(), t.TempDir()
	space := searchSpace{goos: "darwin", path: filepath.Join(sys, "opt", "homebrew", "bin"), roots: []string{sys, home}}

	_, err := space.find("")
	if err == nil || !strings.Contains(err.Error(), "/Applications") || !strings.Contains(err.Error(), "never downloads") {
		t.Fatalf("empty Mac: %v", err)
	}
	// Chrome installed for this user only.
	userChrome := install(t, home, "Applications/Google Chrome.app/Contents/MacOS/Google Chrome", 0o755)
	if p, err := space.find(""); err != nil || p != userChrome {
		t.Fatalf("find = %q, %v; want %q", p, err, userChrome)
	}
	// Installed for everyone: /Applications comes before ~/Applications.
	sysChrome := install(t, sys, "Applications/Google Chrome.app/Contents/MacOS/Google Chrome", 0o755)
	if p, err := space.find(""); err != nil || p != sysChrome {
		t.Fatalf("find = %q, %v; want %q", p, err, sysChrome)
	}
	// Chromium (Homebrew cask) is preferred over Chrome.
	chromium := install(t, sys, "Applications/Chromium.app/Contents/MacOS/Chromium", 0o755)
	if p, err := space.find(""); err != nil || p != chromium {
		t.Fatalf("find = %q, %v; want %q", p, err, chromium)
	}
	// A program on PATH (Homebrew's shim) wins over the bundles.
	shim := install(t, sys, "opt/homebrew/bin/chromium", 0o755)
	if p, err := space.find(""); err != nil || p != shim {
		t.Fatalf("find = %q, %v; want %q", p, err, shim)
	}
}

func TestFindConfiguredBrowser(t *testing.T) {
	root := t.TempDir()
	space := searchSpace{goos: "darwin", roots: []string{root}}
	install(t, root, "Applications/Chromium.app/Contents/MacOS/Chromium", 0o755)

	// WRIGHT_BROWSER names a bundle whose program has another name: the
	// bundle's Info.plist says which.
	canary := install(t, root, "Apps/Canary.app/Contents/MacOS/Google Chrome Canary", 0o755)
	plist := `<?xml version="1.0"?><plist><dict><key>CFBundleExecutable</key>
	<string>Google Chrome Canary</string></dict></plist>`
	if err := os.WriteFile(filepath.Join(root, "Apps", "Canary.app", "Contents", "Info.plist"), []byte(plist), 0o644); err != nil {
		t.Fatal(err)
	}
	space.env = filepath.Join(root, "Apps", "Canary.app") + "/"
	if p, err := space.find(""); err != nil || p != canary {
		t.Fatalf("WRIGHT_BROWSER bundle: %q, %v; want %q", p, err, canary)
	}
	// The configured executable comes before WRIGHT_BROWSER.
	own := install(t, root, "bin/my-chrome", 0o755)
	if p, err := space.find(own); err != nil || p != own {
		t.Fatalf("configured: %q, %v; want %q", p, err, own)
	}
	// A wrong configuration is an error, not a silent fallback to the
	// installed Chromium.
	if _, err := space.find(filepath.Join(root, "bin", "nope")); err == nil {
		t.Fatalf("missing configured browser: %v", err)
	}
	space.env = filepath.Join(root, "Apps", "Missing.app")
	if _, err := space.find(""); err == nil || !strings.Contains(err.Error(), "WRIGHT_BROWSER") {
		t.Fatalf("missing WRIGHT_BROWSER bundle: %v", err)
	}
}
