package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// call is one tools/call of a sequence, as measured.
type call struct {
	Page    string  `json:"page"`
	Step    int     `json:"step"`
	Logical string  `json:"logical"`
	Kind    string  `json:"kind"`
	Tool    string  `json:"tool"`
	Ref     string  `json:"ref,omitempty"`
	Chars   int     `json:"chars"`      // the JSON of the result
	Text    int     `json:"text_chars"` // its text parts alone
	MS      float64 `json:"ms"`
	Action  bool    `json:"action"`
	Error   string  `json:"error,omitempty"`
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// stepStats folds the repetitions of one server's sequences (reps[r] is
// repetition r's calls, every repetition the same steps in the same
// order) into one call per step: characters and time the medians over
// the repetitions, the first error kept.
func stepStats(reps [][]call) []call {
	if len(reps) == 0 {
		return nil
	}
	out := make([]call, len(reps[0]))
	for i := range reps[0] {
		var chars, text, ms []float64
		c := reps[0][i]
		for _, r := range reps {
			chars = append(chars, float64(r[i].Chars))
			text = append(text, float64(r[i].Text))
			ms = append(ms, r[i].MS)
			if c.Error == "" && r[i].Error != "" {
				c.Error = r[i].Error
			}
		}
		c.Chars, c.Text, c.MS = int(math.Round(median(chars))), int(math.Round(median(text))), median(ms)
		out[i] = c
	}
	return out
}

// totals are what a server's folded sequence sums to.
type totals struct {
	Chars, Text      int
	ActionMS, ReadMS float64 // mean over the action (read) steps of each step's median
	Actions, Reads   int
	Errors           int
	PerPageChars     map[string]int
	PerPageText      map[string]int
	pageOrder        []string
}

func sum(steps []call) totals {
	t := totals{PerPageChars: map[string]int{}, PerPageText: map[string]int{}}
	var actMS, readMS float64
	for _, c := range steps {
		if _, ok := t.PerPageChars[c.Page]; !ok {
			t.pageOrder = append(t.pageOrder, c.Page)
		}
		t.Chars += c.Chars
		t.Text += c.Text
		t.PerPageChars[c.Page] += c.Chars
		t.PerPageText[c.Page] += c.Text
		switch {
		case c.Action:
			actMS += c.MS
			t.Actions++
		case c.Kind == "snapshot":
			readMS += c.MS
			t.Reads++
		}
		if c.Error != "" {
			t.Errors++
		}
	}
	if t.Actions > 0 {
		t.ActionMS = actMS / float64(t.Actions)
	}
	if t.Reads > 0 {
		t.ReadMS = readMS / float64(t.Reads)
	}
	return t
}

// row is one line of the ratio table.
type row struct {
	Measure string
	Wright  float64
	Peer    float64
	Target  float64 // the bound on wright/peer; 0: none
	Format  string  // of the two values
}

func (r row) ratio() float64 {
	if r.Peer == 0 {
		return math.NaN()
	}
	return r.Wright / r.Peer
}

// verdict says whether the ratio is within the target.
func (r row) verdict() string {
	if r.Target == 0 {
		return ""
	}
	if q := r.ratio(); !math.IsNaN(q) && q <= r.Target {
		return "met"
	}
	return "not met"
}

// ratioTable renders rows as a Markdown table: both values, the ratio
// wright/playwright-mcp, the target and whether it is met.
func ratioTable(rows []row) string {
	var b strings.Builder
	b.WriteString("| measure | wright | playwright-mcp | wright / playwright-mcp | target | |\n")
	b.WriteString("|---|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		f := r.Format
		if f == "" {
			f = "%.0f"
		}
		target := ""
		if r.Target > 0 {
			target = fmt.Sprintf("≤ %.2fx", r.Target)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.2fx | %s | %s |\n", r.Measure, fmt.Sprintf(f, r.Wright), fmt.Sprintf(f, r.Peer), r.ratio(), target, r.verdict())
	}
	return b.String()
}

// stepTable renders both servers' folded sequences side by side, step by
// step (both ran the same steps).
func stepTable(w, p []call) string {
	var b strings.Builder
	b.WriteString("| page | step | wright tool | chars | ms | playwright-mcp tool | chars | ms | chars ratio |\n")
	b.WriteString("|---|---|---|---:|---:|---|---:|---:|---:|\n")
	for i := range w {
		a, c := w[i], p[i]
		ratio := "—"
		if c.Chars > 0 {
			ratio = fmt.Sprintf("%.2fx", float64(a.Chars)/float64(c.Chars))
		}
		fmt.Fprintf(&b, "| %s | %s | %s%s | %d | %.0f | %s%s | %d | %.0f | %s |\n",
			a.Page, a.Logical, a.Tool, errMark(a), a.Chars, a.MS, c.Tool, errMark(c), c.Chars, c.MS, ratio)
	}
	return b.String()
}

func errMark(c call) string {
	if c.Error != "" {
		return " (error)"
	}
	return ""
}
