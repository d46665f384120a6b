package bench

import (
	"fmt"
	"strings"
)

// ViaRate is one path's share of a bench with a script library.
type ViaRate struct {
	Rate
	Attempts int     `json:"attempts"`
	Cost     float64 `json:"cost"`
	Seconds  float64 `json:"seconds"`
}

// byVia groups the records of a bench with a library by how they were
// served; nil when none says.
func byVia(recs []Record) (map[string]ViaRate, *float64) {
	groups := map[string]*ViaRate{}
	var saved float64
	known := false
	for _, r := range recs {
		if r.Via == "" {
			continue
		}
		g := groups[r.Via]
		if g == nil {
			g = &ViaRate{}
			groups[r.Via] = g
		}
		g.Attempts++
		g.Cost += r.Cost
		g.Seconds += r.Seconds
		switch {
		case r.Error != "":
			g.Errors++
		case r.Passed == nil:
			g.Unscored++
		case *r.Passed:
			g.Passed++
		default:
			g.Failed++
		}
		if r.Via != ViaAgent && r.AgentCost != nil {
			saved += *r.AgentCost - r.Cost
			known = true
		}
	}
	if len(groups) == 0 {
		return nil, nil
	}
	out := map[string]ViaRate{}
	for k, g := range groups {
		g.finish()
		out[k] = *g
	}
	if !known {
		return out, nil
	}
	return out, &saved
}

// viaMarkdown is the summary's section on the three paths.
func viaMarkdown(b *strings.Builder, s Summary) {
	if len(s.ByVia) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## By path (script library)\n\n| via | attempts | success | passed | failed | cost | seconds |\n|---|---|---|---|---|---|---|\n")
	for _, k := range []string{ViaRerun, ViaHeal, ViaAgent} {
		r, ok := s.ByVia[k]
		if !ok {
			continue
		}
		fmt.Fprintf(b, "| %s | %d | %s | %d | %d | $%.4f | %.1f |\n", k, r.Attempts, pct(r.SuccessRate), r.Passed, r.Failed, r.Cost, r.Seconds)
	}
	if s.CostSaved != nil {
		fmt.Fprintf(b, "\nCost saved by reruns and heals against the agent runs that made their scripts: $%.4f\n", *s.CostSaved)
	}
}
