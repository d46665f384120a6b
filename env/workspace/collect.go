package workspace

import (
	"bufio"
	"fmt"
	"io"
	"unicode/utf8"
)

// collector receives the cleaned output of one command. It writes all of it
// to the step's log and keeps only what the observation shows: the first
// and the last characters, so memory stays bounded however much a command
// prints.
type collector struct {
	log    *bufio.Writer
	logErr error

	headLimit, tailLimit int
	head                 []byte
	headRunes            int
	tail                 []byte // everything after head, trimmed now and then
	total                int    // characters seen
}

func newCollector(log io.Writer, limit int) *collector {
	head := limit / 2
	return &collector{
		log:       bufio.NewWriterSize(log, 64<<10),
		headLimit: head,
		tailLimit: limit - head,
	}
}

// write takes valid UTF-8.
func (c *collector) write(p []byte) {
	if c.logErr == nil {
		_, c.logErr = c.log.Write(p)
	}
	n := utf8.RuneCount(p)
	c.total += n
	if c.headRunes < c.headLimit {
		take := min(n, c.headLimit-c.headRunes)
		cut := runePrefixLen(p, take)
		c.head = append(c.head, p[:cut]...)
		c.headRunes += take
		p = p[cut:]
	}
	if len(p) == 0 {
		return
	}
	c.tail = append(c.tail, p...)
	// Trim only when the tail is well past its limit, so the copy is
	// amortised over many writes.
	if len(c.tail) > 8*c.tailLimit+(64<<10) {
		c.tail = append(c.tail[:0], lastRunes(c.tail, c.tailLimit)...)
	}
}

// finish flushes the log and returns the observation text.
func (c *collector) finish(logPath string) (string, error) {
	if c.logErr == nil {
		c.logErr = c.log.Flush()
	}
	if c.total <= c.headLimit+c.tailLimit {
		return string(c.head) + string(c.tail), c.logErr
	}
	omitted := c.total - c.headLimit - c.tailLimit
	return fmt.Sprintf("%s\n[... %d characters omitted; the whole output is in %s ...]\n%s",
		c.head, omitted, logPath, lastRunes(c.tail, c.tailLimit)), c.logErr
}

// runePrefixLen is the byte length of the first n runes of p.
func runePrefixLen(p []byte, n int) int {
	i := 0
	for ; n > 0 && i < len(p); n-- {
		_, size := utf8.DecodeRune(p[i:])
		i += size
	}
	return i
}

// lastRunes is the suffix of p holding its last n runes.
func lastRunes(p []byte, n int) []byte {
	i := len(p)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRune(p[:i])
		i -= size
	}
	return p[i:]
}
