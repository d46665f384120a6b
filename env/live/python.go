package live

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"wright/env/proctab"
	"wright/trust/sandbox"
)

// tagVar marks every process the Python runner starts (run_command's
// shells keep it across their own sessions), so killing a stuck runner
// leaves none of them behind.
const tagVar = "WRIGHT_LIVE_ID"

// pyProc is one Python runner process: requests go in on a private pipe,
// answers come back on another, and the code's stdout and stderr (the
// process's fd 1 and 2) are one third pipe collected as the step's output.
type pyProc struct {
	cmd  *exec.Cmd
	pid  int
	intr int // the runner as wright sees it, when pid is its sandbox's
	tag  string
	reqW *os.File
	out  *outputBuffer

	answers chan map[string]any // closed when the answer pipe ends
	done    chan struct{}       // closed when the process is reaped
	exit    string              // how it ended; valid after done
	nextID  int
}

// pythonAttr puts the runner in a process group of its own (a Ctrl-C at
// wright's terminal is wright's to handle, and a kill reaches the runner's
// children) and, where the machine allows, in a PID namespace of its own
// that dies with it and with wright (sandbox.Confine).
func pythonAttr(box *sandbox.Spec) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if box == nil {
		sandbox.Confine(attr)
	}
	return attr
}

var errRunnerGone = errors.New("the Python process ended")

// startPython starts runner.py and waits for it to say it is ready.
func startPython(ctx context.Context, python, runner, workspace, taskJSON string, environ []string, box *sandbox.Spec) (*pyProc, error) {
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("start python: %w", err)
	}
	ansR, ansW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return nil, fmt.Errorf("start python: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		ansR.Close()
		ansW.Close()
		return nil, fmt.Errorf("start python: %w", err)
	}
	tag := proctab.NewTag(12)
	p := &pyProc{tag: tag, reqW: reqW, out: newOutputBuffer(), answers: make(chan map[string]any, 4), done: make(chan struct{})}
	p.cmd = &exec.Cmd{
		Path:        python,
		Args:        []string{python, "-u", runner, "3", "4", workspace, taskJSON},
		Dir:         workspace,
		Env:         append(append([]string{}, environ...), tagVar+"="+tag),
		Stdin:       nil, // /dev/null: the code never waits for input
		Stdout:      outW,
		Stderr:      outW,
		ExtraFiles:  []*os.File{reqR, ansW},
		SysProcAttr: pythonAttr(box),
	}
	started := func() {}
	if box != nil {
		started, err = box.Wrap(p.cmd)
	}
	if err == nil {
		err = p.cmd.Start()
		started()
	}
	// The child has its copies; ours would keep the pipes open forever.
	reqR.Close()
	ansW.Close()
	outW.Close()
	if err != nil {
		reqW.Close()
		ansR.Close()
		outR.Close()
		return nil, fmt.Errorf("start python: %w", err)
	}
	p.pid = p.cmd.Process.Pid
	go p.out.run(outR)
	go p.readAnswers(ansR)
	go func() {
		err := p.cmd.Wait()
		p.exit = describeExit(p.cmd.ProcessState, err)
		close(p.done)
	}()

	if err := p.awaitReady(ctx, box != nil); err != nil {
		return nil, err
	}
	return p, nil
}

// awaitReady waits for the runner started by startPython to say it is
// ready, and kills it when it fails, ends, or takes longer than 30s first.
// sandboxed says the runner runs in a sandbox of its own.
func (p *pyProc) awaitReady(ctx context.Context, sandboxed bool) error {
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case a, ok := <-p.answers:
		if ok && a["ready"] == true {
			if sandboxed {
				// SIGINT must reach Python itself, inside the sandbox.
				p.intr, _ = sandbox.FirstHostPID(p.pid)
			}
			return nil
		}
		p.kill()
		if ok {
			return fmt.Errorf("start python: the runner failed: %v", a["error"])
		}
		return fmt.Errorf("start python: the runner ended before it was ready (%s); it printed: %s", p.waitExit(), p.out.peek(2000))
	case <-timer.C:
		p.kill()
		return fmt.Errorf("start python: the runner was not ready within 30s; it printed: %s", p.out.peek(2000))
	case <-ctx.Done():
		p.kill()
		return fmt.Errorf("start python: %w", ctx.Err())
	}
}

func (p *pyProc) readAnswers(r *os.File) {
	defer close(p.answers)
	defer r.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var a map[string]any
			if json.Unmarshal(line, &a) == nil {
				p.answers <- a
			}
		}
		if err != nil {
			return
		}
	}
}

// send writes one request and returns its id.
func (p *pyProc) send(req map[string]any) (int, error) {
	p.nextID++
	req["id"] = p.nextID
	b, err := json.Marshal(req)
	if err != nil {
		return 0, fmt.Errorf("encode request: %w", err)
	}
	if _, err := p.reqW.Write(append(b, '\n')); err != nil {
		return 0, fmt.Errorf("%w (%v)", errRunnerGone, err)
	}
	return p.nextID, nil
}

// await returns the answer to request id. It gives up when the process
// ends (errRunnerGone), when stop fires (nil answer, nil error), or when
// ctx is done.
func (p *pyProc) await(ctx context.Context, id int, stop <-chan time.Time) (map[string]any, error) {
	for {
		select {
		case a, ok := <-p.answers:
			if !ok {
				return nil, errRunnerGone
			}
			if n, _ := a["id"].(float64); int(n) == id {
				return a, nil
			}
			// An answer to a request we gave up on.
		case <-stop:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// call sends a request and waits for its answer for at most timeout; an
// answer with "error" becomes an error.
func (p *pyProc) call(ctx context.Context, req map[string]any, timeout time.Duration) (map[string]any, error) {
	id, err := p.send(req)
	if err != nil {
		return nil, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	a, err := p.await(ctx, id, timer.C)
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, fmt.Errorf("the Python process did not answer %v within %v", req["op"], timeout)
	}
	if e, ok := a["error"].(string); ok && e != "" {
		return nil, errors.New(e)
	}
	return a, nil
}

// interrupt sends SIGINT to the runner alone: the code gets a
// KeyboardInterrupt and the runner answers.
func (p *pyProc) interrupt() {
	pid := p.pid
	if p.intr > 0 {
		pid = p.intr
	}
	_ = syscall.Kill(pid, syscall.SIGINT)
}

func (p *pyProc) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// waitExit waits briefly for the process to be reaped and says how it
// ended.
func (p *pyProc) waitExit() string {
	select {
	case <-p.done:
		return p.exit
	case <-time.After(2 * time.Second):
		return "still running"
	}
}

// kill ends the runner, its process group and every process carrying its
// tag, and waits until it is reaped.
func (p *pyProc) kill() {
	_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	_ = syscall.Kill(p.pid, syscall.SIGKILL)
	killTagged(p.tag)
	p.reqW.Close()
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
	}
	p.out.wait(time.Second)
}

// stop asks the runner to end (its request pipe closes), then kills what
// is left.
func (p *pyProc) stop() {
	p.reqW.Close()
	select {
	case <-p.done:
	case <-time.After(2 * time.Second):
	}
	p.kill()
}

func describeExit(st *os.ProcessState, err error) string {
	if st == nil {
		if err != nil {
			return err.Error()
		}
		return "unknown"
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "killed by " + ws.Signal().String()
	}
	return "exit code " + strconv.Itoa(st.ExitCode())
}

// killTagged kills every process whose environment carries tagVar=tag,
// until none is left.
func killTagged(tag string) {
	proctab.KillAll(func() []int { return proctab.WithEnv(tagVar+"="+tag, os.Getpid()) })
}

// outputBuffer collects the runner's stdout and stderr for the whole life
// of the process. A step's output is everything up to the marker the
// runner prints when the step ends; what a background thread prints
// between steps shows up with the next step.
type outputBuffer struct {
	mu      sync.Mutex
	buf     []byte
	dropped int           // bytes dropped from the middle, not yet reported
	notify  chan struct{} // one pending wake-up
	ended   chan struct{} // closed when the pipe is at EOF
}

// maxOutput bounds what one step can hold in memory; beyond it the middle
// is dropped (the observation shows head and tail anyway).
const maxOutput = 8 << 20

func newOutputBuffer() *outputBuffer {
	return &outputBuffer{notify: make(chan struct{}, 1), ended: make(chan struct{})}
}

func (o *outputBuffer) run(r *os.File) {
	defer close(o.ended)
	defer r.Close()
	chunk := make([]byte, 64<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			o.mu.Lock()
			o.buf = append(o.buf, chunk[:n]...)
			if len(o.buf) > maxOutput {
				// Keep the first and the last 2 MB; the marker is in the tail.
				cut := len(o.buf) - maxOutput/2
				o.dropped += cut - 2<<20
				o.buf = append(o.buf[:2<<20], o.buf[cut:]...)
			}
			o.mu.Unlock()
			select {
			case o.notify <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// takeUntil waits (up to wait) for marker and returns the output before
// it; what follows stays for the next step. Without the marker (the
// process died, or wrote nothing more) it returns all there is.
func (o *outputBuffer) takeUntil(marker string, wait time.Duration) (string, int) {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	m := []byte("\n" + marker + "\n")
	for {
		o.mu.Lock()
		if i := bytes.Index(o.buf, m); i >= 0 {
			out := string(o.buf[:i])
			o.buf = append([]byte{}, o.buf[i+len(m):]...)
			dropped := o.dropped
			o.dropped = 0
			o.mu.Unlock()
			return out, dropped
		}
		o.mu.Unlock()
		select {
		case <-o.notify:
			continue
		case <-o.ended:
		case <-deadline.C:
		}
		o.mu.Lock()
		out := string(o.buf)
		if i := bytes.Index(o.buf, m); i >= 0 {
			out = string(o.buf[:i])
		}
		o.buf = nil
		dropped := o.dropped
		o.dropped = 0
		o.mu.Unlock()
		return out, dropped
	}
}

// peek returns the start of what is buffered, for error messages.
func (o *outputBuffer) peek(n int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := strings.TrimSpace(string(o.buf))
	if len(s) > n {
		s = s[:n] + "..."
	}
	if s == "" {
		return "(nothing)"
	}
	return s
}

func (o *outputBuffer) wait(d time.Duration) {
	select {
	case <-o.ended:
	case <-time.After(d):
	}
}
