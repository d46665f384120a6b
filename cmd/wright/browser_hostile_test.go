package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"wright/env/proctab"
)

// nobodyClient is a client of a session's socket run as another user
// (nobody, through setpriv): Python's standard library connects, sends a
// ping and prints the reply or the error.
const nobodyClient = `import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
    s.sendall(b'{"op":"ping"}\n')
    print("reply:", s.makefile().readline().strip())
except OSError as e:
    print("error:", e)
`

// A second user on the machine opens a session's socket. The folder's
// mode keeps it out; with the folder and the socket opened to everyone
// (as a careless chmod would), the daemon still refuses it by the uid the
// kernel gives (SO_PEERCRED), and serves its own user after.
func TestBrowserSocketRefusesAnotherUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("switching to another user needs root; CI runs as root")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatal("setpriv (util-linux) is needed to act as another user")
	}
	srv := browserSite(t)
	environ := browserEnv(t)
	rt := envValue(environ, "XDG_RUNTIME_DIR")
	wbOK(t, environ, "open", srv.URL+"/", "--session", "mine")
	t.Cleanup(func() { wb(t, environ, "close", "--session", "mine") })
	dir := filepath.Join(rt, "wright-browser")
	sock := filepath.Join(dir, "mine.sock")
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the sessions' folder: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the socket: %v %v", fi.Mode(), err)
	}
	asNobody := func() string {
		cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", nobodyClient, sock)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("python3 as nobody: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	// As the folder is: nobody cannot even reach the socket.
	_ = os.Chmod(rt, 0o755)
	if out := asNobody(); !strings.Contains(out, "Permission denied") {
		t.Errorf("nobody through a 0700 folder: %s", out)
	}
	// Opened to everyone: the kernel lets nobody connect, the daemon
	// refuses by peer uid.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	out := asNobody()
	t.Logf("nobody on an open socket: %s", out)
	if !strings.Contains(out, "refused a connection from uid 65534") || strings.Contains(out, `"text":"ok"`) {
		t.Errorf("nobody was not refused by peer uid: %s", out)
	}
	logb, _ := os.ReadFile(filepath.Join(dir, "mine.log"))
	if !strings.Contains(string(logb), "uid 65534") {
		t.Errorf("the daemon's log does not say whom it refused:\n%s", logb)
	}
	// Its own user is still served.
	if r := wbOK(t, environ, "tabs", "--session", "mine"); !strings.Contains(r.out, srv.URL) {
		t.Errorf("tabs after the refusal: %s", r.out)
	}
}

// A session's name cannot reach outside the sessions' folder, and a new
// session of a name starts in a folder of its own: what an earlier one
// left (a planted link among it) is swept, not followed.
func TestBrowserSessionNamesAndSweep(t *testing.T) {
	srv := browserSite(t)
	environ := browserEnv(t)
	rt := envValue(environ, "XDG_RUNTIME_DIR")
	for _, name := range []string{"../x", "..", ".hidden", "a/b", "/etc/passwd", strings.Repeat("a", 41), "-rf"} {
		r := wb(t, environ, "tabs", "--session", name)
		if r.code == 0 || !strings.Contains(r.err, "session name") {
			t.Errorf("session name %q: exit %d, %s", name, r.code, r.err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(rt, "*")); len(m) > 1 {
		t.Errorf("bad names made files: %v", m)
	}
	dir := filepath.Join(rt, "wright-browser", "s")
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "snapshots"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "snapshots", "old.md"), []byte("the last session's page"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "screenshots")); err != nil {
		t.Fatal(err)
	}
	wbOK(t, environ, "open", srv.URL+"/", "--session", "s")
	t.Cleanup(func() { wb(t, environ, "close", "--session", "s") })
	if _, err := os.Stat(filepath.Join(dir, "snapshots", "old.md")); err == nil {
		t.Error("the new session's folder holds the last one's snapshot")
	}
	if fi, err := os.Lstat(filepath.Join(dir, "screenshots")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		t.Error("the planted link is still in the new session's folder")
	}
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Errorf("the sweep followed the planted link: %v", err)
	}
	wbOK(t, environ, "screenshot", "--session", "s")
	if m, _ := filepath.Glob(filepath.Join(outside, "*")); len(m) != 1 {
		t.Errorf("a screenshot went through the planted link: %v", m)
	}
}

// What a dead daemon left running (here a process planted with the
// session's mark, as its Chromium or runner would carry it) is swept by
// the next open of that name; the new session's own Chromium carries the
// mark, so a later open would sweep it too.
func TestBrowserOpenSweepsADeadSessionsProcesses(t *testing.T) {
	srv := browserSite(t)
	environ := browserEnv(t)
	sock := filepath.Join(envValue(environ, "XDG_RUNTIME_DIR"), "wright-browser", "z.sock")
	mark := sessionMark + "=" + sock
	left := exec.Command("sleep", "97.41")
	left.Env = append(os.Environ(), mark)
	if err := left.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- left.Wait() }()
	t.Cleanup(func() { _ = left.Process.Kill() })
	wbOK(t, environ, "open", srv.URL+"/", "--session", "z")
	t.Cleanup(func() { wb(t, environ, "close", "--session", "z") })
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("the dead session's process was not swept by the next open")
	}
	marked := proctab.WithEnv(mark, os.Getpid())
	chromium := 0
	for _, p := range marked {
		if strings.Contains(comm(p), "chrom") {
			chromium++
		}
	}
	if chromium == 0 {
		t.Errorf("the new session's Chromium does not carry the mark: %v", marked)
	}
	t.Logf("swept the planted process; %d processes of the new session carry the mark (%d Chromium)", len(marked), chromium)
}
