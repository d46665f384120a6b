package workspace

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// clean runs the cleaner over in, fed in chunks of the given size (0: all
// at once), so every state must survive a split anywhere.
func clean(in string, chunk int) string {
	var out bytes.Buffer
	c := newCleaner(func(p []byte) { out.Write(p) })
	if chunk <= 0 {
		chunk = len(in) + 1
	}
	for i := 0; i < len(in); i += chunk {
		c.Write([]byte(in[i:min(i+chunk, len(in))]))
	}
	c.Flush()
	return out.String()
}

func TestCleaner(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello\nworld\n", "hello\nworld\n"},
		{"no trailing newline", "abc", "abc"},
		{"crlf", "a\r\nb\r\n", "a\nb\n"},
		{"colours", "\x1b[1;31mred\x1b[0m and \x1b[38;5;208morange\x1b[m\n", "red and orange\n"},
		{"progress", "10%\r50%\r100%\n", "100%\n"},
		{"progress erase line", "downloading 10 of 300\r\x1b[Kdone\n", "done\n"},
		{"progress erase whole line", "xxxxxxxx\x1b[2K\rok\n", "ok\n"},
		{"overwrite keeps the rest", "abcdef\rXY\n", "XYcdef\n"},
		{"cr at the end", "half\r", "half"},
		{"backspace", "abd\bc\n", "abc\n"},
		{"osc title bel", "\x1b]0;my title\x07text\n", "text\n"},
		{"osc hyperlink st", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n"},
		{"charset and keypad", "\x1b(B\x1b=a\x1b>\n", "a\n"},
		{"dcs", "\x1bPq#0;2;0;0;0\x1b\\after\n", "after\n"},
		{"bell and nul", "a\x07b\x00c\n", "abc\n"},
		{"tab kept", "a\tb\n", "a\tb\n"},
		{"invalid utf8", "a\xffb\xc3\n", "a\uFFFDb\uFFFD\n"},
		{"truncated utf8 at end", "ok\xe2\x82", "ok\uFFFD\uFFFD"},
		{"valid multibyte", "héllo € 𝄞\n", "héllo € 𝄞\n"},
		{"c1 csi rune dropped", "a\u009bb\n", "ab\n"},
		{"lone esc before newline", "a\x1b\nb\n", "a\nb\n"},
		{"broken csi keeps newline", "a\x1b[12\nb\n", "a\nb\n"},
		// At most maxSeqRunes characters are swallowed by a sequence that never ends.
		{"unterminated osc is bounded", "\x1b]" + strings.Repeat("x", maxSeqRunes+10) + "\nend\n", "xxxxxxxxxx\nend\n"},
		{"marker bytes dropped", "out\x1ewright-0000000001\x1e\n", "outwright-0000000001\n"},
	}
	for _, tc := range tests {
		for _, chunk := range []int{0, 1, 2, 3, 7} {
			t.Run(fmt.Sprintf("%s/chunk%d", tc.name, chunk), func(t *testing.T) {
				if got := clean(tc.in, chunk); got != tc.want {
					t.Errorf("clean(%.80q) = %.80q, want %.80q", tc.in, got, tc.want)
				}
			})
		}
	}
}

func TestCleanerLongLine(t *testing.T) {
	// A line longer than the line buffer is passed on in pieces, intact.
	in := strings.Repeat("0123456789", maxLineRunes/5) + "\n"
	if got := clean(in, 4096); got != in {
		t.Errorf("long line changed: got %d bytes, want %d", len(got), len(in))
	}
}

func TestCollector(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
	}{
		{"fits", "hello", 10, "hello"},
		{"exactly", "0123456789", 10, "0123456789"},
		{"head and tail", "0123456789abcdefghij", 10,
			"01234\n[... 10 characters omitted; the whole output is in logs/x.log ...]\nfghij"},
		{"runes not bytes", "ééééééééééüüüüüüüüüü", 4,
			"éé\n[... 16 characters omitted; the whole output is in logs/x.log ...]\nüü"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			c := newCollector(&log, tc.limit)
			// Feed rune by rune to exercise the head/tail boundary.
			for _, r := range tc.in {
				c.write(utf8.AppendRune(nil, r))
			}
			got, err := c.finish("logs/x.log")
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if log.String() != tc.in {
				t.Errorf("log %q, want %q", log.String(), tc.in)
			}
			if c.total != utf8.RuneCountInString(tc.in) {
				t.Errorf("total %d", c.total)
			}
		})
	}
}

func TestCollectorTrimsTail(t *testing.T) {
	// Much more output than the limit, in big writes: memory stays
	// bounded and the tail is exact.
	var log bytes.Buffer
	c := newCollector(&log, 100)
	var all strings.Builder
	for i := range 20000 {
		line := fmt.Sprintf("line %d\n", i)
		all.WriteString(line)
		c.write([]byte(line))
		if len(c.tail) > 8*c.tailLimit+(64<<10)+len(line) {
			t.Fatalf("tail grew to %d bytes", len(c.tail))
		}
	}
	got, _ := c.finish("l")
	s := all.String()
	if !strings.HasPrefix(got, s[:50]) || !strings.HasSuffix(got, s[len(s)-50:]) {
		t.Errorf("head/tail wrong: %q", got)
	}
	if want := fmt.Sprintf("[... %d characters omitted", len(s)-100); !strings.Contains(got, want) {
		t.Errorf("marker missing %q in %q", want, got)
	}
}

func TestMarkerScanner(t *testing.T) {
	real := "0123456789"
	marker := markerPrefix + real + markerSuffix
	fake := markerPrefix + "9999999999" + markerSuffix
	tests := []struct {
		name      string
		in        string
		known     nonces // statuses that arrived before the stream is scanned
		wantOut   string
		wantFound bool
		wantRest  string
	}{
		{"plain end", "hello\n" + marker, nonces{real: true}, "hello\n", true, ""},
		{"no newline before marker", "abc" + marker + "bg", nonces{real: true}, "abc", true, "bg"},
		{"fake before real", "x" + fake + "y" + marker, nonces{real: true}, "x" + fake + "y", true, ""},
		{"malformed candidate", "a" + markerPrefix + "12ab" + "\n" + marker, nonces{real: true}, "a" + markerPrefix + "12ab\n", true, ""},
		{"short candidate then marker", markerPrefix + "z" + marker, nonces{real: true}, markerPrefix + "z", true, ""},
		{"status not yet read", "out" + marker, nonces{}, "out", false, ""},
	}
	for _, tc := range tests {
		for _, chunk := range []int{0, 1, 5} {
			t.Run(fmt.Sprintf("%s/chunk%d", tc.name, chunk), func(t *testing.T) {
				sc := &markerScanner{}
				var out bytes.Buffer
				found, rest := "", ""
				in := tc.in
				if chunk <= 0 {
					chunk = len(in)
				}
				for i := 0; i < len(in) && found == ""; i += chunk {
					o, f, r := sc.scan([]byte(in[i:min(i+chunk, len(in))]), tc.known)
					out.Write(o)
					if f != "" {
						found = f
						rest = string(r) + in[min(i+chunk, len(in)):]
					}
				}
				if out.String() != tc.wantOut || (found != "") != tc.wantFound || rest != tc.wantRest {
					t.Errorf("out %q found %q rest %q; want %q %v %q", out.String(), found, rest, tc.wantOut, tc.wantFound, tc.wantRest)
				}
			})
		}
	}
}

func TestMarkerScannerLateStatus(t *testing.T) {
	// The marker is read before its status: it is held, then recognised.
	sc := &markerScanner{}
	nonce := "0000000042"
	out, found, _ := sc.scan([]byte("done\n"+markerPrefix+nonce+markerSuffix), nonces{})
	if string(out) != "done\n" || found != "" {
		t.Fatalf("before status: out %q found %q", out, found)
	}
	out, found, _ = sc.scan(nil, nonces{nonce: true})
	if len(out) != 0 || found != nonce {
		t.Fatalf("after status: out %q found %q", out, found)
	}
}

func TestParseStatus(t *testing.T) {
	st, err := parseStatus("P 123 42 7 /a dir/with spaces")
	if err != nil {
		t.Fatal(err)
	}
	if st.kind != 'P' || st.gen != 123 || st.nonce != "0000000042" || st.code != 7 || st.cwd != "/a dir/with spaces" {
		t.Errorf("parsed %+v", st)
	}
	for _, bad := range []string{"", "P", "Q 1 2 3 /", "P x 2 3 /", "P 1 2x 3 /", "P 1 12345678901 3 /", "P 1 2 x /", "P 1 2 3"} {
		if _, err := parseStatus(bad); err == nil {
			t.Errorf("parseStatus(%q) accepted", bad)
		}
	}
}
