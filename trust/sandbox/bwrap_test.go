//go:build linux

package sandbox_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"wright/trust/netpolicy"
	"wright/trust/sandbox"
)

// The test binary is its own "wright" inside the sandbox: run as
// `<test> sandbox-init ...` it is Init.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		err := sandbox.Init(os.Args[2:])
		fmt.Fprintln(os.Stderr, err)
		os.Exit(126)
	}
	if ws := os.Getenv("SANDBOX_TEST_PARENT_WS"); ws != "" {
		sandboxParent(ws, os.Getenv("SANDBOX_TEST_PARENT_MARKER"), os.Getenv("SANDBOX_TEST_PARENT_PROXY"))
	}
	os.Exit(m.Run())
}

func needBwrap(t *testing.T) {
	t.Helper()
	if ok, why := sandbox.BwrapAvailable(); !ok {
		t.Skip("bubblewrap cannot run here: " + why)
	}
}

// spec is a sandbox with ws writable and the test binary as wright. The
// proxy's socket is not bound inside: the host guard dials it.
func spec(t *testing.T, ws, proxySock string) *sandbox.Spec {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &sandbox.Spec{Writable: []string{ws}, ReadOnly: []string{filepath.Dir(self)}, ProxySocket: proxySock, Wright: self}
}

// inSandbox runs a bash script in the sandbox and returns its output.
func inSandbox(t *testing.T, s *sandbox.Spec, dir, script string, env ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	started, err := s.Wrap(cmd)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Start()
	started()
	if err == nil {
		err = cmd.Wait()
	}
	return out.String(), err
}

// A process of the host holding a planted key in its environment is
// invisible from inside: its /proc entry does not exist there, and no
// environ the sandbox can read holds the key.
func TestHostProcessesAreInvisible(t *testing.T) {
	needBwrap(t)
	const key = "sk-planted-bwrap-key-4f1c9e"
	host := exec.Command("sleep", "300")
	host.Env = []string{"OPENAI_API_KEY=" + key}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = host.Process.Kill(); _ = host.Wait() }()
	ws := t.TempDir()
	script := fmt.Sprintf(`
if cat /proc/%d/environ >/dev/null 2>&1; then echo HOST-ENVIRON-READABLE; fi
if cat /proc/%d/environ >/dev/null 2>&1; then echo WRIGHT-ENVIRON-READABLE; fi
for f in /proc/[0-9]*/environ; do cat "$f" 2>/dev/null; done | tr '\0' '\n' | grep -c %s
echo pids: $(ls -d /proc/[0-9]* | wc -l)
echo self: $$`, host.Process.Pid, os.Getpid(), key)
	out, _ := inSandbox(t, spec(t, ws, ""), ws, script)
	if strings.Contains(out, "READABLE") || strings.Contains(out, key) {
		t.Fatalf("the host's processes are visible from the sandbox:\n%s", out)
	}
	if !strings.Contains(out, "\n0\n") && !strings.HasPrefix(out, "0\n") {
		t.Errorf("the key scan did not run as expected:\n%s", out)
	}
	if !strings.Contains(out, "self: "+strconv.Itoa(sandbox.FirstPID)) {
		t.Errorf("the command is not process %d of its namespace:\n%s", sandbox.FirstPID, out)
	}
}

// Only the workspace (and the private /tmp) can be written.
func TestOnlyTheWorkspaceIsWritable(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	outside := t.TempDir() // exists on the host, not bound
	probes := []string{"/usr/wright-probe", "/etc/wright-probe", "/wright-probe", filepath.Join(outside, "probe")}
	// The home directory, unless it is under /tmp (the sandbox's own).
	if home, _ := os.UserHomeDir(); home != "" && !strings.HasPrefix(home, "/tmp") {
		probes = append(probes, filepath.Join(home, "wright-probe"))
	}
	var script strings.Builder
	for _, p := range probes {
		fmt.Fprintf(&script, "if echo x > %q 2>/dev/null; then echo WROTE %s; fi\n", p, p)
	}
	script.WriteString("echo ok > \"$PWD/inside\" && echo ws-ok\necho t > /tmp/t && echo tmp-ok\n")
	out, err := inSandbox(t, spec(t, ws, ""), ws, script.String())
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if strings.Contains(out, "WROTE") {
		t.Errorf("wrote outside the workspace:\n%s", out)
	}
	if !strings.Contains(out, "ws-ok") || !strings.Contains(out, "tmp-ok") {
		t.Errorf("the workspace or /tmp is not writable:\n%s", out)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "inside")); err != nil || string(b) != "ok\n" {
		t.Errorf("the workspace file did not reach the host: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "probe")); err == nil {
		t.Error("a directory outside the workspace was written")
	}
}

// fakeDNS answers from a table; no real lookup ever happens.
type fakeDNS map[string][]string

func (f fakeDNS) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range f[host] {
		out = append(out, netip.MustParseAddr(s))
	}
	if len(out) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return out, nil
}

// loopbackOnly fails the test on any connection that is not to loopback:
// the proxy must never dial a private or metadata address.
type loopbackOnly struct{ t *testing.T }

func (d loopbackOnly) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() {
		d.t.Errorf("the proxy dialed %s", addr)
		return nil, errors.New("test dialer: refused")
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

// The sandbox reaches the network only through wright's policy proxy: an
// allowed loopback server is reached through it, a blocked host and a
// name resolving to a private or metadata address are refused, and going
// around the proxy reaches nothing (the sandbox has no network of its
// own).
func TestNetworkOnlyThroughThePolicy(t *testing.T) {
	needBwrap(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "hello from the allowed site")
	}))
	defer site.Close()
	proxy, err := netpolicy.Start(netpolicy.Options{
		CheckURL: func(u string) error {
			if strings.Contains(u, "blocked.example") {
				return errors.New("blocked.example is blocked")
			}
			return nil
		},
		Resolver: fakeDNS{"intranet.example": {"10.1.2.3"}, "metadata.example": {"169.254.169.254"}, "rebind.example": {"127.0.0.1"}},
		Dialer:   loopbackOnly{t},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	sockDir, err := os.MkdirTemp("", "wsb")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	sock := filepath.Join(sockDir, "p.sock")
	if err := proxy.ServeUnix(sock); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	port := site.URL[strings.LastIndexByte(site.URL, ':')+1:]
	py := `
import os, sys, urllib.request, urllib.error
def get(url, proxied=True):
    h = urllib.request.ProxyHandler(None if proxied else {})
    try:
        with urllib.request.build_opener(h).open(url, timeout=10) as r:
            return "%d %s" % (r.status, r.read().decode())
    except urllib.error.HTTPError as e:
        return "%d refused" % e.code
    except Exception as e:
        return "error " + type(e).__name__
for name, url, proxied in [
    ("allowed", "http://127.0.0.1:` + port + `/", True),
    ("blocked", "http://blocked.example/", True),
    ("private", "http://intranet.example/", True),
    ("metadata", "http://metadata.example/latest/meta-data/", True),
    ("rebind", "http://rebind.example:` + port + `/", True),
    ("direct", "http://127.0.0.1:` + port + `/", False),
]:
    print(name + ": " + get(url, proxied))
`
	if err := os.WriteFile(filepath.Join(ws, "net.py"), []byte(py), 0o644); err != nil {
		t.Fatal(err)
	}
	// No wright process stays beside the command: wright itself carries
	// the connections (each wright process costs its
	// runtime's memory, and a bench runs many sandboxes). The proxy's
	// socket is not there to dial around the listener, and the command
	// holds no socket (init closes its end of the listener's way out
	// before it becomes the command).
	helpers := `python3 -c 'import os, stat
n = 0
for f in os.listdir("/proc/self/fd"):
    try:
        n += stat.S_ISSOCK(os.fstat(int(f)).st_mode)
    except OSError:
        pass
print("sockets held:", n)'; echo "helpers: $(for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' <$f | grep -q '^[^ ]* sandbox-init ' && echo; done | wc -l)"; ` +
		`if [ -e ` + sock + ` ]; then echo SOCKET-VISIBLE; fi; `
	out, err := inSandbox(t, spec(t, ws, sock), ws, helpers+"python3 net.py; curl -s -o /dev/null -w 'curl-blocked: %{http_code}\n' http://blocked.example/ 2>&1 || true",
		"HTTP_PROXY="+sandbox.ProxyURL, "http_proxy="+sandbox.ProxyURL, "HTTPS_PROXY="+sandbox.ProxyURL)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := map[string]string{
		"allowed":  "allowed: 200 hello from the allowed site",
		"blocked":  "blocked: 403 refused",
		"private":  "private: 403 refused",
		"metadata": "metadata: 403 refused",
		"rebind":   "rebind: 403 refused",
		"direct":   "direct: error",
		"helpers":  "helpers: 0\n",
		"sockets":  "sockets held: 0\n",
	}
	for name, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s: want %q in:\n%s", name, w, out)
		}
	}
	if strings.Contains(out, "SOCKET-VISIBLE") {
		t.Errorf("the proxy's socket is visible inside the sandbox:\n%s", out)
	}
	if _, err := exec.LookPath("curl"); err == nil && !strings.Contains(out, "curl-blocked: 403") {
		t.Errorf("curl reached a blocked host:\n%s", out)
	}
}

// `env -i setsid sleep &` ends with the sandboxed command.
func TestNothingOutlivesTheSandbox(t *testing.T) {
	needBwrap(t)
	ws := t.TempDir()
	marker := "987.654321"
	out, err := inSandbox(t, spec(t, ws, ""), ws, "env -i /usr/bin/setsid /usr/bin/sleep "+marker+" </dev/null >/dev/null 2>&1 & disown; (nohup sleep "+marker+" >/dev/null 2>&1 &); echo started")
	if err != nil || !strings.Contains(out, "started") {
		t.Fatalf("%v: %s", err, out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := sleepers(marker)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes outlived the sandbox: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func sleepers(marker string) []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err == nil && strings.Contains(string(b), marker) {
			out = append(out, f)
		}
	}
	return out
}

// A command that opens connections without end to the proxy's listener
// does not make wright, outside the sandbox, carry them all at once: it
// carries 256 and the rest wait in the listener's queue.
func TestGuardCarriesABoundedNumberOfConnections(t *testing.T) {
	needBwrap(t)
	sockDir := t.TempDir()
	sock := filepath.Join(sockDir, "p.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var mu sync.Mutex
	open, peak, ended := 0, 0, false // peak: before any connection ended
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open++
			if !ended {
				peak = open
			}
			mu.Unlock()
			go func() {
				_, _ = io.Copy(io.Discard, c) // held until the sandbox's side closes
				c.Close()
				mu.Lock()
				open--
				ended = true
				mu.Unlock()
			}()
		}
	}()
	ws := t.TempDir()
	py := `import socket, time
conns = [socket.create_connection(("127.0.0.1", 3128)) for _ in range(400)]
time.sleep(3)
print("opened", len(conns))`
	out, err := inSandbox(t, spec(t, ws, sock), ws, "python3 -c '"+py+"'")
	if err != nil || !strings.Contains(out, "opened 400") {
		t.Fatalf("%v: %s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if peak != 256 {
		t.Errorf("%d connections were carried at once, want 256", peak)
	}
}

// A sandbox keeps no wright process on the host either: the guard is a
// shell, and init became the command. The command's exit status is the
// sandbox's.
func TestNoWrightProcessStaysWithASandbox(t *testing.T) {
	needBwrap(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	sock := filepath.Join(t.TempDir(), "p.sock")
	cmd := exec.Command("/bin/bash", "-c", "echo up; read -r _; exit 7")
	cmd.Dir = ws
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	started, err := spec(t, ws, sock).Wrap(cmd)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	err = cmd.Start()
	started()
	if err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); line != "up\n" {
		t.Fatalf("the command did not start: %q", line)
	}
	var tree []int
	for next := []int{cmd.Process.Pid}; len(next) > 0; {
		pid := next[0]
		next = next[1:]
		tree = append(tree, pid)
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
		for _, f := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(f)
			next = append(next, n)
		}
	}
	if len(tree) < 4 {
		t.Errorf("the sandbox's tree is %v: want the guard, its watcher, bubblewrap's two halves and the command", tree)
	}
	for _, pid := range tree {
		if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe == self {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			t.Errorf("process %d of the sandbox is wright: %q", pid, cmdline)
		}
	}
	in.Close()
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 7 {
		t.Errorf("the sandbox ended with %v, want the command's exit status 7", err)
	}
}
