package bench

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Selection narrows a suite to the tasks one bench process runs.
type Selection struct {
	Filter *regexp.Regexp // on the task id; nil keeps all
	Shard  Shard
	Limit  int // after sharding; 0 is no limit
}

// Shard is the i-th (1-based) of n slices of a suite.
type Shard struct{ I, N int }

// ParseShard reads "i/n" with 1 <= i <= n.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{1, 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 <= i <= n, such as 2/4", s)
	}
	return Shard{i, n}, nil
}

// Select applies the filter, then the shard (position in the filtered suite
// modulo n), then the limit, keeping the suite's order.
func (sel Selection) Select(tasks []Task) []Task {
	var filtered []Task
	for _, t := range tasks {
		if sel.Filter == nil || sel.Filter.MatchString(t.ID) {
			filtered = append(filtered, t)
		}
	}
	n := max(sel.Shard.N, 1)
	i := max(sel.Shard.I, 1)
	var out []Task
	for pos, t := range filtered {
		if pos%n == i-1 {
			out = append(out, t)
		}
	}
	if sel.Limit > 0 && len(out) > sel.Limit {
		out = out[:sel.Limit]
	}
	return out
}
