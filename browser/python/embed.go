// Package python carries wright_browser.py, the Python client of `wright
// driver`, inside the wright binary, so every run can put it on its scripts'
// PYTHONPATH without installing anything.
package python

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
)

// FileName is the module's file name; scripts `import wright_browser`.
const FileName = "wright_browser.py"

// Client is the source of wright_browser.py.
//
//go:embed wright_browser.py
var Client string

// Install writes wright_browser.py into dir (created if missing) and returns
// the file's path. An existing copy is replaced, so a run always gets the
// client that matches its driver.
func Install(dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("install python client: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// Write beside the target and rename: a script importing the module at
	// the same moment never sees half a file.
	tmp, err := os.CreateTemp(dir, ".wright_browser-*.py")
	if err != nil {
		return "", fmt.Errorf("install python client: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.WriteString(Client); err != nil {
		tmp.Close()
		return "", fmt.Errorf("install python client: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return "", fmt.Errorf("install python client: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("install python client: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("install python client: %w", err)
	}
	return path, nil
}
