package bench

import (
	"fmt"
	"io"
	"sort"
	"wright/bench/results"
)

// Pair is one attempt scored in both benches.
type Pair struct {
	TaskID  string `json:"task_id"`
	Attempt int    `json:"attempt"`
	A, B    bool
}

// Comparison is the paired comparison of two benches over the attempts
// scored in both.
type Comparison struct {
	Pairs   []Pair  `json:"pairs"`
	Both    int     `json:"both_pass"`
	OnlyA   int     `json:"only_a"`
	OnlyB   int     `json:"only_b"`
	Neither int     `json:"neither"`
	PValue  float64 `json:"mcnemar_p"`
	OnlyInA int     `json:"only_in_a"` // attempts A scored and B did not
	OnlyInB int     `json:"only_in_b"`
	CostA   float64 `json:"cost_a"`
	CostB   float64 `json:"cost_b"`
	StepsA  float64 `json:"mean_steps_a"`
	StepsB  float64 `json:"mean_steps_b"`
}

// Compare pairs attempts by task id and attempt number.
func Compare(a, b []Record) Comparison {
	type key struct {
		id string
		n  int
	}
	index := func(recs []Record) map[key]Record {
		m := map[key]Record{}
		for _, r := range results.Latest(recs) {
			if r.Passed != nil && r.Error == "" {
				m[key{r.TaskID, r.Attempt}] = r
			}
		}
		return m
	}
	ma, mb := index(a), index(b)
	var c Comparison
	var stepsA, stepsB int
	for k, ra := range ma {
		rb, ok := mb[k]
		if !ok {
			c.OnlyInA++
			continue
		}
		p := Pair{TaskID: k.id, Attempt: k.n, A: *ra.Passed, B: *rb.Passed}
		c.Pairs = append(c.Pairs, p)
		switch {
		case p.A && p.B:
			c.Both++
		case p.A:
			c.OnlyA++
		case p.B:
			c.OnlyB++
		default:
			c.Neither++
		}
		c.CostA += ra.Cost
		c.CostB += rb.Cost
		stepsA += ra.Steps
		stepsB += rb.Steps
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			c.OnlyInB++
		}
	}
	sort.Slice(c.Pairs, func(i, j int) bool {
		if c.Pairs[i].TaskID != c.Pairs[j].TaskID {
			return naturalLess(c.Pairs[i].TaskID, c.Pairs[j].TaskID)
		}
		return c.Pairs[i].Attempt < c.Pairs[j].Attempt
	})
	if n := len(c.Pairs); n > 0 {
		c.StepsA = float64(stepsA) / float64(n)
		c.StepsB = float64(stepsB) / float64(n)
	}
	c.PValue = McNemarExact(c.OnlyA, c.OnlyB)
	return c
}

// Write prints the comparison for a person.
func (c Comparison) Write(w io.Writer, nameA, nameB string) {
	mark := func(p bool) string {
		if p {
			return "pass"
		}
		return "fail"
	}
	fmt.Fprintf(w, "%-40s %-6s %-6s\n", "task", "A", "B")
	for _, p := range c.Pairs {
		id := p.TaskID
		if p.Attempt > 1 {
			id = fmt.Sprintf("%s#%d", id, p.Attempt)
		}
		fmt.Fprintf(w, "%-40s %-6s %-6s\n", id, mark(p.A), mark(p.B))
	}
	n := len(c.Pairs)
	fmt.Fprintf(w, "\nA = %s\nB = %s\n", nameA, nameB)
	fmt.Fprintf(w, "paired attempts: %d   both pass: %d   only A: %d   only B: %d   neither: %d\n", n, c.Both, c.OnlyA, c.OnlyB, c.Neither)
	if n > 0 {
		fmt.Fprintf(w, "success: A %.1f%%   B %.1f%%\n", 100*float64(c.Both+c.OnlyA)/float64(n), 100*float64(c.Both+c.OnlyB)/float64(n))
	}
	fmt.Fprintf(w, "McNemar exact p = %.4g (two-sided, on the %d discordant pairs)\n", c.PValue, c.OnlyA+c.OnlyB)
	fmt.Fprintf(w, "cost over paired attempts: A $%.4f   B $%.4f   (B-A %+.4f)\n", c.CostA, c.CostB, c.CostB-c.CostA)
	fmt.Fprintf(w, "mean steps: A %.1f   B %.1f   (B-A %+.1f)\n", c.StepsA, c.StepsB, c.StepsB-c.StepsA)
	if c.OnlyInA+c.OnlyInB > 0 {
		fmt.Fprintf(w, "not paired (scored in one bench only): %d in A, %d in B\n", c.OnlyInA, c.OnlyInB)
	}
}
