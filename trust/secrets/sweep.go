package secrets

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
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
		if isZip(b) {
			// A zip's members are compressed: the value is not in the
			// file's bytes as written, so each member is redacted and the
			// zip written again (a trace, a zipped HAR, a recording).
			z, err := RedactZip(b, s.RedactBytes)
			if err != nil {
				return nil // damaged: the byte-level redaction above is all it gets
			}
			clean = z
		}
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

// isZip says whether b starts as a zip file does.
func isZip(b []byte) bool { return bytes.HasPrefix(b, []byte("PK\x03\x04")) }

// RedactZip returns the zip data with redact applied to each member's
// content (member names too), or data itself when no member changed. The
// driver uses it as it writes a zipped recording, the sweep on what is
// left at a run's end.
func RedactZip(data []byte, redact func([]byte) []byte) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("redact zip: %w", err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	changed := false
	for _, f := range zr.File {
		if f.UncompressedSize64 > sweepLimit {
			return nil, fmt.Errorf("redact zip: member %s is over %d MB", f.Name, sweepLimit>>20)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("redact zip: %s: %w", f.Name, err)
		}
		body, err := io.ReadAll(io.LimitReader(rc, sweepLimit+1))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("redact zip: %s: %w", f.Name, err)
		}
		clean := redact(body)
		name := string(redact([]byte(f.Name)))
		if name != f.Name || !bytes.Equal(clean, body) {
			changed = true
		}
		hdr := f.FileHeader
		hdr.Name = name
		w, err := zw.CreateHeader(&zip.FileHeader{Name: hdr.Name, Method: hdr.Method, Modified: hdr.Modified, Comment: hdr.Comment})
		if err != nil {
			return nil, fmt.Errorf("redact zip: %w", err)
		}
		if _, err := w.Write(clean); err != nil {
			return nil, fmt.Errorf("redact zip: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("redact zip: %w", err)
	}
	if !changed {
		return data, nil
	}
	return buf.Bytes(), nil
}
