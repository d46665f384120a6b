// Package python carries wright's Python client inside the wright binary:
// the `playwright` package (Playwright's sync API on `wright driver`, the
// implementation) and wright_browser.py (wright's defaults and extras on top
// of it), so every run can put them on its scripts' PYTHONPATH without
// installing anything. Client is the same code as one self-contained file.
package python

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"wright/internal/atomicfile"
)

// FileName is the module's file name; scripts `import wright_browser`.
const FileName = "wright_browser.py"

// PackageName is the directory of the Playwright-compatible package.
const PackageName = "playwright"

// Module is the source of the wright_browser.py written beside the package.
//
//go:embed wright_browser.py
var Module string

// pkg holds playwright/ (all: keeps its _impl directory).
//
//go:embed all:playwright
var pkg embed.FS

// Install writes wright_browser.py (Module) and the playwright package into dir
// (created if missing) and returns the module's path. Existing copies are
// replaced, so a run always gets the client that matches its driver.
func Install(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("install python client: %w", err)
	}
	// The package first: the module imports it, so a module written before
	// its package would be a module without the code it needs.
	if err := installPackage(dir); err != nil {
		return "", fmt.Errorf("install python client: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// Written whole: a script importing the module at that moment never sees
	// half a file.
	if err := atomicfile.Write(path, []byte(Module), 0o644); err != nil {
		return "", fmt.Errorf("install python client: %w", err)
	}
	installBytecode(dir) // bytecode.go
	return path, nil
}

// installPackage writes playwright/ into a fresh directory beside the
// target and swaps it in, so no run sees a package half old, half new.
func installPackage(dir string) error {
	fresh, err := os.MkdirTemp(dir, ".playwright-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(fresh)
	err = fs.WalkDir(pkg, PackageName, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "__pycache__" {
			return fs.SkipDir
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(name, PackageName), "/")
		target := filepath.Join(fresh, filepath.FromSlash(rel))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !strings.HasSuffix(name, ".py") {
			return nil
		}
		data, err := pkg.ReadFile(name)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		return fmt.Errorf("write the playwright package: %w", err)
	}
	if err := os.Chmod(fresh, 0o755); err != nil {
		return err
	}
	final := filepath.Join(dir, PackageName)
	old := final + ".old"
	_ = os.RemoveAll(old)
	if err := os.Rename(final, old); err != nil && !os.IsNotExist(err) {
		return err
	}
	if err := os.Rename(fresh, final); err != nil {
		return err
	}
	return os.RemoveAll(old)
}
