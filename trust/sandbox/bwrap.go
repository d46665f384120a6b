package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Modes of env.sandbox.
const (
	ModeAuto  = "auto"  // bubblewrap where it works, none elsewhere (the default)
	ModeBwrap = "bwrap" // bubblewrap or an error
	ModeNone  = "none"  // no bubblewrap: PID namespace and parent-death signal only
)

// ProxyAddr is where, inside a sandbox, the way to wright's policy proxy
// listens (the host guard carries what comes to it). The sandbox has a network namespace of its own, so the
// port is free there whatever the host uses.
const ProxyAddr = "127.0.0.1:3128"

// ProxyURL is ProxyAddr as a proxy URL, for HTTP(S)_PROXY and Chromium's
// --proxy-server.
const ProxyURL = "http://" + ProxyAddr

// InitCommand is the wright subcommand that hands a sandbox's proxy
// listener to the host guard and then becomes the sandboxed command (see
// Init); with --host-guard, it is the guard.
const InitCommand = "sandbox-init"

// Spec says what a bubblewrap sandbox shows the process it runs. Every
// path is bound at the same place inside as outside, so the variables and
// files that name them stay true. The system directories (/usr, /etc, the
// library links) are always there, read-only; / itself is an empty,
// read-only directory; /tmp is a private, empty tmpfs; /proc shows only
// the sandbox's own processes; there is no network but loopback and, when
// ProxySocket is set, wright's policy proxy at ProxyAddr.
type Spec struct {
	// Writable directories (the workspace).
	Writable []string
	// ReadOnly directories or files (the wright binary's directory, the
	// browser client, the directories holding the sockets the command
	// talks to: connecting to a socket does not need a writable mount).
	ReadOnly []string
	// ProxySocket is the Unix socket of wright's policy proxy, dialled from
	// outside by the host guard (it need not be visible inside); "" leaves
	// the sandbox without any network beyond its own loopback.
	ProxySocket string
	// Wright is the wright binary, which runs InitCommand inside.
	Wright string
	// Bwrap is the bubblewrap binary; "" finds it on PATH.
	Bwrap string
}

// Resolve turns an env.sandbox value into whether bubblewrap is used: auto
// means where it works, bwrap is an error where it does not.
func Resolve(mode string) (bool, error) {
	switch mode {
	case "", ModeAuto:
		ok, _ := BwrapAvailable()
		return ok, nil
	case ModeNone:
		return false, nil
	case ModeBwrap:
		if ok, why := BwrapAvailable(); !ok {
			return false, fmt.Errorf("env.sandbox is bwrap but bubblewrap cannot run here: %s", why)
		}
		return true, nil
	}
	return false, fmt.Errorf("env.sandbox: %q is not one of auto, bwrap, none", mode)
}

// args is the bubblewrap command line for spec, up to and including "--".
func (s *Spec) args(dir string, isRoot bool) ([]string, error) {
	a := []string{
		"--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
		"--die-with-parent",
		"--hostname", "wright-sandbox",
	}
	if isRoot {
		// bubblewrap keeps a root caller's capabilities unless told not to.
		a = append(a, "--cap-drop", "ALL")
	}
	for _, d := range []string{"/usr", "/etc", "/opt"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			a = append(a, "--ro-bind", d, d)
		}
	}
	// Merged-/usr systems link these into /usr; older ones have them as
	// directories of their own.
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		if target, err := os.Readlink(d); err == nil {
			a = append(a, "--symlink", target, d)
		} else if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			a = append(a, "--ro-bind", d, d)
		}
	}
	// The font cache spares Chromium rebuilding it in every sandbox.
	a = append(a, "--ro-bind-try", "/sys", "/sys", "--ro-bind-try", "/var/cache/fontconfig", "/var/cache/fontconfig",
		"--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp")
	binds, err := s.binds()
	if err != nil {
		return nil, err
	}
	a = append(a, binds...)
	if dir != "" {
		a = append(a, "--chdir", dir)
	}
	// HOME is the private temp: the user's own home is not in the sandbox.
	a = append(a, "--setenv", "HOME", "/tmp", "--remount-ro", "/", "--")
	return a, nil
}

type bind struct {
	path string
	rw   bool
}

// binds are the Writable and ReadOnly paths, parents before children so
// that a read-only directory does not cover a writable one inside it.
func (s *Spec) binds() ([]string, error) {
	var bs []bind
	add := func(paths []string, rw bool) error {
		for _, p := range paths {
			if p == "" {
				continue
			}
			abs, err := filepath.Abs(p)
			if err != nil {
				return fmt.Errorf("sandbox path %q: %w", p, err)
			}
			if _, err := os.Stat(abs); err != nil {
				return fmt.Errorf("sandbox path: %w", err)
			}
			bs = append(bs, bind{filepath.Clean(abs), rw})
		}
		return nil
	}
	if err := add(s.ReadOnly, false); err != nil {
		return nil, err
	}
	if err := add(s.Writable, true); err != nil {
		return nil, err
	}
	slices.SortStableFunc(bs, func(x, y bind) int {
		return strings.Count(x.path, "/") - strings.Count(y.path, "/")
	})
	var a []string
	for _, b := range bs {
		flag := "--ro-bind"
		if b.rw {
			flag = "--bind"
		}
		a = append(a, flag, b.path, b.path)
	}
	return a, nil
}

// FirstPID is the process ID, inside a sandbox, of the command Wrap runs
// (bubblewrap's own init is 1).
const FirstPID = 2
