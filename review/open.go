package review

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// A run's workspace is the model's: it may hold links to any file of the
// machine (/etc/passwd as plan.md), to another run, or to /. Every file a
// review shows, in the terminal, in --html, in --json and from the server,
// is opened through Open below: a path with a link anywhere in it, or one
// that leaves the directory, is refused, so a review shows nothing but the
// run's own files (and a bench's review nothing outside the bench).

// ErrLink is why a path through a symbolic link is refused.
var ErrLink = errors.New("a symbolic link (a review follows none)")

// maxReviewFile bounds what one read takes into memory.
const maxReviewFile = 64 << 20

// Resolve returns the path of rel below dir when no part of it is a link and
// it stays below dir; dir itself is the caller's choice and may be anything.
func Resolve(dir, rel string) (string, error) {
	rel = filepath.ToSlash(rel)
	if strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("review: %s: an absolute path", rel)
	}
	clean := path.Clean(rel)
	if clean == "." {
		return dir, nil
	}
	if !fs.ValidPath(clean) {
		return "", fmt.Errorf("review: %s: leaves the directory", rel)
	}
	full := dir
	for _, part := range strings.Split(clean, "/") {
		full = filepath.Join(full, part)
		fi, err := os.Lstat(full)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("review: %s: %w", rel, &fs.PathError{Op: "open", Path: rel, Err: ErrLink})
		}
	}
	return full, nil
}

// Open opens the regular file rel below dir for review (see Resolve).
func Open(dir, rel string) (*os.File, error) {
	p, err := Resolve(dir, rel)
	if err != nil {
		return nil, err
	}
	// O_NOFOLLOW and the same-file check catch a link put in place between
	// the walk and the open.
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		var li fs.FileInfo
		if li, err = os.Lstat(p); err == nil && !os.SameFile(fi, li) {
			err = fmt.Errorf("review: %s: %w", rel, ErrLink)
		}
	}
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("review: %s: not a regular file", rel)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the file rel below dir through Open (at most 64 MiB).
func ReadFile(dir, rel string) ([]byte, error) {
	f, err := Open(dir, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxReviewFile))
}

// Stat is os.Lstat of rel below dir, refusing links on the way.
func Stat(dir, rel string) (fs.FileInfo, error) {
	p, err := Resolve(dir, rel)
	if err != nil {
		return nil, err
	}
	return os.Lstat(p)
}

// ReadDir lists the directory rel below dir, refusing links on the way.
func ReadDir(dir, rel string) ([]fs.DirEntry, error) {
	p, err := Resolve(dir, rel)
	if err != nil {
		return nil, err
	}
	return os.ReadDir(p)
}

// Glob is filepath.Glob of a pattern whose last element alone has
// wildcards, below dir, through no link; it returns paths relative to dir.
func Glob(dir, pattern string) []string {
	d, base := path.Split(filepath.ToSlash(pattern))
	entries, err := ReadDir(dir, strings.TrimSuffix(d, "/"))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if ok, _ := path.Match(base, e.Name()); ok && e.Type()&fs.ModeSymlink == 0 {
			out = append(out, d+e.Name())
		}
	}
	return out
}
