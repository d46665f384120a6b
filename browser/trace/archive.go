package trace

import (
	"archive/zip"
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Archive is what one chunk collected.
type Archive struct {
	Name      string
	Trace     [][]byte
	Network   [][]byte
	Resources map[string][]byte
}

func lines(events [][]byte) []byte {
	var b bytes.Buffer
	for _, e := range events {
		b.Write(e)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TraceFile and NetworkFile are the chunk's two event files.
func (a *Archive) TraceFile() []byte   { return lines(a.Trace) }
func (a *Archive) NetworkFile() []byte { return lines(a.Network) }

// SourceEntry is the zip entry the viewer reads a source file from: it
// looks the file up by the SHA-1 of its path.
func SourceEntry(path string) string {
	return "resources/src@" + sha1Hex([]byte(path)) + ".txt"
}

// WriteZip writes the trace.zip the viewer opens: trace.trace,
// trace.network, the resources and the given source files (unreadable ones
// are left out: a script's file may be gone by then). The file is written
// beside its final name and renamed into place, so a reader never sees half
// a zip.
func (a *Archive) WriteZip(path string, sources []string) error {
	read := map[string][]byte{}
	for _, src := range sources {
		if data, err := os.ReadFile(src); err == nil {
			read[src] = data
		}
	}
	data, err := a.Zip(read)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("trace zip: %w", err)
		}
	}
	tmp := path + ".part"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write trace: %w", err)
	}
	return nil
}

// Zip is the trace.zip WriteZip writes, with the source files already
// read (by their paths), for a caller that reads and writes files its own
// way (the driver's path policy).
func (a *Archive) Zip(sources map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	entries := map[string][]byte{"trace.trace": a.TraceFile(), "trace.network": a.NetworkFile()}
	for name, data := range a.Resources {
		entries["resources/"+name] = data
	}
	for src, data := range sources {
		entries[SourceEntry(src)] = data
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		w, err := zw.Create(name)
		if err != nil {
			return nil, fmt.Errorf("trace zip: %w", err)
		}
		if _, err := w.Write(entries[name]); err != nil {
			return nil, fmt.Errorf("trace zip: %w", err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("trace zip: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteFiles writes the chunk's <name>.trace and <name>.network and its
// resources into dir, as Playwright leaves them in a browser's traces_dir.
func (a *Archive) WriteFiles(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "resources"), 0o755); err != nil {
		return fmt.Errorf("traces dir: %w", err)
	}
	for name, data := range a.Files() {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("traces dir: %w", err)
		}
	}
	return nil
}

// Files are the files WriteFiles writes, by their names inside dir.
func (a *Archive) Files() map[string][]byte {
	files := map[string][]byte{a.Name + ".trace": a.TraceFile(), a.Name + ".network": a.NetworkFile()}
	for name, data := range a.Resources {
		files[filepath.Join("resources", name)] = data
	}
	return files
}

func sha1Hex(data []byte) string {
	sum := sha1.Sum(data)
	return hex.EncodeToString(sum[:])
}
