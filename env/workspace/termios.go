package workspace

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// quietTerminal switches echo off (our command lines must not show up as
// output) and output newline translation off (output stays as the program
// wrote it) on the terminal fd, leaving every other setting as it is. It
// reports whether anything had to change. The ioctl requests come from
// termios_<GOOS>.go: Linux and the BSD-derived kernels (macOS) name them
// differently.
func quietTerminal(fd int) (bool, error) {
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return false, fmt.Errorf("read terminal settings: %w", err)
	}
	if t.Lflag&(unix.ECHO|unix.ECHONL) == 0 && t.Oflag&unix.ONLCR == 0 {
		return false, nil
	}
	t.Lflag &^= unix.ECHO | unix.ECHONL
	t.Oflag &^= unix.ONLCR
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, t); err != nil {
		return false, fmt.Errorf("set terminal settings: %w", err)
	}
	return true, nil
}
