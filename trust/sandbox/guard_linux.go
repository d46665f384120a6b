package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
)

// bubblewrap's process inside the new namespace waits, right after it is
// cloned, for its outer half to set it up; an outer half killed in that
// moment (it dies with wright) leaves it waiting for ever, before any
// parent-death signal or command of ours exists there. So bubblewrap runs
// under a host-side guard: a bash, the leader of a process group that
// bubblewrap's two halves share, with a watcher (a subshell of its own,
// using only builtins) reading the lifeline. At end-of-file (wright died,
// however and whenever) the watcher kills the group, and with bubblewrap's
// inner half the namespace's init, whose end ends the whole sandbox.
// bubblewrap has a parent-death signal tied to the guard (setpriv), so a
// guard killed by itself takes the sandbox with it.
//
// The guard is a shell, not a wright process: a bench runs many sandboxes
// at once, and a wright process costs its runtime and its packages'
// memory again for each (about 10 MiB of PSS, against under 1 MiB for the
// shell). Its traps handle the signals rather than ignore them: an ignored
// signal would stay ignored in bubblewrap and everything it starts (Python
// would then never see a KeyboardInterrupt). bubblewrap runs in the
// foreground for the same reason (bash starts a background job with
// SIGINT ignored). Its exit status is bubblewrap's, which is the command's.
//
// $1 is the lifeline's descriptor; the rest is setpriv's command line.
const guardScript = `L=$1; shift
trap : INT TERM HUP QUIT PIPE
{ while read -r -u "$L" _; do :; done; kill -KILL 0; } </dev/null &
w=$!
"$@" {L}<&-
rc=$?
kill -KILL "$w" 2>/dev/null
exit "$rc"`

var errNoGuard = errors.New("sandbox: the host guard needs bash and setpriv (util-linux)")

// guardTools finds the guard's bash and setpriv.
func guardTools() (bash, setpriv string, err error) {
	bash, err1 := exec.LookPath("bash")
	setpriv, err2 := exec.LookPath("setpriv")
	if err1 != nil || err2 != nil {
		return "", "", errNoGuard
	}
	return bash, setpriv, nil
}

// proxyLink is wright's end of a sandbox's way to the policy proxy. The
// sandbox's init listens on ProxyAddr inside the sandbox's network
// namespace and sends the listening socket over the link (sendListener);
// wright accepts on it (a socket keeps the namespace it was made in) and
// carries each connection to the proxy's Unix socket. The other end of
// the link is held by the guard and bubblewrap, never by the command
// (init closes its copy before it becomes the command), so end-of-file
// on ours is the sandbox's end.
type proxyLink struct {
	ours, theirs *os.File
	sock         string
}

func newProxyLink(sock string) (*proxyLink, error) {
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: proxy link: %w", err)
	}
	// Ours is served by the runtime's poller; theirs stays blocking for
	// init's one send.
	if err := syscall.SetNonblock(pair[0], true); err != nil {
		syscall.Close(pair[0])
		syscall.Close(pair[1])
		return nil, fmt.Errorf("sandbox: proxy link: %w", err)
	}
	return &proxyLink{ours: os.NewFile(uintptr(pair[0]), "proxy-link"), theirs: os.NewFile(uintptr(pair[1]), "proxy-link"), sock: sock}, nil
}

// started closes wright's copy of the sandbox's end (the child has its
// own, or there is no child) and serves the link until the sandbox ends.
func (p *proxyLink) started() {
	p.theirs.Close()
	go p.serve()
}

func (p *proxyLink) serve() {
	defer p.ours.Close()
	l, err := receiveListener(p.ours)
	if err != nil {
		return // the sandbox ended before its init got that far
	}
	go forward(l, p.sock)
	// Nothing more comes on the link: any read ends at the sandbox's end
	// (data a process there might write is dropped with what it carries).
	buf := make([]byte, 64)
	for {
		if _, err := p.ours.Read(buf); err != nil {
			break
		}
	}
	l.Close() // its namespace stays alive as long as the listener is open
}

// receiveListener waits for the one listener the sandbox's init sends.
// End-of-file (the sandbox ended before it got that far) is an error.
func receiveListener(link *os.File) (net.Listener, error) {
	raw, err := link.SyscallConn()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 1)
	oob := make([]byte, syscall.CmsgSpace(4))
	var n, oobn int
	var rerr error
	if err := raw.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), buf, oob, syscall.MSG_CMSG_CLOEXEC)
		return rerr != syscall.EAGAIN
	}); err != nil {
		return nil, err
	}
	if rerr != nil {
		return nil, rerr
	}
	if n == 0 && oobn == 0 {
		return nil, io.EOF
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, errors.New("sandbox: no listener in the sandbox's message")
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, f := range fds {
			syscall.Close(f)
		}
		return nil, errors.New("sandbox: not one listener in the sandbox's message")
	}
	f := os.NewFile(uintptr(fds[0]), "listener")
	defer f.Close()
	return net.FileListener(f)
}

// maxCarried bounds the connections carried at once for one sandbox: a
// command that opens connections without end waits for one to close
// instead of growing wright.
const maxCarried = 256

// forward carries each connection on l to the proxy's Unix socket
// unchanged, until l is closed.
func forward(l net.Listener, sock string) {
	slots := make(chan struct{}, maxCarried)
	for {
		slots <- struct{}{}
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer func() { <-slots }()
			carry(c, sock)
		}()
	}
}

func carry(c net.Conn, sock string) {
	defer c.Close()
	up, err := net.Dial("unix", sock)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		_ = up.(*net.UnixConn).CloseWrite()
		close(done)
	}()
	_, _ = io.Copy(c, up)
	_ = c.(*net.TCPConn).CloseWrite()
	<-done
}
