package main

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
)

var (
	white     = color.RGBA{255, 255, 255, 255}
	black     = color.RGBA{30, 30, 30, 255}
	grey      = color.RGBA{120, 120, 120, 255}
	gridGrey  = color.RGBA{225, 225, 225, 255}
	lineColor = map[string]color.RGBA{
		"none":      {214, 39, 40, 255},  // red
		"reference": {255, 127, 14, 255}, // orange
		"ours":      {31, 119, 180, 255}, // blue
	}
	policyLabel = map[string]string{
		"none":      "no control",
		"reference": "reference: summary keeps system only, aria pruning",
		"ours":      "ours: system + task + summary, pruning of both",
	}
	// The reference is drawn wider so that where ours runs on top of it
	// (live mode, where both prune the same snapshots) both stay visible.
	lineWidth = map[string]int{"none": 2, "reference": 5, "ours": 2}
)

const (
	panelW     = 900
	panelH     = 520
	marginL    = 110
	marginR    = 30
	marginT    = 130 // title and colour key sit above the plot
	marginB    = 60
	textScale  = 2
	contextWin = 128000 // a common context window, drawn for scale
)

// writePlot draws two panels per mode, side by side: prompt tokens per call
// for every policy, and the same zoomed to the two controlled ones (on the
// full scale ours is a line along the bottom).
func writePlot(path string, cfg config, results []result) error {
	modes := []string{}
	byMode := map[string][]result{}
	for _, r := range results {
		if _, ok := byMode[r.mode]; !ok {
			modes = append(modes, r.mode)
		}
		byMode[r.mode] = append(byMode[r.mode], r)
	}
	img := image.NewRGBA(image.Rect(0, 0, 2*panelW, panelH*len(modes)))
	fillRect(img, 0, 0, 2*panelW, panelH*len(modes), white)
	for i, m := range modes {
		var controlled []result
		for _, r := range byMode[m] {
			if r.policy != "none" {
				controlled = append(controlled, r)
			}
		}
		drawPanel(img, image.Rect(0, i*panelH, panelW, (i+1)*panelH),
			fmt.Sprintf("%s: prompt tokens per call", m), cfg.steps, byMode[m])
		drawPanel(img, image.Rect(panelW, i*panelH, 2*panelW, (i+1)*panelH),
			fmt.Sprintf("%s, zoomed: summary every %d calls", m, cfg.every), cfg.steps, controlled)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("write plot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write plot %s: %w", path, err)
	}
	return nil
}

func drawPanel(img *image.RGBA, area image.Rectangle, title string, steps int, rs []result) {
	x0, x1 := area.Min.X+marginL, area.Max.X-marginR
	y0, y1 := area.Min.Y+marginT, area.Max.Y-marginB // y0 top, y1 bottom
	top := 0
	for _, r := range rs {
		top = max(top, r.peak())
	}
	tick := niceStep(top)
	top = (top/tick + 1) * tick

	px := func(step int) int { return x0 + (step-1)*(x1-x0)/max(1, steps-1) }
	py := func(v int) int { return y1 - int(int64(v)*int64(y1-y0)/int64(top)) }

	drawText(img, x0, area.Min.Y+18, title, textScale, black)

	// Grid, y labels and the context window line.
	for v := 0; v <= top; v += tick {
		y := py(v)
		hline(img, x0, x1, y, gridGrey)
		label := fmt.Sprintf("%dk", v/1000)
		drawText(img, x0-12-textWidth(label, textScale), y-glyphH*textScale/2, label, textScale, grey)
	}
	if contextWin < top {
		y := py(contextWin)
		for x := x0; x < x1; x += 12 {
			hline(img, x, min(x+6, x1), y, grey)
		}
		label := "128k context window"
		drawText(img, x1-textWidth(label, textScale)-8, y-glyphH*textScale-6, label, textScale, grey)
	}
	// X ticks every 10 calls.
	for s := 0; s <= steps; s += 10 {
		step := max(s, 1)
		x := px(step)
		vline(img, x, y1, y1+6, black)
		label := fmt.Sprint(s)
		drawText(img, x-textWidth(label, textScale)/2, y1+12, label, textScale, grey)
	}
	drawText(img, (x0+x1)/2-textWidth("call", textScale)/2, y1+34, "call", textScale, grey)
	// Axes.
	hline(img, x0, x1, y1, black)
	vline(img, x0, y0, y1, black)

	for _, r := range rs {
		c, w := lineColor[r.policy], lineWidth[r.policy]
		for i := 1; i < len(r.prompt); i++ {
			thickLine(img, px(i), py(r.prompt[i-1]), px(i+1), py(r.prompt[i]), w, c)
		}
	}

	// Colour key, between the title and the plot, where no line can hide it.
	for i, r := range rs {
		y := area.Min.Y + 50 + i*24
		w := lineWidth[r.policy]
		fillRect(img, x0, y+7-w/2, 30, max(3, w), lineColor[r.policy])
		drawText(img, x0+40, y, policyLabel[r.policy], textScale, black)
	}
}

// niceStep picks a grid step of 1, 2 or 5 times a power of ten giving
// about six lines.
func niceStep(top int) int {
	step := 1000
	for {
		for _, m := range []int{1, 2, 5} {
			if top/(step*m) <= 6 {
				return step * m
			}
		}
		step *= 10
	}
}

func hline(img *image.RGBA, x0, x1, y int, c color.Color) {
	for x := x0; x <= x1; x++ {
		img.Set(x, y, c)
	}
}

func vline(img *image.RGBA, x, y0, y1 int, c color.Color) {
	for y := y0; y <= y1; y++ {
		img.Set(x, y, c)
	}
}

// thickLine draws a line w pixels wide with Bresenham's algorithm.
func thickLine(img *image.RGBA, x0, y0, x1, y1, w int, c color.Color) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		fillRect(img, x0-w/2, y0-w/2, w, w, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
