package secrets

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"wright/internal/atomicfile"
)

// sweepLimit is the largest file RedactTree reads: run files are far
// smaller, and a huge download the model saved is not worth holding whole.
const sweepLimit = 64 << 20

// RedactTree rewrites every regular file under dir that holds a value (in
// any form Redact finds), and returns the paths it rewrote, relative to
// dir. It is the net under every writer's own redaction: a file a writer
// forgot (a step header with a URL, a page the model saved) still ends
// without the value. Links are not followed, so nothing outside dir is
// touched.
func (s *Set) RedactTree(dir string) ([]string, error) {
	if s == nil || len(s.list) == 0 {
		return nil, nil
	}
	var changed []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a folder that vanished or cannot be read: go on with the rest
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > sweepLimit {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		clean := s.RedactBytes(b)
		if bytes.Equal(clean, b) {
			return nil
		}
		if err := atomicfile.Write(path, clean, info.Mode().Perm()); err != nil {
			return fmt.Errorf("redact %s: %w", path, err)
		}
		rel, _ := filepath.Rel(dir, path)
		changed = append(changed, rel)
		return nil
	})
	return changed, err
}
