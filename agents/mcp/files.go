package mcp

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// readBelow reads the file at root/parts..., following no symbolic link on
// the way from root, the file itself included: a run's folder is written
// by a model, whose workspace may hold a link to any host file, and a
// client must never read one through a run's files.
func readBelow(root string, parts ...string) ([]byte, error) {
	at := root
	for i, p := range parts {
		at = filepath.Join(at, p)
		fi, err := os.Lstat(at)
		if err != nil {
			return nil, err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s is a link: links are not followed", at)
		}
		if i < len(parts)-1 && !fi.IsDir() {
			return nil, fmt.Errorf("%s is not a folder", at)
		}
	}
	// O_NOFOLLOW refuses a link swapped in after the look.
	f, err := os.OpenFile(at, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", at)
	}
	// A run's text files are small; a huge one is not read whole.
	return io.ReadAll(io.LimitReader(f, 8<<20))
}
