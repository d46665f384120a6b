package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vbauerster/mpb/v8"

	"wright/bench"
)

// fakeTerminal is a terminal of a fixed size for the progress bars: it
// keeps each frame the bars draw, as the rows they wrote between flushes.
type fakeTerminal struct {
	width, height int

	mu     sync.Mutex
	cur    bytes.Buffer
	frames []string
	above  bytes.Buffer // lines printed above the bars
}

func (f *fakeTerminal) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur.Write(p)
}

func (f *fakeTerminal) ReadFrom(r io.Reader) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cur.ReadFrom(r)
}

func (f *fakeTerminal) IsTerminal() bool               { return true }
func (f *fakeTerminal) GetTermSize() (int, int, error) { return f.width, f.height, nil }
func (f *fakeTerminal) Flush(lines int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flush()
	return nil
}
func (f *fakeTerminal) flush() { f.frames = append(f.frames, f.cur.String()); f.cur.Reset() }
func (f *fakeTerminal) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.frames[len(f.frames)-1]
}
func (f *fakeTerminal) count() int     { f.mu.Lock(); defer f.mu.Unlock(); return len(f.frames) }
func (f *fakeTerminal) String() string { return fmt.Sprintf("%dx%d", f.width, f.height) }
func (f *fakeTerminal) lines(frame string) []string {
	return strings.Split(strings.TrimSuffix(frame, "\n"), "\n")
}
func (f *fakeTerminal) visible(line string) int {
	return utf8.RuneCountInString(ansi.ReplaceAllString(line, ""))
}
func (f *fakeTerminal) fits(frame string) (bool, string) { return fitsIn(f, frame) }

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

func fitsIn(f *fakeTerminal, frame string) (bool, string) {
	ls := f.lines(frame)
	// One row stays free for the cursor, or each redraw scrolls the screen.
	if len(ls) > f.height-1 {
		return false, fmt.Sprintf("%d rows on a terminal of %d", len(ls), f.height)
	}
	for _, l := range ls {
		if n := f.visible(l); n > f.width {
			return false, fmt.Sprintf("a row of %d columns on a terminal of %d: %q", n, f.width, l)
		}
	}
	return true, ""
}

// TestBenchProgressFitsTheScreen draws the progress of a bench with 16
// workers, every one busy on a long command, on terminals of several sizes:
// each frame must fit the screen (rows and columns), keep the overall line,
// and say how many workers it could not show.
func TestBenchProgressFitsTheScreen(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {80, 12}, {60, 8}, {120, 40}} {
		term := &fakeTerminal{width: size[0], height: size[1]}
		t.Run(term.String(), func(t *testing.T) {
			refresh := make(chan any)
			d := newBenchDisplay(term, true, 16, mpb.WithConsoleWriter(term), mpb.WithManualRefresh(refresh))
			for w := 1; w <= 16; w++ {
				d.Event(bench.Event{Kind: bench.AttemptStarted, Worker: w, TaskID: fmt.Sprintf("webvoyager--Allrecipes--%d", w), Total: 643})
				d.Event(bench.Event{Kind: bench.AttemptStep, Worker: w, TaskID: fmt.Sprintf("webvoyager--Allrecipes--%d", w), Step: 12,
					Command: `page.get_by_role("link", name="Vegetarian lasagna with roasted vegetables").click(); page.wait_for_load_state()`, Total: 643})
			}
			frames := term.count()
			refresh <- time.Now()
			deadline := time.Now().Add(10 * time.Second)
			for term.count() == frames && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if term.count() == frames {
				t.Fatal("no frame drawn within 10s")
			}
			frame := term.last()
			d.Close()
			if ok, why := term.fits(frame); !ok {
				t.Errorf("the progress does not fit: %s\n%s", why, frame)
			}
			if !strings.Contains(frame, "0/643 done") {
				t.Errorf("the overall line is missing:\n%s", frame)
			}
			shown := strings.Count(frame, "worker ")
			if shown < 16 && !strings.Contains(frame, fmt.Sprintf("%d more workers", 16-shown)) {
				t.Errorf("%d of 16 workers shown and the rest not counted:\n%s", shown, frame)
			}
		})
	}
}
