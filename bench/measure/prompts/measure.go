package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"
)

// result is one arm's figures.
type result struct {
	Arm          string `json:"arm"`
	Exit         string `json:"exit_status"`
	Requests     int    `json:"requests"`
	Summaries    int    `json:"summary_requests"`
	PromptChars  int    `json:"prompt_chars"`
	PrefixChars  int    `json:"prefix_chars"`
	Observations int    `json:"observations"`
	// Navigated lists the steps whose observation shows another URL than
	// the one before.
	Navigated []int `json:"navigated_steps"`
	// Per observation: the characters of its aria_snapshot, and of the
	// whole observation message.
	Aria     []int `json:"aria_chars"`
	ObsChars []int `json:"observation_chars"`
	// Breaks are the requests that are not an extension of the one before.
	Breaks []int `json:"breaks"`
	// Failed counts the steps whose code raised.
	Failed int `json:"failed_steps"`
}

func (r result) share() float64 {
	if r.PromptChars == 0 {
		return 0
	}
	return float64(r.PrefixChars) / float64(r.PromptChars)
}

var (
	ariaRE = regexp.MustCompile(`(?s)<aria_snapshot>\n(.*?)\n</aria_snapshot>`)
	urlRE  = regexp.MustCompile(`(?m)^url: (\S*)`)
)

const summaryMarker = "the conversation is about to be shortened"

// measure reads an arm's figures from the requests its model was sent.
func measure(a arm, reqs [][]message, dir string) (result, error) {
	r := result{Arm: a.String(), Requests: len(reqs)}
	var prev string
	prevWasStep := false
	lastURL := ""
	for i, msgs := range reqs {
		var b strings.Builder
		for _, m := range msgs {
			b.WriteString(m.Role)
			b.WriteByte('\n')
			b.WriteString(m.text())
			b.WriteByte('\n')
		}
		cur := b.String()
		r.PromptChars += len(cur)
		if i > 0 {
			p := commonPrefix(prev, cur)
			r.PrefixChars += p
			if p < len(prev) {
				r.Breaks = append(r.Breaks, i)
			}
		}
		prev = cur
		// The observation of the step just run is the newest one in the
		// request that follows its call.
		if i > 0 && prevWasStep {
			for k := len(msgs) - 1; k >= 0; k-- {
				t := msgs[k].text()
				m := ariaRE.FindStringSubmatch(t)
				if m == nil {
					continue
				}
				r.Observations++
				r.Aria = append(r.Aria, len(m[1]))
				r.ObsChars = append(r.ObsChars, len(t))
				if strings.Contains(t, "<result>failure") {
					r.Failed++
				}
				if u := urlRE.FindStringSubmatch(t); u != nil {
					if lastURL != "" && u[1] != lastURL {
						r.Navigated = append(r.Navigated, r.Observations)
					}
					lastURL = u[1]
				}
				break
			}
		}
		isSummary := strings.Contains(msgs[len(msgs)-1].text(), summaryMarker)
		if isSummary {
			r.Summaries++
		}
		prevWasStep = !isSummary
	}
	if r.Observations == 0 {
		return r, fmt.Errorf("no observation in the %d requests (run directory %s)", len(reqs), dir)
	}
	return r, nil
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// table prints the arms side by side; observation ratios are against the
// first full arm, over the steps where neither navigated.
func table(w io.Writer, rs []result) {
	ref := -1
	for i := range rs {
		if strings.HasPrefix(rs[i].Arm, "full") {
			ref = i
			break
		}
	}
	fmt.Fprintln(w, "| arm | exit | requests | prompt chars | reused prefix | aria chars / obs (no nav) | obs chars (no nav) | vs full | breaks at requests |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---|")
	for i, r := range rs {
		aria, obs := noNav(r, r.Aria), noNav(r, r.ObsChars)
		ratio := "—"
		if ref >= 0 && ref != i {
			if ra := noNav(rs[ref], rs[ref].Aria); ra > 0 {
				ratio = fmt.Sprintf("%.2fx aria, %.2fx obs", aria/ra, obs/noNav(rs[ref], rs[ref].ObsChars))
			}
		}
		fmt.Fprintf(w, "| %s | %s | %d (%d summaries) | %d | %.1f%% | %.0f | %.0f | %s | %v |\n",
			r.Arm, r.Exit, r.Requests, r.Summaries, r.PromptChars, 100*r.share(), aria, obs, ratio, r.Breaks)
	}
	for _, r := range rs {
		if r.Failed > 0 {
			fmt.Fprintf(w, "\n%s: %d steps raised (see the run directory with -keep)\n", r.Arm, r.Failed)
		}
	}
}

// noNav is the mean over the observations that did not navigate (the
// first, a page's first look, counts as one that did).
func noNav(r result, xs []int) float64 {
	nav := map[int]bool{1: true}
	for _, n := range r.Navigated {
		nav[n] = true
	}
	sum, n := 0, 0
	for i, x := range xs {
		if !nav[i+1] {
			sum += x
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}
