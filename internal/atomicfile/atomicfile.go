// Package atomicfile writes a file whole or not at all: a reader that opens
// it at any moment (a person tailing a run, a script importing a module,
// the gate reading a verdict) sees the old content or the new, never half.
package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to a temporary file beside path, gives it perm and
// renames it over path. The directory must exist. On failure path is
// untouched and the temporary file is gone.
func Write(path string, data []byte, perm fs.FileMode) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", filepath.Base(path), err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
			err = fmt.Errorf("write %s: %w", filepath.Base(path), err)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	// CreateTemp makes 0600 whatever the umask; set what the caller wants.
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
