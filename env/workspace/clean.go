package workspace

import (
	"unicode/utf8"
)

// cleaner turns the raw bytes a terminal program writes into the text a
// person would read on the screen, one chunk at a time: invalid UTF-8 becomes
// U+FFFD, ANSI escape sequences disappear, and carriage returns, backspaces
// and "erase line" sequences are applied to the current line, so a progress
// bar that redraws itself a thousand times leaves only what it showed last.
// It is streaming because a command may print gigabytes before its timeout;
// nothing but the current line is held in memory.
type cleaner struct {
	out func([]byte) // receives valid UTF-8, in order

	carry []byte // an incomplete UTF-8 sequence at the end of the last chunk

	state    escState
	seqLen   int    // runes consumed by the current escape sequence
	csiParam []byte // parameter bytes of the current CSI sequence

	line   []rune // the line being drawn
	cursor int    // column the next character is written at
	buf    []byte // scratch for encoding a line
}

type escState int

const (
	escNone      escState = iota
	escStart              // after ESC
	escInter              // ESC followed by intermediate bytes (ESC ( B, ...)
	escCSI                // ESC [ ...
	escString             // OSC, DCS, SOS, PM, APC: until BEL or ESC \
	escStringEsc          // ESC seen inside a string sequence
)

const (
	// maxLineRunes bounds the line buffer: a line longer than this (a
	// minified file, `yes | tr -d '\n'`) is passed on in pieces, and only
	// the last piece can still be overwritten by a carriage return.
	maxLineRunes = 1 << 16
	// maxSeqRunes bounds an escape sequence, so a stray ESC ] never
	// swallows the rest of the output.
	maxSeqRunes = 4096
)

func newCleaner(out func([]byte)) *cleaner {
	return &cleaner{out: out}
}

// Write feeds raw terminal bytes.
func (c *cleaner) Write(p []byte) {
	if len(c.carry) > 0 {
		// Complete the sequence left over from the last chunk byte by
		// byte; at most three bytes, so this stays cheap.
		for len(p) > 0 && !utf8.FullRune(c.carry) {
			c.carry = append(c.carry, p[0])
			p = p[1:]
		}
		if !utf8.FullRune(c.carry) {
			return
		}
		r, size := utf8.DecodeRune(c.carry)
		c.rune(r)
		rest := c.carry[size:]
		c.carry = nil
		if len(rest) > 0 {
			// The carried bytes were not a valid sequence: decode what
			// is left of them as ordinary input.
			p = append(append([]byte(nil), rest...), p...)
		}
	}
	for len(p) > 0 {
		b := p[0]
		if b < utf8.RuneSelf {
			c.rune(rune(b))
			p = p[1:]
			continue
		}
		if !utf8.FullRune(p) {
			c.carry = append(c.carry[:0], p...)
			return
		}
		r, size := utf8.DecodeRune(p) // RuneError with size 1 for a bad byte
		c.rune(r)
		p = p[size:]
	}
}

// Flush passes on the current line, even without a trailing newline, and
// ends any incomplete UTF-8 sequence or escape sequence.
func (c *cleaner) Flush() {
	for range c.carry {
		c.rune(utf8.RuneError)
	}
	c.carry = nil
	c.state = escNone
	c.emitLine(false)
}

func (c *cleaner) rune(r rune) {
	switch c.state {
	case escNone:
		c.plain(r)
	case escStart:
		c.seqLen++
		switch {
		case r == '[':
			c.state = escCSI
			c.csiParam = c.csiParam[:0]
		case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
			c.state = escString
		case r >= 0x20 && r <= 0x2f:
			c.state = escInter
		case r == 0x1b:
			// ESC ESC: start again.
		case r >= 0x30 && r <= 0x7e:
			c.state = escNone // a two-character sequence (ESC 7, ESC =, ...)
		default:
			c.state = escNone
			c.plain(r)
		}
	case escInter:
		c.seqLen++
		switch {
		case r >= 0x20 && r <= 0x2f:
		case r >= 0x30 && r <= 0x7e:
			c.state = escNone
		default:
			c.state = escNone
			c.plain(r)
		}
	case escCSI:
		c.seqLen++
		switch {
		case r >= 0x30 && r <= 0x3f:
			c.csiParam = append(c.csiParam, byte(r))
		case r >= 0x20 && r <= 0x2f:
		case r >= 0x40 && r <= 0x7e:
			c.state = escNone
			c.csi(r)
		default:
			// A control character or non-ASCII inside a CSI sequence:
			// the sequence is broken; keep the character.
			c.state = escNone
			c.plain(r)
		}
		if c.state == escCSI && c.seqLen > maxSeqRunes {
			c.state = escNone
		}
	case escString:
		c.seqLen++
		switch r {
		case 0x07:
			c.state = escNone
		case 0x1b:
			c.state = escStringEsc
		}
		if c.state == escString && c.seqLen > maxSeqRunes {
			c.state = escNone
		}
	case escStringEsc:
		if r == '\\' {
			c.state = escNone
			return
		}
		// ESC followed by something else ends the string and starts a
		// new sequence.
		c.state = escStart
		c.seqLen = 0
		c.rune(r)
	}
}

// plain handles a character outside any escape sequence.
func (c *cleaner) plain(r rune) {
	switch {
	case r == '\n':
		c.emitLine(true)
	case r == '\r':
		c.cursor = 0
	case r == '\b':
		if c.cursor > 0 {
			c.cursor--
		}
	case r == 0x1b:
		c.state = escStart
		c.seqLen = 0
	case r == '\t':
		c.put(r)
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		// Other C0 and C1 control characters (bell, NUL, form feed, the
		// bytes of the shell's own end marker...) show nothing.
	default:
		c.put(r)
	}
}

// csi applies the few CSI sequences that change what a line shows: erase in
// line. Cursor movement and colours are dropped.
func (c *cleaner) csi(final rune) {
	if final != 'K' {
		return
	}
	switch string(c.csiParam) {
	case "", "0": // erase from the cursor to the end of the line
		if c.cursor < len(c.line) {
			c.line = c.line[:c.cursor]
		}
	case "1": // erase from the start of the line to the cursor
		for i := 0; i < c.cursor && i < len(c.line); i++ {
			c.line[i] = ' '
		}
	case "2": // erase the whole line; the cursor stays where it is
		c.line = c.line[:0]
	}
}

func (c *cleaner) put(r rune) {
	for c.cursor > len(c.line) {
		c.line = append(c.line, ' ')
	}
	if c.cursor == len(c.line) {
		c.line = append(c.line, r)
	} else {
		c.line[c.cursor] = r
	}
	c.cursor++
	if len(c.line) >= maxLineRunes {
		c.emitLine(false)
	}
}

func (c *cleaner) emitLine(newline bool) {
	c.buf = c.buf[:0]
	for _, r := range c.line {
		c.buf = utf8.AppendRune(c.buf, r)
	}
	if newline {
		c.buf = append(c.buf, '\n')
	}
	if len(c.buf) > 0 {
		c.out(c.buf)
	}
	c.line = c.line[:0]
	c.cursor = 0
}
