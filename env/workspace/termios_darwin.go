package workspace

import "golang.org/x/sys/unix"

// The ioctl requests that read and write a terminal's settings are named
// differently on each kernel; shell.go uses these two.
const (
	ioctlGetTermios = unix.TIOCGETA
	ioctlSetTermios = unix.TIOCSETA
)
