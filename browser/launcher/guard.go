package launcher

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/go-rod/rod/lib/launcher"
)

// A launched Chromium must end with the process that launched it, even when
// that process is SIGKILLed: nothing else would end it, and an orphaned
// browser keeps its profile, its helpers and its memory for ever. A
// parent-death signal is not enough: Go's fires when the forking OS thread
// ends, not the process, and Chromium's helpers do not have it. So Chromium
// runs under a small shell, the leader of the browser's process group,
// whose standard input is a pipe only this process holds the write end of.
// The kernel closes that end when this process dies, however it dies;
// the shell reads end-of-file and kills the whole group. If this process
// died before the shell started, the shell reads end-of-file at once. When
// Chromium ends on its own the shell ends the group too, so the launcher's
// view (one process whose exit is the browser's) is kept.
const guardScript = `( "$0" "$@"; kill -KILL 0 ) </dev/null & cat >/dev/null; kill -KILL 0`

// guarded is a Chromium started under the guard shell.
type guarded struct {
	cmd  *exec.Cmd
	life *os.File      // the pipe's write end; closed only by our own death or reap
	exit chan struct{} // closed when the guard shell is reaped
}

// startGuarded starts exe with args under the guard and returns the
// browser's DevTools WebSocket URL.
func startGuarded(ctx context.Context, exe string, args, env []string, log io.Writer) (*guarded, string, error) {
	sh := "/bin/sh"
	if _, err := os.Stat(sh); err != nil {
		return nil, "", fmt.Errorf("the browser guard needs %s: %w", sh, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, "", fmt.Errorf("browser guard pipe: %w", err)
	}
	pctx, stopParse := context.WithCancel(ctx)
	defer stopParse()
	parser := launcher.NewURLParser().Context(pctx)
	if log == nil {
		log = io.Discard
	}
	// The output goes through a pipe of our own, so that waiting for the
	// guard does not wait for every helper that still holds its output.
	or, ow, err := os.Pipe()
	if err != nil {
		r.Close()
		w.Close()
		return nil, "", fmt.Errorf("browser output pipe: %w", err)
	}
	cmd := exec.Command(sh, append([]string{"-c", guardScript, exe}, args...)...)
	cmd.Env = env
	cmd.Stdin = r
	cmd.Stdout, cmd.Stderr = ow, ow
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	r.Close()
	ow.Close()
	if err != nil {
		w.Close()
		or.Close()
		return nil, "", err
	}
	go func() {
		// Ends when the last process holding the output is gone.
		_, _ = io.Copy(io.MultiWriter(log, parser), or)
		or.Close()
	}()
	p := &guarded{cmd: cmd, life: w, exit: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(p.exit)
	}()
	var u string
	select {
	case u = <-parser.URL:
	case <-p.exit:
		err = parser.Err()
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err == nil {
		u, err = launcher.ResolveURL(u)
	}
	if err != nil {
		p.kill()
		<-p.exit
		p.life.Close()
		return nil, "", err
	}
	return p, u, nil
}

// kill ends the guard's process group (the guard, Chromium, its helpers),
// if the guard has not been reaped yet (after that the id may be reused).
func (p *guarded) kill() {
	select {
	case <-p.exit:
	default:
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}
