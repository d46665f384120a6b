package python

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestStandaloneIsThePackage imports the self-contained wright_browser.py
// from a directory holding nothing else and checks that what it runs is the
// package: every module it registers has the text of the package's file
// (read from disk, not from the embed), no module is missing or extra, and
// the code after the carried modules is wright_browser.py's own.
func TestStandaloneIsThePackage(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(Client()), 0o644); err != nil {
		t.Fatal(err)
	}
	pkgDir, err := filepath.Abs(PackageName)
	if err != nil {
		t.Fatal(err)
	}
	thin, err := filepath.Abs(FileName)
	if err != nil {
		t.Fatal(err)
	}
	check := `
import os, sys, importlib
import wright_browser
pkg, thin = sys.argv[1], sys.argv[2]
on_disk = {}
for folder, dirs, files in os.walk(pkg):
    dirs[:] = [d for d in dirs if d != "__pycache__"]
    for f in files:
        if f.endswith(".py"):
            rel = os.path.relpath(os.path.join(folder, f), os.path.dirname(pkg))[:-3].replace(os.sep, ".")
            on_disk[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = os.path.join(folder, f)
bad = []
for name, path in sorted(on_disk.items()):
    mod = importlib.import_module(name)
    if not mod.__file__.startswith(wright_browser.__file__ + os.sep):
        bad.append("%s comes from %s, not from the file" % (name, mod.__file__))
    with open(path, encoding="utf-8") as f:
        if mod.__loader__.get_source(name) != f.read():
            bad.append("%s differs from %s" % (name, path))
carried = sorted(n for n in sys.modules if n == "playwright" or n.startswith("playwright."))
extra = [n for n in carried if n not in on_disk]
if extra:
    bad.append("carried but not in the package: %s" % extra)
with open(thin, encoding="utf-8") as f:
    module = f.read()
with open(wright_browser.__file__, encoding="utf-8") as f:
    whole = f.read()
doc_end = module.index('"""', 3) + 3
if not whole.startswith(module[:doc_end]) or not whole.endswith(module[doc_end:].lstrip("\n")):
    bad.append("the file's own code is not wright_browser.py's")
print("\n".join(bad) or "SAME %d" % len(on_disk))
`
	cmd := exec.Command("python3", "-c", check, pkgDir, thin)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "SAME ") {
		t.Fatalf("the self-contained file is not the package: %v\n%s", err, out)
	}
}

// TestStandaloneRefusesAnotherPlaywright: a playwright package that is not
// wright's, imported first, is not silently mixed with the carried one.
func TestStandaloneRefusesAnotherPlaywright(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(Client()), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other", "playwright")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "__init__.py"), []byte("__version__ = '1.49.0'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", "-c", "import playwright, wright_browser")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(dir, "other")+string(os.PathListSeparator)+dir,
		"PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "another playwright is imported already") {
		t.Fatalf("want a clear ImportError, got %v\n%s", err, out)
	}
}

// TestStandaloneScenarios runs scenario scripts against the self-contained
// file alone (scripts that import wright_browser, as such a file is used,
// and pw_async: playwright.async_api carried in the same file;
// TestScenarios runs the same scripts against the package).
func TestStandaloneScenarios(t *testing.T) {
	needWright(t)
	base := fixtureServer(t)
	for _, name := range []string{"form", "aria", "dialog", "pw_async"} {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, tmp, err := script{name: name + ".py", fixture: base, standalone: true}.run(t)
			if err != nil || !strings.HasSuffix(strings.TrimSpace(stdout), "OK") {
				t.Fatalf("%s.py: %v\nstdout:\n%s\nstderr:\n%s", name, err, stdout, stderr)
			}
			assertNothingLeft(t, tmp, 0)
		})
	}
}

// TestPackageLayout holds the client to its layout: the implementation in
// playwright/_impl in at least 10 modules of at most 1,200 lines, and
// wright_browser.py beside it a thin module of at most 800 lines.
func TestPackageLayout(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(PackageName, "_impl", "*.py"))
	if err != nil {
		t.Fatal(err)
	}
	modules := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), "\n"); n > 1200 {
			t.Errorf("%s has %d lines (at most 1,200)", f, n)
		}
		if filepath.Base(f) != "__init__.py" {
			modules++
		}
	}
	if modules < 10 {
		t.Errorf("playwright/_impl has %d modules, want at least 10", modules)
	}
	if n := strings.Count(Module, "\n"); n > 800 {
		t.Errorf("%s has %d lines (at most 800)", FileName, n)
	}
}

// TestImportLeavesAsyncioOut: importing the client and its sync API does not
// import asyncio (with ssl and concurrent.futures it costs each Python
// process about 10 MB, and a bench runs one runner per worker), and the
// sync API still refuses to run inside a running asyncio loop.
func TestImportLeavesAsyncioOut(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(Client()), 0o644); err != nil {
		t.Fatal(err)
	}
	check := `
import sys
import wright_browser
from playwright.sync_api import sync_playwright, Error
heavy = [m for m in ("asyncio", "ssl", "concurrent.futures") if m in sys.modules]
print("heavy:", heavy)
import asyncio
async def inside():
    try:
        sync_playwright().start()
    except Error as e:
        return "refused: " + str(e)
    return "ran"
print(asyncio.run(inside()))
`
	cmd := exec.Command("python3", "-S", "-c", check)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "heavy: []") {
		t.Errorf("the import pulls in heavy modules:\n%s", out)
	}
	if !strings.Contains(string(out), "refused: It looks like you are using Playwright Sync API inside the asyncio loop") {
		t.Errorf("the sync API ran inside an asyncio loop:\n%s", out)
	}
}
