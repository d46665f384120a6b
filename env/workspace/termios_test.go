package workspace

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestQuietTerminalRoundTrip sets echo and newline translation on a real
// pty, quiets it, reads the settings back and checks that only those bits
// changed and that the terminal now passes output through untranslated.
func TestQuietTerminalRoundTrip(t *testing.T) {
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	defer master.Close()
	defer slave.Close()
	fd := int(slave.Fd())

	before, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		t.Fatalf("read settings: %v", err)
	}
	before.Lflag |= unix.ECHO | unix.ECHONL | unix.ICANON
	before.Oflag |= unix.ONLCR | unix.OPOST
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, before); err != nil {
		t.Fatalf("write settings: %v", err)
	}

	changed, err := quietTerminal(fd)
	if err != nil || !changed {
		t.Fatalf("quietTerminal = %v, %v; want true, nil", changed, err)
	}
	after, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		t.Fatalf("read settings back: %v", err)
	}
	if after.Lflag&(unix.ECHO|unix.ECHONL) != 0 || after.Oflag&unix.ONLCR != 0 {
		t.Fatalf("echo or newline translation still on: lflag %#x oflag %#x", after.Lflag, after.Oflag)
	}
	if after.Lflag|unix.ECHO|unix.ECHONL != before.Lflag || after.Oflag|unix.ONLCR != before.Oflag ||
		after.Iflag != before.Iflag || after.Cflag != before.Cflag {
		t.Fatalf("other settings changed: before %+v after %+v", before, after)
	}
	if changed, err := quietTerminal(fd); err != nil || changed {
		t.Fatalf("second quietTerminal = %v, %v; want false, nil", changed, err)
	}

	// Output written to the terminal arrives as written: no \r added.
	if _, err := slave.Write([]byte("a\nb\n")); err != nil {
		t.Fatalf("write: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 4)
		n, _ := io.ReadFull(master, buf)
		got <- string(buf[:n])
	}()
	select {
	case s := <-got:
		if s != "a\nb\n" {
			t.Fatalf("terminal output %q, want %q", s, "a\nb\n")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no output through the pty")
	}
}

func TestQuietTerminalNotATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := quietTerminal(int(r.Fd())); err == nil {
		t.Fatal("quietTerminal on a pipe: want an error")
	}
}
