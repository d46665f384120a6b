package bench

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"wright/bench/results"
	"wright/internal/atomicfile"
)

// Repro is the reproducibility record of a bench, kept in DIR/bench.json.
type Repro struct {
	Version    string `json:"wright_version"`
	Commit     string `json:"wright_commit,omitempty"`
	ConfigHash string `json:"config_hash"`
	Model      string `json:"model"`
	Chromium   string `json:"chromium_version,omitempty"`
	Suite      string `json:"suite"`
	SuiteHash  string `json:"suite_hash"`
	Mode       string `json:"mode"`
	Repeat     int    `json:"repeat"`
	Shard      string `json:"shard,omitempty"`
	// Started is the bench's first start: a resume keeps it. Ended is
	// the end of the last session that ran an attempt, and WallSeconds
	// the sessions' times added up, counting only the sessions that ran
	// one, so a resume with nothing left to do changes neither.
	Started     time.Time `json:"started_at"`
	Ended       time.Time `json:"ended_at,omitzero"`
	WallSeconds float64   `json:"wall_seconds,omitempty"`
	Invalid     []Problem `json:"invalid_tasks,omitempty"`
	Selected    int       `json:"selected_tasks"`
}

// Spread is the median and 90th percentile of one measure.
type Spread struct {
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
}

// Rate is a success rate with its interval, for the whole bench or a group.
type Rate struct {
	Passed      int        `json:"passed"`
	Failed      int        `json:"failed"`
	Unscored    int        `json:"unscored"`
	Errors      int        `json:"errors"`
	Interrupted int        `json:"interrupted"`
	SuccessRate *float64   `json:"success_rate"`
	CI95        [2]float64 `json:"ci95"`
}

// Listed is an attempt named apart in the summary (unscored or errored).
type Listed struct {
	TaskID  string `json:"task_id"`
	Attempt int    `json:"attempt"`
	Reason  string `json:"reason"`
}

// Summary is summary.json.
type Summary struct {
	Total int `json:"total"` // attempts recorded (tasks, without --repeat)
	Tasks int `json:"tasks"`
	Rate
	PassAt1   *float64        `json:"pass_at_1,omitempty"`
	PassAtK   map[int]float64 `json:"pass_at_k,omitempty"`
	ByLevel   map[string]Rate `json:"by_level,omitempty"`
	BySite    map[string]Rate `json:"by_site,omitempty"`
	ByStatus  map[string]int  `json:"by_status"`
	Steps     Spread          `json:"steps"`
	Tokens    Spread          `json:"tokens"`
	Cost      Spread          `json:"cost"`
	Seconds   Spread          `json:"seconds"`
	TotalCost float64         `json:"total_cost"`
	// ByVia counts, with a script library, the attempts each path served
	// (rerun, heal, agent), their pass rates and cost; CostSaved is what
	// the reruns and heals saved against the agent runs that made their
	// scripts.
	ByVia        map[string]ViaRate `json:"by_via,omitempty"`
	CostSaved    *float64           `json:"cost_saved,omitempty"`
	UnscoredList []Listed           `json:"unscored_attempts,omitempty"`
	ErrorList    []Listed           `json:"error_attempts,omitempty"`
	Attempts     []Row              `json:"attempts"`
	Repro        *Repro             `json:"repro,omitempty"`
	// PromptTokens and CachedTokens are the bench's totals: how much of
	// every prompt sent the providers' caches served.
	PromptTokens int `json:"prompt_tokens"`
	CachedTokens int `json:"cached_tokens"`
	// EstimatedPromptTokens adds up the attempts' estimates of the prompts
	// their endpoints reported no usage for.
	EstimatedPromptTokens int `json:"estimated_prompt_tokens,omitempty"`
}

// Row is one attempt in the summary's table.
type Row struct {
	TaskID  string          `json:"task_id"`
	Attempt int             `json:"attempt"`
	Mode    string          `json:"mode,omitempty"`
	Status  string          `json:"exit_status"`
	Outcome results.Outcome `json:"outcome"`
	Evals   string          `json:"evals,omitempty"` // ✓answer ✗url ...
	Steps   int             `json:"steps"`
	Cost    float64         `json:"cost"`
	Seconds float64         `json:"seconds"`
	Answer  string          `json:"final_response,omitempty"`
}

// Summarize counts the latest record of each attempt. Counts are over
// attempts (one per task without --repeat); pass@1 and pass@k are over tasks,
// from each task's scored attempts.
func Summarize(recs []Record, repro *Repro) Summary {
	recs = results.Latest(recs)
	s := Summary{Total: len(recs), ByStatus: map[string]int{}, Repro: repro}
	byLevel := map[string]*Rate{}
	bySite := map[string]*Rate{}
	perTask := map[string]*taskTally{}
	var order []string
	var steps, tokens, cost, secs []float64
	for _, r := range recs {
		var marks []string
		for _, e := range r.Evals {
			marks = append(marks, e.Mark()+e.Kind)
		}
		s.Attempts = append(s.Attempts, Row{TaskID: r.TaskID, Attempt: r.Attempt, Mode: r.Mode, Status: r.ExitStatus,
			Outcome: r.Outcome(), Evals: strings.Join(marks, " "), Steps: r.Steps, Cost: r.Cost, Seconds: r.Seconds, Answer: r.FinalResponse})
		s.ByStatus[r.Status()]++
		s.TotalCost += r.Cost
		s.PromptTokens += r.PromptTokens
		s.CachedTokens += r.CachedTokens
		s.EstimatedPromptTokens += r.EstimatedPromptTokens
		if _, ok := perTask[r.TaskID]; !ok {
			perTask[r.TaskID] = &taskTally{}
			order = append(order, r.TaskID)
		}
		groups := []*Rate{&s.Rate}
		if r.Level != "" {
			groups = append(groups, group(byLevel, r.Level))
		}
		if r.Site != "" {
			groups = append(groups, group(bySite, r.Site))
		}
		o := r.Outcome()
		for _, g := range groups {
			g.add(o)
		}
		switch o {
		case results.Error:
			s.ErrorList = append(s.ErrorList, Listed{r.TaskID, r.Attempt, r.Error})
			continue
		case results.Interrupted:
			continue
		case results.Unscored:
			s.UnscoredList = append(s.UnscoredList, Listed{r.TaskID, r.Attempt, r.Unscored})
		case results.Pass:
			perTask[r.TaskID].n++
			perTask[r.TaskID].c++
		case results.Fail:
			perTask[r.TaskID].n++
		}
		steps = append(steps, float64(r.Steps))
		tokens = append(tokens, float64(r.Tokens))
		cost = append(cost, r.Cost)
		secs = append(secs, r.Seconds)
	}
	s.Tasks = len(order)
	s.Rate.finish()
	s.ByLevel = finishGroups(byLevel)
	s.BySite = finishGroups(bySite)
	s.Steps, s.Tokens, s.Cost, s.Seconds = spread(steps), spread(tokens), spread(cost), spread(secs)
	s.ByVia, s.CostSaved = byVia(recs)
	s.PassAtK = passAtKs(perTask, order)
	if v, ok := s.PassAtK[1]; ok {
		s.PassAt1 = &v
	}
	return s
}

// taskTally counts a task's scored attempts, n, and those that passed, c.
type taskTally struct{ n, c int }

// passAtKs is pass@k for each k up to the most scored attempts of a task,
// over the tasks, in order, that have at least k. Nil when no task has
// more than one.
func passAtKs(perTask map[string]*taskTally, order []string) map[int]float64 {
	maxN := 0
	for _, t := range perTask {
		maxN = max(maxN, t.n)
	}
	if maxN <= 1 {
		return nil
	}
	m := map[int]float64{}
	for k := 1; k <= maxN; k++ {
		sum, n := 0.0, 0
		for _, id := range order {
			t := perTask[id]
			if t.n >= k {
				sum += PassAtK(t.n, t.c, k)
				n++
			}
		}
		if n > 0 {
			m[k] = sum / float64(n)
		}
	}
	return m
}

func group(m map[string]*Rate, key string) *Rate {
	if m[key] == nil {
		m[key] = &Rate{}
	}
	return m[key]
}

func finishGroups(m map[string]*Rate) map[string]Rate {
	if len(m) == 0 {
		return nil
	}
	out := map[string]Rate{}
	for k, r := range m {
		r.finish()
		out[k] = *r
	}
	return out
}

// add counts one attempt's outcome.
func (r *Rate) add(o results.Outcome) {
	switch o {
	case results.Pass:
		r.Passed++
	case results.Fail:
		r.Failed++
	case results.Unscored:
		r.Unscored++
	case results.Error:
		r.Errors++
	case results.Interrupted:
		r.Interrupted++
	}
}

func (r *Rate) finish() {
	n := r.Passed + r.Failed
	if n == 0 {
		r.CI95 = [2]float64{0, 1}
		return
	}
	v := float64(r.Passed) / float64(n)
	r.SuccessRate = &v
	r.CI95[0], r.CI95[1] = Wilson(r.Passed, n)
}

func spread(xs []float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	return Spread{Median: Quantile(xs, 0.5), P90: Quantile(xs, 0.9)}
}

// WriteSummary writes summary.json and summary.md into dir, each replaced
// atomically so a reader never sees half a file.
func WriteSummary(dir string, s Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode summary: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, "summary.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "summary.md"), []byte(s.Markdown()), 0o644)
}

func pct(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100**v)
}

// Markdown renders the summary for a person.
func (s Summary) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Bench summary\n\n")
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| success rate | %s (95%% CI %.1f%%–%.1f%%) |\n", pct(s.SuccessRate), 100*s.CI95[0], 100*s.CI95[1])
	fmt.Fprintf(&b, "| passed / failed | %d / %d |\n", s.Passed, s.Failed)
	fmt.Fprintf(&b, "| unscored | %d |\n| errors (infrastructure) | %d |\n", s.Rate.Unscored, s.Errors)
	if s.Interrupted > 0 {
		fmt.Fprintf(&b, "| interrupted (run again on resume) | %d |\n", s.Interrupted)
	}
	fmt.Fprintf(&b, "| attempts / tasks | %d / %d |\n", s.Total, s.Tasks)
	if s.PassAt1 != nil {
		ks := sortedKeys(s.PassAtK)
		for _, k := range ks {
			fmt.Fprintf(&b, "| pass@%d | %.1f%% |\n", k, 100*s.PassAtK[k])
		}
	}
	fmt.Fprintf(&b, "| total cost | $%.4f |\n", s.TotalCost)
	fmt.Fprintf(&b, "| prompt tokens (cached) | %d (%d, %s) |\n", s.PromptTokens, s.CachedTokens, cachedShare(s.CachedTokens, s.PromptTokens))
	if s.EstimatedPromptTokens > 0 {
		fmt.Fprintf(&b, "| prompt tokens the endpoint did not report | ~%d est. |\n", s.EstimatedPromptTokens)
	}
	b.WriteString("\n")

	fmt.Fprintf(&b, "| measure | median | p90 |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| steps | %.1f | %.1f |\n| tokens | %.0f | %.0f |\n| cost | $%.4f | $%.4f |\n| seconds | %.1f | %.1f |\n\n",
		s.Steps.Median, s.Steps.P90, s.Tokens.Median, s.Tokens.P90, s.Cost.Median, s.Cost.P90, s.Seconds.Median, s.Seconds.P90)

	fmt.Fprintf(&b, "## By exit status\n\n| status | attempts |\n|---|---|\n")
	for _, k := range sortedKeys(s.ByStatus) {
		fmt.Fprintf(&b, "| %s | %d |\n", k, s.ByStatus[k])
	}
	for _, g := range []struct {
		title string
		m     map[string]Rate
	}{{"level", s.ByLevel}, {"site", s.BySite}} {
		if len(g.m) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## By %s\n\n| %s | success | passed | failed | unscored | errors |\n|---|---|---|---|---|---|\n", g.title, g.title)
		for _, k := range sortedKeys(g.m) {
			r := g.m[k]
			fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d |\n", k, pct(r.SuccessRate), r.Passed, r.Failed, r.Unscored, r.Errors)
		}
	}
	viaMarkdown(&b, s)
	for _, l := range []struct {
		title string
		items []Listed
	}{{"Unscored", s.UnscoredList}, {"Errors", s.ErrorList}} {
		if len(l.items) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s\n\n", l.title)
		for _, it := range l.items {
			fmt.Fprintf(&b, "- %s (attempt %d): %s\n", it.TaskID, it.Attempt, oneLine(it.Reason))
		}
	}
	if len(s.Attempts) > 0 {
		fmt.Fprintf(&b, "\n## Attempts\n\n| task | # | mode | exit status | result | evaluators | steps | cost | seconds | final response |\n|---|---|---|---|---|---|---|---|---|---|\n")
		for _, a := range s.Attempts {
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %d | $%.4f | %.1f | %s |\n", mdCell(a.TaskID), a.Attempt, orDash(a.Mode),
				orDash(a.Status), a.Outcome, mdCell(a.Evals), a.Steps, a.Cost, a.Seconds, mdCell(clipTo(oneLine(a.Answer), 80)))
		}
	}
	if s.Repro != nil {
		reproMarkdown(&b, s.Repro)
	}
	return b.String()
}

// reproMarkdown writes the summary's reproducibility section, r.
func reproMarkdown(b *strings.Builder, r *Repro) {
	fmt.Fprintf(b, "\n## Reproducibility\n\n")
	fmt.Fprintf(b, "- %s\n- model %s, mode %s for tasks that name none, repeat %d\n- config sha256 %s\n- suite %s (sha256 %s), %d tasks selected\n",
		strings.Join(nonEmpty("wright", r.Version, r.Commit), " "), r.Model, r.Mode, r.Repeat, r.ConfigHash, r.Suite, r.SuiteHash, r.Selected)
	if r.Chromium != "" {
		fmt.Fprintf(b, "- %s\n", r.Chromium)
	}
	if r.Shard != "" {
		fmt.Fprintf(b, "- shard %s\n", r.Shard)
	}
	fmt.Fprintf(b, "- started %s", r.Started.UTC().Format(time.RFC3339))
	if !r.Ended.IsZero() {
		fmt.Fprintf(b, ", ended %s", r.Ended.UTC().Format(time.RFC3339))
	}
	if r.WallSeconds > 0 {
		fmt.Fprintf(b, "; %s of wall time over the sessions that ran attempts", time.Duration(r.WallSeconds*float64(time.Second)).Round(time.Second))
	}
	b.WriteString("\n")
	for _, p := range r.Invalid {
		fmt.Fprintf(b, "- invalid task %s\n", p)
	}
}

// nonEmpty keeps the strings that are not empty, so a missing part leaves
// no stray space.
func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// mdCell keeps a value inside one Markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func clipTo(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func sortedKeys[K int | string, V any](m map[K]V) []K {
	ks := make([]K, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i] < ks[j] })
	return ks
}

// cachedShare is the cached part of the prompt tokens as a percentage.
func cachedShare(cached, prompt int) string {
	if prompt == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(cached)/float64(prompt))
}
