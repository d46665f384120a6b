package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"wright/bench/results"
	"wright/internal/atomicfile"
)

// File names inside a bench directory.
const (
	ResultsFile = "results.jsonl"
	ReproFile   = "bench.json"
	LockFile    = ".bench.lock"
)

// ReadRepro reads DIR/bench.json; a missing file is nil.
func ReadRepro(dir string) (*Repro, error) {
	b, err := os.ReadFile(filepath.Join(dir, ReproFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Repro
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", ReproFile, err)
	}
	return &r, nil
}

// WriteRepro writes DIR/bench.json atomically.
func WriteRepro(dir string, r *Repro) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, ReproFile), append(b, '\n'), 0o644)
}

// Merge joins the results of shard directories into out: results.jsonl with
// run_dir rewritten relative to out, bench.json with the shards' records
// combined, and a fresh summary.
func Merge(out string, dirs []string) (Summary, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Summary{}, fmt.Errorf("merge: %w", err)
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return Summary{}, err
	}
	var all []Record
	var repro *Repro
	for _, d := range dirs {
		recs, _, err := results.Read(filepath.Join(d, ResultsFile))
		if err != nil {
			return Summary{}, fmt.Errorf("merge %s: %w", d, err)
		}
		if len(recs) == 0 {
			if _, err := os.Stat(filepath.Join(d, ResultsFile)); err != nil {
				return Summary{}, fmt.Errorf("merge %s: no %s there", d, ResultsFile)
			}
		}
		absD, err := filepath.Abs(d)
		if err != nil {
			return Summary{}, err
		}
		for _, r := range results.Latest(recs) {
			if r.RunDir != "" && !filepath.IsAbs(r.RunDir) {
				if rel, err := filepath.Rel(absOut, filepath.Join(absD, r.RunDir)); err == nil {
					r.RunDir = rel
				}
			}
			all = append(all, r)
		}
		r, err := ReadRepro(d)
		if err != nil {
			return Summary{}, fmt.Errorf("merge %s: %w", d, err)
		}
		repro = mergeRepro(repro, r)
	}
	all = results.Latest(all)
	var buf []byte
	for _, r := range all {
		b, err := json.Marshal(r)
		if err != nil {
			return Summary{}, err
		}
		buf = append(append(buf, b...), '\n')
	}
	if err := atomicfile.Write(filepath.Join(out, ResultsFile), buf, 0o644); err != nil {
		return Summary{}, err
	}
	if repro != nil {
		if err := WriteRepro(out, repro); err != nil {
			return Summary{}, err
		}
	}
	s := Summarize(all, repro)
	return s, WriteSummary(out, s)
}

// mergeRepro keeps the first shard's record with the earliest start, the
// latest end, the longest wall time, the selected counts added and the
// shard field cleared.
func mergeRepro(acc, r *Repro) *Repro {
	if r == nil {
		return acc
	}
	if acc == nil {
		c := *r
		c.Shard = ""
		return &c
	}
	if r.Started.Before(acc.Started) {
		acc.Started = r.Started
	}
	if r.Ended.After(acc.Ended) {
		acc.Ended = r.Ended
	}
	// Shards run side by side: the merged bench took as long as its
	// longest.
	acc.WallSeconds = max(acc.WallSeconds, r.WallSeconds)
	acc.Selected += r.Selected
	if r.ConfigHash != acc.ConfigHash || r.SuiteHash != acc.SuiteHash || r.Model != acc.Model {
		acc.ConfigHash = "mixed"
	}
	return acc
}
