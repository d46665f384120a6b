package workspace

import (
	"context"
	"fmt"
	"syscall"
	"time"

	"wright/env"
)

// command is one command line running in the shell. It turns what the
// terminal prints and the status records the prompt writes into the
// command's output and outcome, and escalates from SIGINT to a killed
// shell when the command overruns or the run is cancelled.
type command struct {
	s       *Shell
	p       *bashProc
	sink    func([]byte) // the command's output, markers removed
	res     outcome
	known   nonces            // nonces of the statuses seen so far
	byNonce map[string]status // those statuses
	sc      markerScanner
	ended   bool // the end marker (or what stands for it) was seen
	ph      phase
	timer   *time.Timer
}

// run sends the command line and pumps the terminal into sink until the end
// marker, handling the timeout, cancellation and the shell's death.
func (s *Shell) run(ctx context.Context, script string, sink func([]byte)) (outcome, error) {
	c := &command{s: s, p: s.proc, sink: sink, res: outcome{pid: s.proc.pid}, known: nonces{}, byNonce: map[string]status{}}
	if dropped := s.stream.setActive(true); dropped > 0 {
		sink(fmt.Appendf(nil, "[... %d bytes of output written between commands were dropped ...]\n", dropped))
	}
	defer s.stream.setActive(false)
	c.start()
	if err := c.send(script); err != nil {
		return c.res, err
	}
	c.timer = time.NewTimer(s.opts.Timeout)
	defer c.timer.Stop()
	if err := c.wait(ctx); err != nil || c.res.exited {
		return c.res, err
	}
	return c.res, c.awaitExitTrap()
}

// start forgets the statuses of earlier commands and feeds what the
// terminal printed after the previous command's marker.
func (c *command) start() {
	for drained := false; !drained; {
		select {
		case <-c.s.statusC:
		default:
			drained = true
		}
	}
	pending := c.s.pending
	c.s.pending = nil
	c.feed(pending)
}

// send writes the command line to the shell.
func (c *command) send(script string) error {
	if err := c.s.resetTerminal(); err != nil {
		return err
	}
	line := "source " + env.ShellQuote(script) + " </dev/null\n"
	// The shell reads its line at once; the deadline only guards against
	// a terminal whose input queue is stuck full.
	_ = c.s.master.SetWriteDeadline(time.Now().Add(killGrace))
	if _, err := c.s.master.Write([]byte(line)); err != nil {
		return fmt.Errorf("send the command to the shell: %w", err)
	}
	return nil
}

// feed passes terminal output on to the sink up to the end marker of a
// known status; what follows the marker belongs to the next command.
func (c *command) feed(b []byte) {
	out, found, rest := c.sc.scan(b, c.known)
	if len(out) > 0 {
		c.sink(out)
	}
	if found != "" {
		c.endWith(c.byNonce[found])
		c.s.pending = rest
	}
}

func (c *command) endWith(st status) {
	c.res.st, c.res.haveStatus, c.res.code = st, true, st.code
	c.ended = true
}

// takeStatus records a status record of this shell; its marker may already
// be in the output.
func (c *command) takeStatus(st status) {
	if st.gen != c.p.gen || c.ended {
		return
	}
	c.known[st.nonce] = true
	c.byNonce[st.nonce] = st
	c.feed(nil)
}

// wait pumps until the command ends, the shell dies or the shell closes.
func (c *command) wait(ctx context.Context) error {
	s := c.s
	ctxDone := ctx.Done()
	var markerLate <-chan time.Time
	for !c.ended {
		select {
		case <-s.stream.notify:
			c.feed(s.stream.take())
		case st := <-s.statusC:
			c.takeStatus(st)
			if !c.ended && len(c.known) > 0 && markerLate == nil {
				markerLate = time.After(markerGrace)
			}
		case <-markerLate:
			c.endWithoutMarker()
		case <-c.p.done:
			c.shellDied()
			return nil
		case <-c.timer.C:
			if c.ph == phaseRunning {
				c.res.timedOut = true
			}
			if err := c.advance(); err != nil {
				return err
			}
		case <-ctxDone:
			ctxDone = nil
			c.res.interrupted = true
			if c.ph == phaseRunning {
				if err := c.advance(); err != nil {
					return err
				}
			}
		case <-s.closing:
			return errClosed
		}
	}
	return nil
}

// endWithoutMarker ends a command whose status came but whose marker did
// not (the command took the terminal away?) with what there is.
func (c *command) endWithoutMarker() {
	c.feed(c.s.stream.take())
	if c.ended {
		return
	}
	c.sink(c.sc.flush())
	for _, st := range c.byNonce {
		c.endWith(st)
	}
	c.ended = true
}

// shellDied collects what the dead shell's last command wrote; the exit
// code is the shell's unless its EXIT trap reported one.
func (c *command) shellDied() {
	c.drainAfterExit()
	if !c.ended {
		c.sink(c.sc.flush())
	}
	c.res.exited = true
	if !c.res.haveStatus || c.res.st.kind != 'X' {
		c.res.code = c.p.code
	}
}

// drainAfterExit collects the output a dead shell's last command wrote
// before it died: until the end marker of its EXIT trap, or until the
// terminal has been quiet for a moment.
func (c *command) drainAfterExit() {
	s := c.s
	idle := time.NewTimer(exitIdle)
	defer idle.Stop()
	hard := time.NewTimer(exitDrainMax)
	defer hard.Stop()
	for !c.ended {
		select {
		case <-s.stream.notify:
			c.feed(s.stream.take())
			idle.Reset(exitIdle)
		case st := <-s.statusC:
			c.takeStatus(st)
		case <-idle.C:
			c.feed(s.stream.take())
			return
		case <-hard.C:
			return
		case <-s.closing:
			return
		}
	}
}

// advance takes the next step from running to a killed shell: SIGINT to
// the foreground group, then SIGKILL to it, then SIGKILL to the shell.
func (c *command) advance() error {
	switch c.ph {
	case phaseRunning:
		c.s.signalForeground(c.p, syscall.SIGINT)
		c.ph = phaseInterrupted
		c.timer.Reset(interruptGrace)
	case phaseInterrupted:
		c.s.signalForeground(c.p, syscall.SIGKILL)
		c.ph = phaseKilled
		c.timer.Reset(killGrace)
	case phaseKilled:
		// The shell itself does not come back (a builtin loop that
		// ignores SIGINT): kill it; it is restarted later.
		_ = syscall.Kill(c.p.pid, syscall.SIGKILL)
		c.ph = phaseShellKilled
		c.timer.Reset(killGrace)
	case phaseShellKilled:
		return fmt.Errorf("bash (pid %d) did not end after SIGKILL", c.p.pid)
	}
	return nil
}

// awaitExitTrap waits for a shell whose EXIT trap reported: it is on its
// way out.
func (c *command) awaitExitTrap() error {
	if c.res.st.kind != 'X' {
		return nil
	}
	select {
	case <-c.p.done:
	case <-time.After(killGrace):
		killProc(c.p)
	case <-c.s.closing:
		return errClosed
	}
	c.res.exited = true
	return nil
}
