package review

import (
	"fmt"
	"strings"
)

// ViaCount is one path of a bench with a script library (results.jsonl's
// via: rerun, heal or agent).
type ViaCount struct {
	Via                      string `json:"via"`
	Attempts, Passed, Failed int
	Cost                     float64 `json:"cost"`
}

// ByVia counts the attempts each path served, in the order rerun, heal,
// agent; empty for a bench without a library.
func (b *Bench) ByVia() []ViaCount {
	m := map[string]*ViaCount{}
	for _, a := range b.Attempts {
		if a.Via == "" {
			continue
		}
		c := m[a.Via]
		if c == nil {
			c = &ViaCount{Via: a.Via}
			m[a.Via] = c
		}
		c.Attempts++
		c.Cost += a.Cost
		switch a.Outcome() {
		case "pass":
			c.Passed++
		case "fail", "error":
			c.Failed++
		}
	}
	var out []ViaCount
	for _, k := range []string{"rerun", "heal", "agent"} {
		if c, ok := m[k]; ok {
			out = append(out, *c)
		}
	}
	return out
}

// CostSaved is what reruns and heals saved against the agent runs that
// made their scripts, over the attempts that know that cost.
func (b *Bench) CostSaved() (float64, bool) {
	saved, known := 0.0, false
	for _, a := range b.Attempts {
		if a.Via != "" && a.Via != "agent" && a.AgentCost != nil {
			saved += *a.AgentCost - a.Cost
			known = true
		}
	}
	return saved, known
}

// viaMarkdown is the section on the three paths, "" without a library.
func (b *Bench) viaMarkdown() string {
	vs := b.ByVia()
	if len(vs) == 0 {
		return ""
	}
	var s strings.Builder
	s.WriteString("## By path (script library)\n\n| via | attempts | passed | failed | pass rate | cost |\n|---|---|---|---|---|---|\n")
	for _, v := range vs {
		rate := "n/a"
		if n := v.Passed + v.Failed; n > 0 {
			rate = fmt.Sprintf("%.0f%%", 100*float64(v.Passed)/float64(n))
		}
		fmt.Fprintf(&s, "| %s | %d | %d | %d | %s | $%.4f |\n", v.Via, v.Attempts, v.Passed, v.Failed, rate, v.Cost)
	}
	if saved, ok := b.CostSaved(); ok {
		fmt.Fprintf(&s, "\nCost saved against the agent runs that made the scripts: $%.4f\n", saved)
	}
	s.WriteString("\n")
	return s.String()
}
