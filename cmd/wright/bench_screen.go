package main

import (
	"fmt"
	"io"
	"os"
	"sort"

	"golang.org/x/term"
)

// screenHeight is the rows of the terminal the progress is drawn on; 24
// when it cannot be read.
func screenHeight(out io.Writer) int {
	switch t := out.(type) {
	case interface{ GetTermSize() (int, int, error) }:
		if _, h, err := t.GetTermSize(); err == nil && h > 0 {
			return h
		}
	case *os.File:
		if _, h, err := term.GetSize(int(t.Fd())); err == nil && h > 0 {
			return h
		}
	}
	return 24
}

// workerRows is how many rows the workers get under the overall line on a
// screen of height rows, one row kept free for the cursor: a line per
// worker when they fit, otherwise every row there is. Drawn taller than
// the screen, the bars would scroll it on every redraw and lose the overall
// line off the top.
func workerRows(parallel, height int) int {
	return max(min(parallel, height-2), 0)
}

// workerRow is row r of rows: worker r's line when every worker has a row;
// when they do not, the busy workers in turn, the last row counting those
// left out. Called with d.mu held.
func (d *benchDisplay) workerRow(r, rows, parallel int) string {
	if rows >= parallel {
		if line := d.workers[r]; line != "" {
			return fmt.Sprintf("  worker %d: %s", r, line)
		}
		return fmt.Sprintf("  worker %d: idle", r)
	}
	var busy []int
	for w, line := range d.workers {
		if line != "" {
			busy = append(busy, w)
		}
	}
	sort.Ints(busy)
	if r == rows && len(busy) > rows {
		return fmt.Sprintf("  … %d more workers busy (%d of %d idle)", len(busy)-rows+1, parallel-len(busy), parallel)
	}
	if r > len(busy) {
		return ""
	}
	return fmt.Sprintf("  worker %d: %s", busy[r-1], d.workers[busy[r-1]])
}
