package workspace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// ptyStream reads the pty master for the whole life of the Shell. Between
// commands it keeps reading, so a background server that logs to the
// terminal never blocks on a full pty; what it writes then is kept (up to
// idleLimit bytes, the newest) and shown with the next command's output.
// While a command runs, a full buffer makes the reader wait instead, so
// nothing a command prints is lost from its log.
type ptyStream struct {
	mu      sync.Mutex
	space   *sync.Cond // signalled when buf shrinks or the stream stops
	buf     []byte
	active  bool  // a consumer is draining buf
	dropped int64 // bytes dropped while idle, not yet reported
	stopped bool
	err     error         // why reading ended
	notify  chan struct{} // one pending wake-up for the consumer
	done    chan struct{} // closed when the reader goroutine returns
}

const (
	activeLimit = 4 << 20
	idleLimit   = 1 << 20
)

func newPtyStream() *ptyStream {
	s := &ptyStream{notify: make(chan struct{}, 1), done: make(chan struct{})}
	s.space = sync.NewCond(&s.mu)
	return s
}

// run reads r until it fails (the master is closed).
func (s *ptyStream) run(r io.Reader) {
	defer close(s.done)
	chunk := make([]byte, 64<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			s.push(chunk[:n])
		}
		if err != nil {
			s.mu.Lock()
			s.err = err
			s.stopped = true
			s.mu.Unlock()
			s.wake()
			return
		}
	}
}

func (s *ptyStream) push(p []byte) {
	s.mu.Lock()
	for s.active && len(s.buf) >= activeLimit && !s.stopped {
		s.space.Wait()
	}
	s.buf = append(s.buf, p...)
	if !s.active && len(s.buf) > idleLimit {
		drop := len(s.buf) - idleLimit
		s.dropped += int64(drop)
		s.buf = append(s.buf[:0], s.buf[drop:]...)
	}
	s.mu.Unlock()
	s.wake()
}

func (s *ptyStream) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// take returns everything buffered so far.
func (s *ptyStream) take() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.buf
	s.buf = nil
	s.space.Broadcast()
	return b
}

// setActive switches between back-pressure (a command runs) and dropping
// old output (idle). It returns how many bytes were dropped while idle.
func (s *ptyStream) setActive(active bool) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active = active
	d := s.dropped
	s.dropped = 0
	s.space.Broadcast()
	return d
}

// stop releases a reader waiting for buffer space (used on Close).
func (s *ptyStream) stop() {
	s.mu.Lock()
	s.stopped = true
	s.space.Broadcast()
	s.mu.Unlock()
}

// status is what the shell reports on its private FIFO each time it is
// ready for a command (kind 'P', from PROMPT_COMMAND) and when it exits
// (kind 'X', from the EXIT trap).
type status struct {
	kind  byte
	gen   int // the reporting bash's generation, so a late record of a dead one is ignored
	nonce string
	code  int
	cwd   string
}

// readStatuses parses NUL-terminated status records until r fails. A path
// may hold spaces or newlines, never NUL, hence the terminator.
func readStatuses(r io.Reader, out chan<- status, done <-chan struct{}) {
	br := bufio.NewReader(r)
	for {
		rec, err := br.ReadString(0)
		if err != nil {
			return
		}
		st, perr := parseStatus(strings.TrimSuffix(rec, "\x00"))
		if perr != nil {
			continue // not ours (someone wrote to the FIFO); ignore it
		}
		select {
		case out <- st:
		case <-done:
			return
		}
	}
}

// parseStatus reads "KIND GEN NONCE CODE CWD".
func parseStatus(rec string) (status, error) {
	parts := strings.SplitN(rec, " ", 5)
	if len(parts) != 5 || (parts[0] != "P" && parts[0] != "X") {
		return status{}, fmt.Errorf("malformed status record %q", rec)
	}
	gen, err := strconv.Atoi(parts[1])
	if err != nil || gen <= 0 {
		return status{}, fmt.Errorf("malformed generation in %q", rec)
	}
	if len(parts[2]) == 0 || len(parts[2]) > nonceDigits {
		return status{}, fmt.Errorf("malformed nonce in %q", rec)
	}
	n, err := strconv.ParseUint(parts[2], 10, 64)
	if err != nil {
		return status{}, fmt.Errorf("malformed nonce in %q", rec)
	}
	code, err := strconv.Atoi(parts[3])
	if err != nil {
		return status{}, fmt.Errorf("malformed exit code in %q", rec)
	}
	return status{kind: parts[0][0], gen: gen, nonce: fmt.Sprintf("%0*d", nonceDigits, n), code: code, cwd: parts[4]}, nil
}

// The shell prints markerPrefix, a nonce of nonceDigits digits and
// markerSuffix on the terminal right after it reported the same nonce on the
// FIFO. The nonce is drawn ($SRANDOM) only once the command has finished, so
// no command can print the marker of its own end; a marker-shaped string
// whose nonce never arrives on the FIFO is ordinary output.
const (
	markerPrefix = "\x1ewright-"
	markerSuffix = "\x1e"
	nonceDigits  = 10
	markerLen    = len(markerPrefix) + nonceDigits + len(markerSuffix)
	// holdLimit bounds how much output waits behind a marker-shaped string
	// for its status. The real status is written before the real marker,
	// so it is never far behind.
	holdLimit = 1 << 20
)

// markerScanner splits the raw terminal stream into the command's output
// and the end marker.
type markerScanner struct {
	hold []byte
}

// nonces is the set of nonces that arrived on the FIFO while waiting.
type nonces map[string]bool

// scan appends p and returns the bytes that are certainly output. If the
// end marker of a known nonce is found, found is its nonce and rest holds
// the bytes after it (output of background processes, for the next
// command). A marker-shaped string with an unknown nonce is held back while
// no status has arrived (its status may simply not have been read yet);
// once one has, the shell has finished the command and any other nonce was
// printed by the command itself.
func (m *markerScanner) scan(p []byte, known nonces) (out []byte, found string, rest []byte) {
	h := append(m.hold, p...)
	m.hold = nil
	from := 0
	for {
		j := bytes.Index(h[from:], []byte(markerPrefix))
		if j < 0 {
			keep := partialPrefix(h[from:])
			m.hold = append(m.hold, h[len(h)-keep:]...)
			return h[:len(h)-keep], "", nil
		}
		j += from
		if len(h)-j < markerLen {
			m.hold = append(m.hold, h[j:]...)
			return h[:j], "", nil
		}
		nonce, ok := markerNonce(h[j : j+markerLen])
		switch {
		case ok && known[nonce]:
			return h[:j], nonce, append([]byte(nil), h[j+markerLen:]...)
		case ok && len(known) == 0 && len(h)-j < holdLimit:
			m.hold = append(m.hold, h[j:]...)
			return h[:j], "", nil
		}
		from = j + 1 // not our marker: it is output
	}
}

// flush gives up on held bytes: they are output.
func (m *markerScanner) flush() []byte {
	h := m.hold
	m.hold = nil
	return h
}

func markerNonce(c []byte) (string, bool) {
	if !bytes.HasPrefix(c, []byte(markerPrefix)) || !bytes.HasSuffix(c, []byte(markerSuffix)) {
		return "", false
	}
	d := c[len(markerPrefix) : len(markerPrefix)+nonceDigits]
	for _, b := range d {
		if b < '0' || b > '9' {
			return "", false
		}
	}
	return string(d), true
}

// partialPrefix is the length of the longest suffix of p that is a proper
// prefix of markerPrefix: the start of a marker split across reads.
func partialPrefix(p []byte) int {
	for k := min(len(p), len(markerPrefix)-1); k > 0; k-- {
		if bytes.Equal(p[len(p)-k:], []byte(markerPrefix[:k])) {
			return k
		}
	}
	return 0
}
