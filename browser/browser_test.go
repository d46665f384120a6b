package browser

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/env/proctab"
)

func TestFindExecutable(t *testing.T) {
	t.Setenv("WRIGHT_BROWSER", "")
	if _, err := FindExecutable("/no/such/chromium"); err == nil || TypeOf(err) != ErrBrowser {
		t.Errorf("missing executable: %v", err)
	}
	t.Setenv("WRIGHT_BROWSER", "/no/such/browser")
	_, err := FindExecutable("")
	if err == nil || !strings.Contains(err.Error(), "WRIGHT_BROWSER") {
		t.Errorf("bad WRIGHT_BROWSER: %v", err)
	}
	_, err = Launch(bg, Options{})
	wantType(t, err, ErrBrowser, "WRIGHT_BROWSER")
	t.Setenv("WRIGHT_BROWSER", "")
	t.Setenv("PATH", t.TempDir())
	_, err = FindExecutable("")
	wantType(t, err, ErrBrowser, "never downloads")
	_, err = Launch(bg, Options{Args: []string{"no-dashes"}})
	wantType(t, err, ErrInvalidParams)
	_, err = Launch(bg, Options{CDPURL: "ftp://x"})
	wantType(t, err, ErrInvalidParams)
}

// groupAlive lists the processes of a process group, zombies included.
func groupAlive(pgid int) []string {
	var out []string
	procs, _ := proctab.List()
	for _, p := range procs {
		if p.PGID == pgid {
			out = append(out, fmt.Sprintf("%d zombie=%v", p.PID, p.Zombie))
		}
	}
	return out
}

func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if len(groupAlive(pgid)) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("browser processes left behind: %v", groupAlive(pgid))
}

func TestCloseLeavesNothing(t *testing.T) {
	needBrowser(t)
	b, err := Launch(bg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pid, profile := b.PID(), b.profile
	if len(groupAlive(pid)) < 2 {
		t.Errorf("expected the browser and its helpers, got %v", groupAlive(pid))
	}
	if _, err := os.Stat(profile); err != nil {
		t.Fatalf("temporary profile: %v", err)
	}
	if _, err := b.NewPage(bg); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(bg); err != nil {
		t.Fatal(err)
	}
	waitGroupGone(t, pid)
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Errorf("temporary profile left behind: %v", err)
	}
	if err := b.Close(bg); err != nil {
		t.Errorf("closing twice: %v", err)
	}
	_, err = b.NewPage(bg)
	wantType(t, err, ErrTargetClosed)
}

func TestUserDataDirIsKept(t *testing.T) {
	needBrowser(t)
	dir := t.TempDir()
	b, err := Launch(bg, Options{UserDataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(bg); err != nil {
		t.Fatal(err)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) == 0 {
		t.Errorf("the caller's profile was removed or never used: %v %v", ents, err)
	}
}

func TestBrowserCrash(t *testing.T) {
	needBrowser(t)
	b, err := Launch(bg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(bg)
	p, err := b.NewPage(bg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Goto(bg, site.URL+"/buttons.html", Load, 0); err != nil {
		t.Fatal(err)
	}
	pid, profile := b.PID(), b.profile
	l, _ := p.Locator("#never-there")
	done := make(chan error, 1)
	go func() { done <- l.Click(bg, ClickOptions{Timeout: 20 * time.Second}) }()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		wantType(t, err, ErrTargetClosed, "browser")
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the waiting call took %v to notice the crash", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a call on a crashed browser hangs")
	}
	select {
	case <-b.Done():
	case <-time.After(5 * time.Second):
		t.Error("Done not closed after the crash")
	}
	for _, call := range []func() error{
		func() error { _, err := p.Goto(bg, site.URL, Load, 0); return err },
		func() error { _, err := p.Evaluate(bg, "1", nil, 0); return err },
		func() error { _, err := b.NewPage(bg); return err },
		func() error { _, err := p.Screenshot(bg, false, 0); return err },
	} {
		wantType(t, call(), ErrTargetClosed)
	}
	waitGroupGone(t, pid)
	select {
	case <-b.cleaned:
	case <-time.After(10 * time.Second):
	}
	if _, err := os.Stat(profile); !os.IsNotExist(err) {
		t.Errorf("temporary profile left behind after a crash")
	}
	if err := b.Close(bg); err != nil {
		t.Errorf("close after crash: %v", err)
	}
}
