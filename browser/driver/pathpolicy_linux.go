package driver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// The Linux half of the path policy: every name under the root is resolved
// by the kernel from the root's descriptor, refusing to leave it and
// refusing any symbolic link (a planted one, or one swapped in after a
// check), so no check-then-open race is left to win.

const beneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

func (r fileRoot) rootFD() (int, error) {
	fd, err := unix.Open(r.dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open the driver's folder: %w", err)
	}
	return fd, nil
}

// openat2 opens rel beneath dfd, naming a refusal for what it is.
func openat2(dfd int, rel string, flags uint64, mode uint64) (int, error) {
	fd, err := unix.Openat2(dfd, rel, &unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Mode: mode, Resolve: beneath})
	if err != nil {
		if errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ELOOP) {
			return -1, fmt.Errorf("%s: %w (through a link)", rel, errOutside)
		}
		return -1, fmt.Errorf("%s: %w", rel, err)
	}
	return fd, nil
}

func (r fileRoot) openBeneath(rel string) (*os.File, error) {
	dfd, err := r.rootFD()
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	fd, err := openat2(dfd, rel, unix.O_RDONLY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), filepath.Join(r.dir, rel)), nil
}

// noLinks says whether rel's folders exist under the root without a link
// and rel itself, if it exists, is no link.
func (r fileRoot) noLinks(rel string) error {
	dfd, err := r.rootFD()
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	fd, err := openat2(dfd, rel, unix.O_PATH|unix.O_NOFOLLOW, 0)
	if err == nil {
		// O_PATH|O_NOFOLLOW opens a trailing link itself: look at what it is.
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		unix.Close(fd)
		if err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return fmt.Errorf("%s: %w (it is a link)", rel, errOutside)
		}
		return err
	}
	if !errors.Is(err, unix.ENOENT) {
		return err
	}
	// Absent: its nearest existing folder must be reached without a link.
	for dir := filepath.Dir(rel); ; dir = filepath.Dir(dir) {
		fd, err := openat2(dfd, dir, unix.O_PATH|unix.O_DIRECTORY, 0)
		if err == nil {
			unix.Close(fd)
			return nil
		}
		if !errors.Is(err, unix.ENOENT) || dir == "." {
			return err
		}
	}
}

// mkdirBeneath makes rel and the folders above it one step at a time, each
// from its parent's descriptor, and returns when rel is a folder.
func (r fileRoot) mkdirBeneath(rel string) error {
	dfd, err := r.mkdirFD(rel)
	if err != nil {
		return err
	}
	unix.Close(dfd)
	return nil
}

// mkdirFD is mkdirBeneath answering the folder's descriptor.
func (r fileRoot) mkdirFD(rel string) (int, error) {
	dfd, err := r.rootFD()
	if err != nil {
		return -1, err
	}
	if rel == "." {
		return dfd, nil
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if err := unix.Mkdirat(dfd, part, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			unix.Close(dfd)
			return -1, fmt.Errorf("create %s: %w", rel, err)
		}
		next, err := openat2(dfd, part, unix.O_PATH|unix.O_DIRECTORY, 0)
		unix.Close(dfd)
		if err != nil {
			return -1, err
		}
		dfd = next
	}
	return dfd, nil
}

// writeBeneath writes data into a temporary file in rel's folder, opened
// from that folder's descriptor, and renames it over rel's name there:
// neither step resolves a name through a link.
func (r fileRoot) writeBeneath(rel string, data []byte) error {
	dir, name := filepath.Split(rel)
	if name == "" || name == "." || name == ".." {
		return fmt.Errorf("%s names a folder, not a file", rel)
	}
	dfd, err := r.mkdirFD(filepath.Clean(dir))
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := "." + name + "." + hex.EncodeToString(rnd[:])
	fd, err := openat2(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		// rename replaces a link at name itself rather than writing through it.
		werr = unix.Renameat(dfd, tmp, dfd, name)
	}
	if werr != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("write %s: %w", rel, werr)
	}
	return nil
}
