package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// clientPath is the host path a tool reads or writes for its client (an
// upload's source, a screenshot's path). With no FileRoot any path is the
// client's to name (`wright browser`, whose client is the user's own
// shell). With one, a relative path is taken from the root, and a path
// outside it, or with a symbolic link on its way from the root (the file
// itself included), is refused: a client such as an MCP agent, which a
// page's text may try to steer, reaches no other file of the host.
func (s *Session) clientPath(p string) (string, error) {
	root := s.opt.FileRoot
	if root == "" {
		return p, nil
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	p = filepath.Clean(p)
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the session's folder %s: name a file inside it", p, root)
	}
	at := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." {
			continue
		}
		at = filepath.Join(at, part)
		fi, err := os.Lstat(at)
		if os.IsNotExist(err) {
			break // what is still to be made cannot be a link
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return "", fmt.Errorf("%s goes through the link %s: links are not followed", p, at)
		}
	}
	return p, nil
}

// openNoFollow opens a file the client named, refusing a link swapped in
// after clientPath looked (O_NOFOLLOW on the last part).
func openNoFollow(p string, flag int, perm os.FileMode, rooted bool) (*os.File, error) {
	if rooted {
		flag |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(p, flag, perm)
}
