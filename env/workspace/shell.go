// Package workspace is the workspace-mode environment: one persistent bash
// in a pty, started in the run's workspace, that runs each of the model's
// bash_command actions. State (cwd, exported variables, functions) carries
// over from step to step, as it would for a person at a terminal.
//
// How a command runs: its text is written to steps/step_NNNN.sh and the shell
// is sent one line, `source <that file> </dev/null`, so the command reads
// EOF on stdin and can never swallow wright's next line. The shell is an
// interactive bash (job control on, so each foreground job has its own
// process group that a timeout can signal without touching the shell) whose
// only startup file is wright's own. When the shell is ready again, its
// PROMPT_COMMAND reports the exit code, cwd and a fresh random nonce on a
// private FIFO and then prints an end marker holding that nonce on the
// terminal; the command's output is everything before the marker. A command
// cannot fake its own end: the nonce does not exist until it has finished.
//
// Consequences worth knowing: bash gets `--noprofile --rcfile <wright's
// own>` rather than --norc, because the rc file is how the protocol is
// installed before the first prompt (no user rc file is ever read); errexit
// is switched off after each step (an interactive shell would otherwise exit
// at the next failing command); stdin is /dev/null, so `stty` without -F
// fails and a program that opens /dev/tty for a password waits until the
// timeout.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"wright/env"
	"wright/env/proctab"
	"wright/internal/scratch"
	"wright/trust/sandbox"
)

// Options configures a Shell. Zero values take the defaults noted.
type Options struct {
	Dir         string            // the workspace (must exist); the shell starts here; steps/, logs/ and tmp/ live inside it
	Env         map[string]string // set (exported) in the shell: WORKSPACE_DIR, TASK_JSON, ... (the caller decides); wins over everything else
	HideEnv     []string          // variable names removed from the inherited environment (API keys)
	PathPrepend []string          // directories put first on PATH (the wright binary's directory)
	Timeout     time.Duration     // per command; 0 means 240s
	OutputLimit int               // characters kept in the observation, head+tail; 0 means 10000
	RecentFiles int               // how many recent files and screenshots the observation lists; 0 means 8
	// Sandbox, when set, runs each bash under bubblewrap (sandbox.Spec):
	// Dir must be among its Writable paths; the shell adds its own private
	// directory (the status FIFO, the rc file) read-only.
	Sandbox *sandbox.Spec
	// Redact, when set, rewrites each step's log once the step is over
	// (secret values become their placeholders).
	Redact func(string) string
}

const (
	defaultTimeout     = 240 * time.Second
	defaultOutputLimit = 10000
	defaultRecentFiles = 8

	startTimeout = 15 * time.Second // bash start-up until its first prompt
	// interruptGrace is how long a timed-out or cancelled command gets
	// between SIGINT and SIGKILL of the foreground process group.
	interruptGrace = time.Second
	// killGrace is how long the shell gets to come back after SIGKILL of
	// the foreground job before the shell itself is killed and restarted.
	killGrace = 2 * time.Second
	// markerGrace is how long the end marker may lag behind its status.
	markerGrace = 2 * time.Second
	// exitIdle / exitDrainMax bound the wait for the last output of a
	// shell that died without its end marker (killed, or its EXIT trap
	// replaced).
	exitIdle     = 100 * time.Millisecond
	exitDrainMax = time.Second
)

var errClosed = errors.New("the shell is closed")

// Shell is a persistent bash in a pty. It implements env.Environment.
type Shell struct {
	opts  Options
	dir   string   // absolute workspace
	env   []string // the shell's environment
	bash  string   // path of bash
	tag   string   // value of tagVar in every process the shell starts
	priv  string   // private directory: the status FIFO and the rc file
	fifo  string
	rc    string
	fifoF *os.File

	master  *os.File // non-blocking, so Close interrupts a read
	slave   *os.File // kept open so the pty outlives any one bash
	stream  *ptyStream
	statusC chan status

	closing   chan struct{}
	closeOnce sync.Once
	closeErr  error
	bg        sync.WaitGroup // the pty and FIFO readers
	sessMu    sync.Mutex     // guards sessions
	sessions  []int          // pids (= session ids) of every bash started, the live one last

	mu      sync.Mutex // one Execute at a time; guards the fields below
	proc    *bashProc  // nil after the shell died and could not be restarted yet
	cwd     string
	pending []byte   // terminal bytes read past the last end marker
	notes   []string // said once, in the next observation (platform limits)
	spare   *spares  // the next step's files, created ahead (spare.go)
	started int      // how many bashes were started: the generation of the newest
}

type bashProc struct {
	cmd  *exec.Cmd
	pid  int
	gen  int           // which bash of this Shell: 1 for the first, then one more per restart
	done chan struct{} // closed once bash is reaped
	code int           // exit status (128+signal if killed); valid after done
}

var _ env.Environment = (*Shell)(nil)

// New starts the shell in opts.Dir and waits until it is ready.
func New(ctx context.Context, opts Options) (*Shell, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("start shell: %w", err)
	}
	if opts.Dir == "" {
		return nil, errors.New("start shell: Options.Dir is empty")
	}
	for _, err := range []error{
		env.Default(&opts.Timeout, defaultTimeout, "Timeout"),
		env.Default(&opts.OutputLimit, defaultOutputLimit, "OutputLimit"),
		env.Default(&opts.RecentFiles, defaultRecentFiles, "RecentFiles"),
	} {
		if err != nil {
			return nil, fmt.Errorf("start shell: %w", err)
		}
	}
	dir, err := env.Workspace(opts.Dir, "steps", "logs", "tmp")
	if err != nil {
		return nil, fmt.Errorf("start shell: %w", err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, fmt.Errorf("start shell: %w", err)
	}
	tag := proctab.NewTag(16)
	shellEnv, err := buildEnv(os.Environ(), opts, dir, tag)
	if err != nil {
		return nil, fmt.Errorf("start shell: %w", err)
	}
	s := &Shell{
		opts: opts, dir: dir, env: shellEnv, bash: bash, tag: tag, cwd: dir, notes: platformNotes(),
		statusC: make(chan status, 16), closing: make(chan struct{}),
	}
	if err := s.open(); err != nil {
		s.Close()
		return nil, fmt.Errorf("start shell: %w", err)
	}
	s.mu.Lock()
	err = s.startShell(ctx, dir)
	if err == nil {
		s.prepareSpares()
	}
	s.mu.Unlock()
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// open creates what outlives any one bash: the FIFO, the rc file and the pty,
// and starts their readers.
func (s *Shell) open() error {
	priv, err := scratch.MkdirTemp("", "shell-")
	if err != nil {
		return err
	}
	s.priv = priv
	s.fifo = filepath.Join(priv, "status")
	if err := unix.Mkfifo(s.fifo, 0o600); err != nil {
		return fmt.Errorf("create status FIFO: %w", err)
	}
	// Opened read-write: the open never blocks and the reader never sees
	// EOF between two writers.
	if s.fifoF, err = os.OpenFile(s.fifo, os.O_RDWR, 0); err != nil {
		return fmt.Errorf("open status FIFO: %w", err)
	}
	s.rc = filepath.Join(priv, "bashrc")
	if err := os.WriteFile(s.rc, []byte(rcFile(s.fifo)), 0o600); err != nil {
		return fmt.Errorf("write rc file: %w", err)
	}
	master, slave, err := pty.Open()
	if err != nil {
		return fmt.Errorf("open pty: %w", err)
	}
	s.slave = slave
	// pty.Open leaves the master in blocking mode, and a blocking read
	// cannot be interrupted by Close. A non-blocking duplicate goes
	// through the runtime poller instead.
	fd, err := unix.FcntlInt(master.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	master.Close()
	if err != nil {
		return fmt.Errorf("duplicate pty master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return fmt.Errorf("pty master: %w", err)
	}
	s.master = os.NewFile(uintptr(fd), "ptmx")
	if err := pty.Setsize(slave, &pty.Winsize{Rows: 50, Cols: 200}); err != nil {
		return fmt.Errorf("pty size: %w", err)
	}
	if err := s.resetTerminal(); err != nil {
		return err
	}
	s.stream = newPtyStream()
	s.bg.Add(2)
	go func() {
		defer s.bg.Done()
		s.stream.run(s.master)
	}()
	go func() {
		defer s.bg.Done()
		readStatuses(s.fifoF, s.statusC, s.closing)
	}()
	return nil
}

// resetTerminal quiets the shell's terminal (see quietTerminal). A program
// may have changed its settings; it is checked before every command.
func (s *Shell) resetTerminal() error {
	_, err := quietTerminal(int(s.slave.Fd()))
	return err
}

// foregroundGroup is the process group that owns the terminal: a running
// foreground job, or the shell itself.
func (s *Shell) foregroundGroup() int {
	pgrp := 0
	rc, err := s.master.SyscallConn()
	if err != nil {
		return 0
	}
	_ = rc.Control(func(fd uintptr) {
		if v, err := unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); err == nil {
			pgrp = v
		}
	})
	return pgrp
}

// startShell starts a bash in cwd (or the workspace if cwd is gone) and
// waits for its first prompt. Called with s.mu held.
func (s *Shell) startShell(ctx context.Context, cwd string) error {
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		cwd = s.dir
	}
	// A session of its own with the pty as controlling terminal, so job
	// control works and the foreground job can be signalled; and, where
	// the machine allows, a PID namespace of its own, so that whatever
	// the model starts (setsid, double forks, a cleared environment) ends
	// with this bash, and the parent-death signal ends it with wright.
	attr := &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if s.opts.Sandbox == nil {
		sandbox.Confine(attr)
	} else if !within(cwd, s.dir) {
		cwd = s.dir // the only place the sandbox is sure to have
	}
	s.started++
	gen := s.started
	cmd := &exec.Cmd{
		Path:        s.bash,
		Args:        []string{"bash", "--noprofile", "--rcfile", s.rc, "--noediting", "-i"},
		Dir:         cwd,
		Env:         append(slices.Clip(s.env), fmt.Sprintf("%s=%d", genVar, gen)),
		Stdin:       s.slave,
		Stdout:      s.slave,
		Stderr:      s.slave,
		SysProcAttr: attr,
	}
	started, err := s.sandboxed(cmd)
	if err != nil {
		return fmt.Errorf("start bash: %w", err)
	}
	err = cmd.Start()
	started()
	if err != nil {
		return fmt.Errorf("start bash: %w", err)
	}
	p := &bashProc{cmd: cmd, pid: cmd.Process.Pid, gen: gen, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		p.code = exitCode(cmd.ProcessState)
		close(p.done)
	}()
	s.proc = p
	s.sessMu.Lock()
	s.sessions = append(s.sessions, p.pid)
	s.sessMu.Unlock()
	s.cwd = cwd
	s.pending = nil
	if err := s.awaitPrompt(ctx, p); err != nil {
		killProc(p)
		s.proc = nil
		return fmt.Errorf("start shell in %s: %w", cwd, err)
	}
	return nil
}

// awaitPrompt waits for the first end marker of a new bash; what it prints
// before is discarded (and quoted in the error if it never gets there).
func (s *Shell) awaitPrompt(ctx context.Context, p *bashProc) error {
	s.stream.setActive(true)
	defer s.stream.setActive(false)
	var seen []byte
	keep := func(b []byte) {
		if len(seen) < 4096 {
			seen = append(seen, b[:min(len(b), 4096-len(seen))]...)
		}
	}
	known := nonces{}
	byNonce := map[string]status{}
	sc := &markerScanner{}
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	feed := func(b []byte) bool {
		out, found, rest := sc.scan(b, known)
		keep(out)
		if found == "" {
			return false
		}
		s.pending = rest
		if st := byNonce[found]; st.kind == 'P' && st.cwd != "" {
			s.cwd = st.cwd
		}
		return true
	}
	for {
		select {
		case <-s.stream.notify:
			if feed(s.stream.take()) {
				return nil
			}
		case st := <-s.statusC:
			if st.gen != p.gen {
				continue // from an earlier bash
			}
			known[st.nonce] = true
			byNonce[st.nonce] = st
			if feed(nil) {
				return nil
			}
		case <-p.done:
			return fmt.Errorf("bash exited with code %d before its first prompt; it printed %q", p.code, seen)
		case <-deadline.C:
			return fmt.Errorf("bash gave no prompt within %v; it printed %q", startTimeout, seen)
		case <-ctx.Done():
			return ctx.Err()
		case <-s.closing:
			return errClosed
		}
	}
}

// Execute runs one command. See env.Environment. If ctx is cancelled the
// command is stopped like a timed-out one and Execute returns its
// observation together with an error wrapping ctx.Err().
func (s *Shell) Execute(ctx context.Context, step int, code string) (env.Observation, error) {
	if err := env.StartStep(ctx, step); err != nil {
		return env.Observation{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isClosing() {
		return env.Observation{}, fmt.Errorf("execute step %d: %w", step, errClosed)
	}
	start := time.Now()
	sp := s.takeSpares()
	defer s.prepareSpares()
	defer sp.discard()
	script, logRel, logFile, err := s.writeStep(sp, step, code)
	if err != nil {
		return env.Observation{}, fmt.Errorf("execute step %d: %w", step, err)
	}
	logDone := false
	defer func() {
		if !logDone {
			_ = logFile.commit()
		}
	}()

	notes := s.notes
	s.notes = nil
	restarted := false
	if s.proc == nil {
		if err := s.startShell(ctx, s.cwd); err != nil {
			return env.Observation{}, fmt.Errorf("execute step %d: %w", step, err)
		}
		restarted = true
		notes = append(notes, "the shell had exited; a fresh one was started for this command")
	}

	col := newCollector(logFile, s.opts.OutputLimit)
	cl := newCleaner(col.write)
	res, runErr := s.run(ctx, script, cl.Write)
	cl.Flush()
	output, logErr := col.finish(logRel)
	logDone = true
	if err := logFile.commit(); err != nil && logErr == nil {
		logErr = err
	}
	if err := s.redactLog(logRel); err != nil && logErr == nil {
		logErr = err
	}
	elapsed := time.Since(start)
	if logErr != nil {
		notes = append(notes, fmt.Sprintf("writing %s failed: %v", logRel, logErr))
	}
	cwd, shellNotes, exited, restartErr := s.afterCommand(ctx, res, runErr)
	notes = append(notes, shellNotes...)
	restarted = restarted || exited

	screenshots, files := recentFiles(s.dir, s.opts.RecentFiles)
	obs := env.Observation{
		Success:   res.code == 0 && !res.timedOut && !res.interrupted,
		Elapsed:   elapsed,
		Output:    output,
		OutputKey: "command_output",
		LogPath:   logRel,
		Details: map[string]any{
			"returncode":         res.code,
			"timed_out":          res.timedOut,
			"cwd":                cwd,
			"output_chars":       col.total,
			"shell_restarted":    restarted,
			"note":               strings.Join(notes, "; "),
			"final_script":       finalScriptHead(s.dir),
			"recent_screenshots": screenshots,
			"recent_files":       files,
		},
		Prunable: map[string]string{"command_output": OutputPlaceholder(output, logRel)},
	}
	return obs, stepError(ctx, step, res, runErr, restartErr)
}

// stepError is the error Execute returns with the observation of step: the
// command's failure to run, the shell's failure to restart after it, or
// the interrupt that stopped it; nil when none happened.
func stepError(ctx context.Context, step int, res outcome, runErr, restartErr error) error {
	switch {
	case runErr != nil:
		return fmt.Errorf("execute step %d: %w", step, runErr)
	case restartErr != nil:
		return fmt.Errorf("execute step %d: %w", step, restartErr)
	case res.interrupted:
		return fmt.Errorf("execute step %d: interrupted: %w", step, context.Cause(ctx))
	}
	return nil
}

// writeStep writes the command to steps/step_NNNN.sh and creates its log,
// logs/step_NNNN.log (logRel, relative to the workspace).
func (s *Shell) writeStep(sp *spares, step int, code string) (script, logRel string, log *stepLog, err error) {
	name := fmt.Sprintf("step_%04d", step)
	logRel = "logs/" + name + ".log"
	script = filepath.Join(s.dir, "steps", name+".sh")
	// The command may have removed tmp (the shell's TMPDIR); steps/ and
	// logs/ are made again where needed (spare.go).
	if err := os.MkdirAll(filepath.Join(s.dir, "tmp"), 0o755); err != nil {
		return "", "", nil, err
	}
	text := code
	if !strings.HasSuffix(text, "\n") {
		text += "\n" // a heredoc on the last line needs its newline
	}
	if err := sp.writeScript(script, text); err != nil {
		return "", "", nil, fmt.Errorf("write command: %w", err)
	}
	log, err = sp.openLog(filepath.Join(s.dir, filepath.FromSlash(logRel)))
	if err != nil {
		return "", "", nil, fmt.Errorf("create log: %w", err)
	}
	return script, logRel, log, nil
}

// afterCommand learns where the command left the shell (its cwd) and
// restarts a shell that died, saying what happened in notes.
func (s *Shell) afterCommand(ctx context.Context, res outcome, runErr error) (cwd string, notes []string, exited bool, restartErr error) {
	cwd = s.cwd
	if res.haveStatus && filepath.IsAbs(res.st.cwd) {
		cwd = res.st.cwd
	} else if c, err := proctab.Cwd(res.pid); err == nil && !res.exited {
		cwd = c
	}
	if res.interrupted {
		notes = append(notes, "the command was stopped because wright is stopping")
	}
	if res.timedOut {
		notes = append(notes, fmt.Sprintf("the command ran longer than the %v timeout and was stopped (SIGINT, then SIGKILL if needed)", s.opts.Timeout))
	}
	if res.exited {
		s.proc = nil
		switch {
		case runErr != nil || ctx.Err() != nil || s.isClosing():
			notes = append(notes, fmt.Sprintf("the shell exited (code %d); a fresh one will be started with the next command", res.code))
		default:
			if err := s.startShell(ctx, cwd); err != nil {
				restartErr = err
				notes = append(notes, fmt.Sprintf("the shell exited (code %d) and could not be restarted: %v", res.code, err))
			} else {
				cwd = s.cwd
				notes = append(notes, fmt.Sprintf("the shell exited (code %d) during this command; a fresh shell was started in %s, so variables, functions and jobs from earlier steps are gone", res.code, cwd))
			}
		}
	}
	s.cwd = cwd
	return cwd, notes, res.exited, restartErr
}

// outcome is how one command ended.
type outcome struct {
	pid         int    // the bash that ran it
	st          status // the status whose end marker was seen
	haveStatus  bool
	code        int
	exited      bool // the shell is gone (exit in the command, or killed)
	timedOut    bool
	interrupted bool // ctx was cancelled
}

type phase int

const (
	phaseRunning     phase = iota
	phaseInterrupted       // SIGINT sent to the foreground group
	phaseKilled            // SIGKILL sent to the foreground group
	phaseShellKilled       // SIGKILL sent to the shell itself
)

// signalForeground signals the process group in the terminal's foreground:
// the running job, or the shell itself when it runs a builtin.
func (s *Shell) signalForeground(p *bashProc, sig syscall.Signal) {
	pgrp := s.foregroundGroup()
	if pgrp <= 0 {
		pgrp = p.pid
	}
	_ = syscall.Kill(-pgrp, sig)
}

func (s *Shell) sessionIDs() []int {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	return append([]int(nil), s.sessions...)
}

func (s *Shell) isClosing() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// Close ends the shell and every process it started: its jobs, background
// and nohup'ed processes, and those that left its session (setsid, double
// fork), found by the tag in their environment. It does not wait for a
// running Execute, which returns promptly on its own. Safe to call more
// than once.
func (s *Shell) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		killShellProcs(s.tag, s.sessionIDs())
		s.mu.Lock()
		defer s.mu.Unlock()
		var errs []error
		if s.spare != nil {
			s.takeSpares().discard()
		}
		if s.proc != nil {
			killProc(s.proc)
			s.proc = nil
		}
		// A process that escaped every net (cleared its environment and
		// left the session) would keep the pty open; closing our ends
		// still frees the readers.
		if s.stream != nil {
			s.stream.stop()
		}
		for _, f := range []*os.File{s.master, s.slave, s.fifoF} {
			if f != nil {
				if err := f.Close(); err != nil {
					errs = append(errs, err)
				}
			}
		}
		waitTimeout(&s.bg, 2*time.Second)
		if s.priv != "" {
			if err := os.RemoveAll(s.priv); err != nil {
				errs = append(errs, err)
			}
		}
		if err := errors.Join(errs...); err != nil {
			s.closeErr = fmt.Errorf("close shell: %w", err)
		}
	})
	return s.closeErr
}

// killProc kills one bash and waits (bounded) until it is reaped.
func killProc(p *bashProc) {
	_ = syscall.Kill(p.pid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(killGrace):
	}
}

func waitTimeout(wg *sync.WaitGroup, d time.Duration) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
	}
}

func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// OutputPlaceholder replaces an old command output when the context is
// pruned: it says how much there was and where the whole of it is, so the
// model need not run the command again just to see it.
func OutputPlaceholder(output, logPath string) string {
	return fmt.Sprintf("[output pruned to save context (%d chars); the whole output is in %s]", len(output), logPath)
}
