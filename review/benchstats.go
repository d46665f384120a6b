package review

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"wright/bench/results"
)

// Stats are the statistics of summary.json as a reviewer reads them: the
// success rate with its interval, pass@k, and the tables by level and site.
// They are the bench's own numbers, not counted again here.
type Stats struct {
	Rate, CI, PassAtK string
	Groups            []StatGroup
}

// StatGroup is one table: the rates by level or by site.
type StatGroup struct {
	Title string
	Rows  []StatRow
}

// StatRow is one level or site.
type StatRow struct {
	Key, Rate                        string
	Passed, Failed, Unscored, Errors int
}

type summaryRate struct {
	Passed      int        `json:"passed"`
	Failed      int        `json:"failed"`
	Unscored    int        `json:"unscored"`
	Errors      int        `json:"errors"`
	SuccessRate *float64   `json:"success_rate"`
	CI95        [2]float64 `json:"ci95"`
}

// Stats reads summary.json; empty when it is missing or unreadable.
func (b *Bench) Stats() Stats {
	var sum struct {
		summaryRate
		PassAtK map[string]float64     `json:"pass_at_k"`
		ByLevel map[string]summaryRate `json:"by_level"`
		BySite  map[string]summaryRate `json:"by_site"`
	}
	raw, err := os.ReadFile(filepath.Join(b.Dir, "summary.json"))
	if err != nil || json.Unmarshal(raw, &sum) != nil || sum.SuccessRate == nil {
		return Stats{}
	}
	st := Stats{Rate: ratePct(sum.SuccessRate), CI: fmt.Sprintf("%.1f%%–%.1f%%", 100*sum.CI95[0], 100*sum.CI95[1])}
	if len(sum.PassAtK) > 0 {
		var ks []string
		for k := range sum.PassAtK {
			ks = append(ks, k)
		}
		sort.Slice(ks, func(i, j int) bool { return len(ks[i]) < len(ks[j]) || len(ks[i]) == len(ks[j]) && ks[i] < ks[j] })
		var parts []string
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("pass@%s %.1f%%", k, 100*sum.PassAtK[k]))
		}
		st.PassAtK = " · " + strings.Join(parts, " · ")
	}
	for _, g := range []struct {
		title string
		m     map[string]summaryRate
	}{{"level", sum.ByLevel}, {"site", sum.BySite}} {
		if len(g.m) == 0 {
			continue
		}
		sg := StatGroup{Title: g.title}
		for _, k := range sortedKeys(g.m) {
			r := g.m[k]
			sg.Rows = append(sg.Rows, StatRow{Key: k, Rate: ratePct(r.SuccessRate), Passed: r.Passed, Failed: r.Failed, Unscored: r.Unscored, Errors: r.Errors})
		}
		st.Groups = append(st.Groups, sg)
	}
	return st
}

func ratePct(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

// countsLine is the bench's totals in one line; strong wraps the passed and
// failed counts (Markdown's ** in text).
func countsLine(c Counts, strong string) string {
	s := fmt.Sprintf("%s: %s%d passed%s, %s%d failed%s, %d unscored", plural(c.Attempts, "attempt"), strong, c.Passed, strong, strong, c.Failed, strong, c.Unscored)
	if c.Errors > 0 {
		s += ", " + plural(c.Errors, "error")
	}
	if c.Interrupted > 0 {
		s += fmt.Sprintf(", %d interrupted (run again on resume)", c.Interrupted)
	}
	s += " · " + c.TokensText() + fmt.Sprintf(" · $%.4f", c.Cost)
	if c.Wall > 0 {
		s += fmt.Sprintf(" · %s wall time", secsText(c.Wall))
	}
	return s
}

// TokensText is the bench's tokens by the rule of every view: what the
// endpoints reported, and wright's estimate of what they did not, marked.
func (c Counts) TokensText() string {
	reported := fmt.Sprintf("%d tokens (%d prompt, %d cached)", c.Tokens, c.PromptTokens, c.CachedTokens)
	switch {
	case c.EstimatedPrompt == 0:
		return reported
	case c.Tokens == 0:
		return fmt.Sprintf("~%d prompt tokens est. (the endpoints reported none)", c.EstimatedPrompt)
	}
	return fmt.Sprintf("%s + ~%d prompt tokens est.", reported, c.EstimatedPrompt)
}

// plural is "1 attempt", "2 attempts": n and the noun, with an s unless n
// is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func secsText(s float64) string {
	if s >= 90 {
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%.0fs", s)
}

// benchThumbWidth is a bench row's screenshot (its blank margins
// trimmed), shown 320 px wide: enough to read a page's headings and
// prices, small enough for a table of hundreds of rows (10-20 KB each).
const benchThumbWidth = 400

// lastShot is the screenshot that shows where an attempt ended: the last
// one of its newest final run, else the last one its steps took; "" for
// none.
func lastShot(runDir string) string {
	runNo := func(p string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(p), "run_"))
		return n
	}
	runs, _ := filepath.Glob(filepath.Join(runDir, "workspace", "final_runs", "run_*"))
	sort.Slice(runs, func(i, j int) bool { return runNo(runs[i]) > runNo(runs[j]) })
	dirs := append(runs, filepath.Join(runDir, "workspace"))
	for _, d := range dirs {
		var shots []string
		for _, ext := range []string{"png", "jpg", "jpeg"} {
			m, _ := filepath.Glob(filepath.Join(d, "screenshots", "*."+ext))
			shots = append(shots, m...)
		}
		if len(shots) > 0 {
			sort.Slice(shots, func(i, j int) bool { return naturalLess(filepath.Base(shots[i]), filepath.Base(shots[j])) })
			return shots[len(shots)-1]
		}
	}
	return ""
}

// attemptAt is the bench's record of the run at rel below dir, for its run
// page; nil when dir is no bench or no line names that run.
func attemptAt(dir, rel string) *results.Record {
	if !IsBenchDir(dir) {
		return nil
	}
	b, err := LoadBench(dir)
	if err != nil {
		return nil
	}
	for i, a := range b.Attempts {
		if a.Found == rel {
			return &b.Attempts[i].Record
		}
	}
	return nil
}
