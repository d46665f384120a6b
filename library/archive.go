package library

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"wright/internal/atomicfile"
)

// Export writes a script (every version and its history, not its rerun
// folders) to file as a gzipped tar whose entries sit under <name>/.
func (l *Library) Export(name, file string) error {
	if _, err := l.Versions(name); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".wright-export-*")
	if err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	defer os.Remove(tmp.Name())
	zw := gzip.NewWriter(tmp)
	tw := tar.NewWriter(zw)
	root := l.ScriptDir(name)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == RerunsDir && d.IsDir() {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: path.Join(name, filepath.ToSlash(rel)), Mode: 0o644, Size: int64(len(data))}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = zw.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	return nil
}

// Import reads a file Export wrote and adds its script to the library,
// under its own name or as (when not empty). A name the library has is
// refused: nothing is overwritten. It returns the name.
func (l *Library) Import(file, as string) (string, error) {
	name, files, err := readExport(file)
	if err != nil {
		return "", err
	}
	if as != "" {
		if err := CheckName(as); err != nil {
			return "", err
		}
		name = as
	}
	if _, ok := files[path.Join("v1", VersionFile)]; !ok {
		return "", fmt.Errorf("import %s: no v1/%s: not a script export", file, VersionFile)
	}
	dest := l.ScriptDir(name)
	if _, err := os.Stat(dest); err == nil {
		return "", usagef("import: the library already has a script %q (rm it first, or import it under another name)", name)
	}
	staging, err := os.MkdirTemp(l.Dir, ".import-*")
	if err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	defer os.RemoveAll(staging)
	for rel, data := range files {
		p := filepath.Join(staging, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("import: %w", err)
		}
		if err := atomicfile.Write(p, data, 0o644); err != nil {
			return "", fmt.Errorf("import: %w", err)
		}
	}
	if err := os.Rename(staging, dest); err != nil {
		return "", fmt.Errorf("import: %w", err)
	}
	// The versions keep the name they were saved under; the folder is the
	// name the library knows them by.
	if as != "" {
		vs, err := l.Versions(name)
		if err != nil {
			return "", err
		}
		for _, v := range vs {
			v.Version.Name = name
			if err := writeJSON(filepath.Join(v.Dir, VersionFile), v.Version); err != nil {
				return "", fmt.Errorf("import: %w", err)
			}
		}
	}
	return name, nil
}

// readExport reads the entries of a file Export wrote: the script's name
// and its files by their path inside the script folder. Entries outside one
// script folder, and exports over 1 GiB, are refused.
func readExport(file string) (string, map[string][]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", nil, fmt.Errorf("import: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return "", nil, fmt.Errorf("import %s: not a script export (%w)", file, err)
	}
	tr := tar.NewReader(zr)
	files := map[string][]byte{}
	name := ""
	var total int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", nil, fmt.Errorf("import %s: %w", file, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		clean := path.Clean(hdr.Name)
		top, rel, ok := strings.Cut(clean, "/")
		if !ok || strings.HasPrefix(clean, "/") || strings.Contains("/"+clean+"/", "/../") || CheckName(top) != nil {
			return "", nil, fmt.Errorf("import %s: entry %q is not inside a script folder", file, hdr.Name)
		}
		if name != "" && top != name {
			return "", nil, fmt.Errorf("import %s: holds more than one script (%s, %s)", file, name, top)
		}
		name = top
		total += hdr.Size
		if total > 1<<30 {
			return "", nil, fmt.Errorf("import %s: larger than 1 GiB", file)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return "", nil, fmt.Errorf("import %s: %w", file, err)
		}
		files[rel] = data
	}
	if name == "" {
		return "", nil, fmt.Errorf("import %s: no script in it", file)
	}
	return name, files, nil
}
