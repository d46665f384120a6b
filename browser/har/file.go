package har

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"wright/internal/atomicfile"
)

// LogName is the log's name inside a .zip archive.
const LogName = "har.har"

// IsZip says whether path names a zipped archive (log and bodies in one file).
func IsZip(path string) bool { return strings.HasSuffix(strings.ToLower(path), ".zip") }

// WriteFile writes h to path: a .zip holds the log (as LogName) and the
// attached files; any other name is the log as JSON, with the attached
// files written beside it in its folder. Each file is written whole or not
// at all.
func WriteFile(path string, h *HAR, files map[string][]byte) error {
	out, err := Files(path, h, files)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("har: %w", err)
		}
	}
	// The log last, so that a reader never finds one whose bodies are missing.
	for _, name := range sortedKeys(out) {
		if name != path {
			if err := atomicfile.Write(name, out[name], 0o644); err != nil {
				return fmt.Errorf("har: %w", err)
			}
		}
	}
	return atomicfile.Write(path, out[path], 0o644)
}

// Files are the files WriteFile writes for path, by their paths: path
// itself (the log, or the zip holding it and the bodies) and, beside a
// .har, each attached body. A caller that writes files its own way (the
// driver's path policy) writes these.
func Files(path string, h *HAR, files map[string][]byte) (map[string][]byte, error) {
	data, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("har: encode the log: %w", err)
	}
	if IsZip(path) {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		if err := addZip(zw, LogName, data); err != nil {
			return nil, err
		}
		for _, name := range sortedKeys(files) {
			if err := addZip(zw, name, files[name]); err != nil {
				return nil, err
			}
		}
		if err := zw.Close(); err != nil {
			return nil, fmt.Errorf("har: zip: %w", err)
		}
		return map[string][]byte{path: buf.Bytes()}, nil
	}
	out := map[string][]byte{path: data}
	for name, body := range files {
		if name != filepath.Base(name) || name == ".." {
			return nil, fmt.Errorf("har: refusing attached file name %q", name)
		}
		out[filepath.Join(filepath.Dir(path), name)] = body
	}
	return out, nil
}

func addZip(zw *zip.Writer, name string, data []byte) error {
	w, err := zw.Create(name)
	if err == nil {
		_, err = w.Write(data)
	}
	if err != nil {
		return fmt.Errorf("har: zip %s: %w", name, err)
	}
	return nil
}

func sortedKeys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// maxFile caps one file read from an archive (a log or a body), so that a
// hostile archive cannot exhaust memory.
const maxFile = 512 << 20

// Archive is an opened HAR, ready for Lookup.
type Archive struct {
	Log    Log
	dir    string      // where a .har's attached files are
	zip    *zip.Reader // a .zip's files
	zipped *os.File    // the file under zip
	open   func(path string) (*os.File, error)
	path   string
}

// Open reads the archive at path (a .har, or a .zip holding one).
func Open(path string) (*Archive, error) {
	return OpenWith(path, os.Open)
}

// OpenWith is Open with every file (the archive, and the bodies a .har
// names beside it) opened by open: the driver's path policy, which opens
// no name through a link or outside its folder.
func OpenWith(path string, open func(path string) (*os.File, error)) (*Archive, error) {
	a := &Archive{path: path, dir: filepath.Dir(path), open: open}
	var data []byte
	if IsZip(path) {
		f, err := open(path)
		if err != nil {
			return nil, fmt.Errorf("har: open %s: %w", path, err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("har: open %s: %w", path, err)
		}
		zr, err := zip.NewReader(f, st.Size())
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("har: open %s: %w", path, err)
		}
		a.zip, a.zipped = zr, f
		name := LogName
		for _, f := range zr.File {
			if strings.HasSuffix(f.Name, ".har") {
				name = f.Name
				break
			}
		}
		data, err = a.file(name)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("har: %s holds no log: %w", path, err)
		}
	} else {
		f, err := open(path)
		if err != nil {
			return nil, fmt.Errorf("har: %w", err)
		}
		data, err = readCapped(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("har: read %s: %w", path, err)
		}
	}
	var h HAR
	if err := json.Unmarshal(data, &h); err != nil {
		a.Close()
		return nil, fmt.Errorf("har: %s is not a HAR file: %w", path, err)
	}
	a.Log = h.Log
	return a, nil
}

// Close releases a zipped archive.
func (a *Archive) Close() error {
	if a.zipped != nil {
		return a.zipped.Close()
	}
	return nil
}

// file reads an attached file by the name the log gives; names that would
// leave the archive's folder are refused.
func (a *Archive) file(name string) ([]byte, error) {
	if name == "" || name != filepath.Base(name) || name == ".." || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("har: refusing attached file name %q", name)
	}
	if a.zip != nil {
		f, err := a.zip.Open(name)
		if err != nil {
			return nil, fmt.Errorf("har: %s: %w", name, err)
		}
		defer f.Close()
		return readCapped(f)
	}
	f, err := a.open(filepath.Join(a.dir, name))
	if err != nil {
		return nil, fmt.Errorf("har: %w", err)
	}
	defer f.Close()
	return readCapped(f)
}

func readCapped(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFile {
		return nil, errors.New("over 512 MB")
	}
	return b, nil
}

// Set is several archives answering as one: the first that has an entry
// for a request answers it (bench replays every HAR a run recorded).
type Set []*Archive

// OpenSet opens path: one archive, or every .har and .zip file in a folder
// (in name order).
func OpenSet(path string) (Set, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("har: %w", err)
	}
	if !st.IsDir() {
		a, err := Open(path)
		if err != nil {
			return nil, err
		}
		return Set{a}, nil
	}
	names, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("har: %w", err)
	}
	var set Set
	for _, n := range names {
		lower := strings.ToLower(n.Name())
		if n.IsDir() || !(strings.HasSuffix(lower, ".har") || strings.HasSuffix(lower, ".zip")) {
			continue
		}
		a, err := Open(filepath.Join(path, n.Name()))
		if err != nil {
			set.Close()
			return nil, err
		}
		set = append(set, a)
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("har: %s holds no .har or .zip file", path)
	}
	return set, nil
}

// Lookup asks each archive in turn; the first answer that is not
// ActionNoEntry wins.
func (s Set) Lookup(q Query) Answer {
	for _, a := range s {
		if ans := a.Lookup(q); ans.Action != ActionNoEntry {
			return ans
		}
	}
	return Answer{Action: ActionNoEntry}
}

// Close closes every archive.
func (s Set) Close() {
	for _, a := range s {
		_ = a.Close()
	}
}
