package bench

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"wright/bench/results"
)

// CheckComplete says whether shard directories hold a whole bench: every
// shard of the same split exactly once (bench.json's "i/n"), and each with
// a final record for every attempt it selected. A merge job that runs after
// its array whatever became of it (Slurm's afterany) calls this first, so
// a shard that died or is still requeued is named instead of merged away.
func CheckComplete(dirs []string) error {
	seen := map[int]string{}
	total := 0
	var problems []string
	for _, d := range dirs {
		r, err := ReadRepro(d)
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		if r == nil {
			problems = append(problems, fmt.Sprintf("%s: no %s (the shard never started)", d, ReproFile))
			continue
		}
		i, n, err := parseShard(r.Shard)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", d, err))
			continue
		}
		switch {
		case total != 0 && n != total:
			problems = append(problems, fmt.Sprintf("%s: shard %d/%d, but another directory is of a split into %d", d, i, n, total))
			continue
		case seen[i] != "":
			problems = append(problems, fmt.Sprintf("%s and %s are both shard %d/%d", seen[i], d, i, n))
			continue
		}
		total, seen[i] = n, d
		recs, _, err := results.Read(filepath.Join(d, ResultsFile))
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		final := 0
		for _, rec := range results.Latest(recs) {
			if rec.Final() {
				final++
			}
		}
		want := r.Selected * max(r.Repeat, 1)
		if final < want {
			problems = append(problems, fmt.Sprintf("%s: shard %d/%d finished %d of its %d attempts", d, i, n, final, want))
		}
	}
	for i := 1; i <= total; i++ {
		if seen[i] == "" {
			problems = append(problems, fmt.Sprintf("shard %d/%d is missing", i, total))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("the shards are not complete:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// parseShard reads bench.json's "i/n".
func parseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || i < 1 || i > n {
		return 0, 0, fmt.Errorf("bench.json says shard %q, not i/n: a directory of a sharded bench (--shard) was expected", s)
	}
	return i, n, nil
}
