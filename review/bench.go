package review

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"wright/bench/results"
)

// Attempt is one line of a bench's results.jsonl, as the bench wrote it,
// with what review finds out about it.
type Attempt struct {
	results.Record

	// Found is RunDir resolved on this machine, relative to the bench
	// directory; empty when the run's folder is not there.
	Found string `json:"-"`
	// Reason is the first line of what went wrong, for failures.
	Reason string `json:"reason,omitempty"`
}

// Failed reports an attempt scored as failed or ended by an infrastructure
// error: the outcomes the bench's summary counts as such.
func (a Attempt) Failed() bool {
	o := a.Outcome()
	return o == results.Fail || o == results.Error
}

// Broke reports an attempt worth a reviewer's look: a failure, or a run
// that nothing scored and that did not end Submitted (a limit, a crash).
// These are grouped under "what broke most"; the counts stay the summary's.
func (a Attempt) Broke() bool {
	return a.Failed() || a.Outcome() == results.Unscored && a.ExitStatus != "Submitted"
}

// Bench is a bench directory, read.
type Bench struct {
	Dir      string
	Attempts []Attempt
	Summary  map[string]any
	// ByStatus and ByReason group the failures, largest group first.
	ByStatus []Group
	ByReason []Group
	Missing  []string
	// Pending are run folders below the bench that no line of
	// results.jsonl names yet: attempts still going, or cut short.
	Pending []string
}

// Group is a set of failed attempts sharing a status or a reason.
type Group struct {
	Key      string   `json:"key"`
	Count    int      `json:"count"`
	Attempts []string `json:"attempts"`
}

// IsBenchDir reports whether dir holds a bench's results.
func IsBenchDir(dir string) bool {
	for _, f := range []string{"results.jsonl", "summary.json"} {
		if _, err := Stat(dir, f); err == nil {
			return true
		}
	}
	return false
}

// LoadBench reads a bench directory.
func LoadBench(dir string) (*Bench, error) {
	if !IsBenchDir(dir) {
		return nil, fmt.Errorf("review: %s is not a bench directory (no results.jsonl or summary.json)", dir)
	}
	b := &Bench{Dir: dir}
	if _, err := Stat(dir, "results.jsonl"); err != nil {
		b.Missing = append(b.Missing, "results.jsonl: missing (the bench has not finished a task yet)")
	}
	readJSONL(dir, "results.jsonl", func(line []byte) {
		var a Attempt
		if err := json.Unmarshal(line, &a); err != nil {
			b.Missing = append(b.Missing, fmt.Sprintf("results.jsonl: a line does not read (%v)", err))
			return
		}
		b.Attempts = append(b.Attempts, a)
	})
	b.Attempts = latest(b.Attempts)
	if raw, err := ReadFile(dir, "summary.json"); err == nil {
		if err := json.Unmarshal(raw, &b.Summary); err != nil {
			b.Missing = append(b.Missing, fmt.Sprintf("summary.json: unreadable (%v)", err))
		}
	}
	for i := range b.Attempts {
		a := &b.Attempts[i]
		a.Found = b.findRun(a.RunDir)
		if a.Broke() {
			a.Reason = b.reason(*a)
		}
	}
	b.group()
	b.findPending()
	return b, nil
}

// latest keeps the last line of each attempt, as results.Latest does for
// the summary: a resumed attempt's rerun replaces its interrupted line.
func latest(as []Attempt) []Attempt {
	recs := make([]results.Record, len(as))
	for i, a := range as {
		recs[i] = a.Record
	}
	keep := results.Latest(recs)
	out := make([]Attempt, len(keep))
	for i, r := range keep {
		out[i] = Attempt{Record: r}
	}
	return out
}

// findPending lists run directories (DIR/<task> or DIR/<task>/<attempt>)
// that results.jsonl does not name yet. A directory results.jsonl names is
// a run and is not looked into: with a long suite, reading the listing of
// every finished run (four globs over DIR/*/*) was most of what loading a
// bench cost.
func (b *Bench) findPending() {
	known := map[string]bool{}
	for _, a := range b.Attempts {
		known[a.Found] = true
	}
	isPending := func(rel string) bool {
		for _, f := range []string{"trajectory.json", "raw_responses.jsonl"} {
			if _, err := Stat(b.Dir, rel+"/"+f); err == nil {
				return true
			}
		}
		return false
	}
	top, _ := ReadDir(b.Dir, ".")
	for _, e := range top {
		if !e.IsDir() || known[e.Name()] {
			continue
		}
		if isPending(e.Name()) {
			b.Pending = append(b.Pending, e.Name())
			continue
		}
		subs, _ := ReadDir(b.Dir, e.Name())
		for _, sub := range subs {
			rel := e.Name() + "/" + sub.Name()
			if sub.IsDir() && !known[rel] && isPending(rel) {
				b.Pending = append(b.Pending, rel)
			}
		}
	}
	sort.Strings(b.Pending)
}

// findRun resolves a run directory as written by the bench (absolute, or
// relative to the bench) to a path relative to the bench directory.
func (b *Bench) findRun(runDir string) string {
	if runDir == "" {
		return ""
	}
	var cands []string
	if filepath.IsAbs(runDir) {
		if rel, err := filepath.Rel(b.abs(), runDir); err == nil && !strings.HasPrefix(rel, "..") {
			cands = append(cands, rel)
		}
	} else {
		cands = append(cands, runDir)
	}
	// A bench moved from where it ran still holds its runs below it.
	parts := strings.Split(filepath.ToSlash(runDir), "/")
	for n := 1; n <= 3 && n <= len(parts); n++ {
		cands = append(cands, filepath.Join(parts[len(parts)-n:]...))
	}
	for _, c := range cands {
		if sub, err := Resolve(b.Dir, c); err == nil && IsRunDir(sub) {
			return filepath.ToSlash(filepath.Clean(c))
		}
	}
	return ""
}

func (b *Bench) abs() string {
	a, err := filepath.Abs(b.Dir)
	if err != nil {
		return b.Dir
	}
	return a
}

// reason is the first line of what went wrong: the last failing evaluator's
// detail, else what ended the run, else its last runtime error or exception.
func (b *Bench) reason(a Attempt) string {
	if a.Error != "" {
		return "error: " + firstLine(a.Error, 160)
	}
	for i := len(a.Evals) - 1; i >= 0; i-- {
		if e := a.Evals[i]; e.Passed != nil && !*e.Passed && strings.TrimSpace(e.Detail) != "" {
			return e.Kind + ": " + firstLine(e.Detail, 160)
		}
	}
	if a.Found != "" {
		dir := filepath.Join(b.Dir, a.Found)
		var res struct {
			Message string `json:"message"`
		}
		if raw, err := ReadFile(dir, "result.json"); err == nil && json.Unmarshal(raw, &res) == nil && res.Message != "" {
			return firstLine(res.Message, 160)
		}
		if exc := lastException(dir); exc != "" {
			return exc
		}
	}
	if a.ExitStatus != "" {
		return a.ExitStatus
	}
	return "no detail"
}

// lastException is the first line of the last runtime error, or of the
// last exception a browser-mode step raised.
func lastException(dir string) string {
	var last string
	readJSONL(dir, "runtime_errors.jsonl", func(line []byte) {
		var e RuntimeError
		if json.Unmarshal(line, &e) == nil && e.Error != "" {
			last = firstLine(e.Error, 160)
		}
	})
	if last != "" {
		return last
	}
	files := Glob(dir, "debug/steps/step_*.json")
	sort.Strings(files)
	for i := len(files) - 1; i >= 0; i-- {
		var s struct {
			Observation map[string]any `json:"observation"`
		}
		if raw, err := ReadFile(dir, files[i]); err == nil && json.Unmarshal(raw, &s) == nil {
			if exc := lastLine(text(s.Observation["exception"])); exc != "" {
				return firstLine(exc, 160)
			}
		}
	}
	return ""
}

// lastLine is a traceback's last non-empty line: the exception itself.
func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(ls[len(ls)-1])
}

func (b *Bench) group() {
	status, reason := map[string]*Group{}, map[string]*Group{}
	add := func(m map[string]*Group, key, who string) {
		g := m[key]
		if g == nil {
			g = &Group{Key: key}
			m[key] = g
		}
		g.Count++
		g.Attempts = append(g.Attempts, who)
	}
	for _, a := range b.Attempts {
		if !a.Broke() {
			continue
		}
		who := fmt.Sprintf("%s#%d", a.TaskID, a.Attempt)
		add(status, orDash(a.Status()), who)
		add(reason, a.Reason, who)
	}
	b.ByStatus, b.ByReason = sortGroups(status), sortGroups(reason)
}

func sortGroups(m map[string]*Group) []Group {
	var gs []Group
	for _, k := range sortedKeys(m) {
		gs = append(gs, *m[k])
	}
	sort.SliceStable(gs, func(i, j int) bool { return gs[i].Count > gs[j].Count })
	return gs
}

// Counts are the bench's totals: results.Count, as summary.md has them,
// and the bench's wall time.
type Counts struct {
	results.Tally
	// Wall is the bench's elapsed time (from bench.json's start to its
	// end, or to its last record's end while it runs); 0 when unknown.
	Wall float64 `json:"wall_seconds"`
	// PromptTokens and CachedTokens are the prompt side of Tokens and the
	// part of it the providers' caches served.
	PromptTokens int `json:"prompt_tokens"`
	CachedTokens int `json:"cached_tokens"`
	// EstimatedPrompt adds up the attempts' estimates of the prompts their
	// endpoints reported no usage for; a person sees it marked "est.".
	EstimatedPrompt int `json:"estimated_prompt_tokens,omitempty"`
}

// Counts adds up the attempts.
func (b *Bench) Counts() Counts {
	recs := make([]results.Record, len(b.Attempts))
	for i, a := range b.Attempts {
		recs[i] = a.Record
	}
	c := Counts{Tally: results.Count(recs), Wall: b.wall()}
	for _, a := range b.Attempts {
		c.PromptTokens += a.PromptTokens
		c.CachedTokens += a.CachedTokens
		c.EstimatedPrompt += a.EstimatedPromptTokens
	}
	return c
}

// wall reads the bench's wall time from bench.json: the time of the
// sessions that ran attempts, or, in a bench.json that does not count it,
// its start to its end.
func (b *Bench) wall() float64 {
	var r struct {
		Started time.Time `json:"started_at"`
		Ended   time.Time `json:"ended_at"`
		Wall    float64   `json:"wall_seconds"`
	}
	raw, err := ReadFile(b.Dir, "bench.json")
	if err != nil || json.Unmarshal(raw, &r) != nil {
		return 0
	}
	if r.Wall > 0 {
		return r.Wall
	}
	if r.Started.IsZero() || r.Ended.Before(r.Started) {
		return 0
	}
	return r.Ended.Sub(r.Started).Seconds()
}

// WriteJSON writes the bench digest: totals, failure groups and the rows.
func (b *Bench) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"bench_dir": b.Dir, "counts": b.Counts(), "by_via": b.ByVia(), "summary": b.Summary, "pending": b.Pending,
		"failures_by_status": b.ByStatus, "failures_by_reason": b.ByReason, "attempts": b.Attempts, "missing": b.Missing})
}

// Markdown is the bench as Markdown: totals, the table, the failure groups.
func (b *Bench) Markdown() string {
	var s strings.Builder
	c := b.Counts()
	fmt.Fprintf(&s, "# Bench %s\n\n", filepath.Base(b.abs()))
	fmt.Fprintf(&s, "%s\n\n", countsLine(c, "**"))
	if st := b.Stats(); st.Rate != "" {
		fmt.Fprintf(&s, "Success rate **%s** (95%% CI %s)%s\n\n", st.Rate, st.CI, st.PassAtK)
		for _, g := range st.Groups {
			fmt.Fprintf(&s, "| %s | success | passed | failed | unscored | errors |\n|---|---|---|---|---|---|\n", g.Title)
			for _, r := range g.Rows {
				fmt.Fprintf(&s, "| %s | %s | %d | %d | %d | %d |\n", cell(r.Key), r.Rate, r.Passed, r.Failed, r.Unscored, r.Errors)
			}
			s.WriteString("\n")
		}
	}
	for _, m := range b.Missing {
		fmt.Fprintf(&s, "> **Missing:** %s\n\n", m)
	}
	s.WriteString(b.viaMarkdown())
	if len(b.ByStatus) > 0 {
		s.WriteString("## Failures by exit status\n\n")
		for _, g := range b.ByStatus {
			fmt.Fprintf(&s, "- **%d** %s\n", g.Count, cell(g.Key))
		}
		s.WriteString("\n## Failures by first error line\n\n")
		for _, g := range b.ByReason {
			fmt.Fprintf(&s, "- **%d** %s — %s\n", g.Count, cell(g.Key), strings.Join(g.Attempts, ", "))
		}
		s.WriteString("\n")
	}
	if len(b.Pending) > 0 {
		s.WriteString("## Not in results.jsonl yet\n\n")
		for _, p := range b.Pending {
			fmt.Fprintf(&s, "- %s\n", p)
		}
		s.WriteString("\n")
	}
	s.WriteString("## Results\n\n| task | # | mode | status | result | evaluators | steps | cost | seconds | final response |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, a := range b.Attempts {
		fmt.Fprintf(&s, "| %s | %d | %s | %s | %s | %s | %d | $%.4f | %.1f | %s |\n", cell(a.TaskID), a.Attempt, orDash(a.Mode), cell(a.Status()),
			a.Outcome(), cell(evalSummary(a.Evals)), a.Steps, a.Cost, a.Seconds, cell(firstLine(a.FinalResponse, 80)))
	}
	return s.String()
}

// Text is the terminal view of the bench.
func (b *Bench) Text(o TextOptions) (string, error) {
	md := b.Markdown()
	if o.Plain {
		return md, nil
	}
	return renderTerminal(md, o)
}

func evalSummary(es []results.Eval) string {
	var parts []string
	for _, e := range es {
		parts = append(parts, e.Mark()+e.Kind)
	}
	return strings.Join(parts, " ")
}

type benchPage struct {
	Title    string
	B        *Bench
	C        Counts
	Stats    Stats
	Rows     []benchRow
	Statuses []string
	CSS      template.CSS
	JS       template.JS
	PollURL  string
	Version  string
	Summary  string
	Pending  []pendingRow
}

type pendingRow struct{ Dir, Link string }

type benchRow struct {
	Attempt
	Link   string
	Failed bool
	Thumb  template.URL // the attempt's last screenshot, scaled down
	// ShotHref opens that screenshot's file, full size; ShotNote says what
	// of it the thumbnail leaves out.
	ShotHref, ShotNote string
	Answer             string // the final response's first line
}

// WriteBenchHTML writes the bench as one self-contained page.
func WriteBenchHTML(w io.Writer, b *Bench, o HTMLOptions) error {
	css, _ := assets.ReadFile("assets/style.css")
	js, _ := assets.ReadFile("assets/review.js")
	p := benchPage{Title: "wright bench · " + filepath.Base(b.abs()), B: b, C: b.Counts(), Stats: b.Stats(), CSS: template.CSS(css),
		JS: template.JS(js), PollURL: o.PollURL, Version: o.Version}
	seen := map[string]bool{}
	for _, a := range b.Attempts {
		row := benchRow{Attempt: a, Failed: a.Broke(), Answer: firstLine(a.FinalResponse, 140)}
		if a.Found != "" {
			if file := lastShot(filepath.Join(b.Dir, a.Found)); file != "" {
				if s, err := thumbnail(b.Dir, file, benchThumbWidth, true); err == nil {
					row.Thumb, row.ShotNote = s.URL, s.Note()
				}
				if rel, err := filepath.Rel(b.Dir, file); err == nil {
					row.ShotHref = o.FileBase + filepath.ToSlash(rel)
				}
			}
		}
		if a.Found != "" && o.RunLink != nil {
			row.Link = o.RunLink(a.Found)
		}
		p.Rows = append(p.Rows, row)
		if st := a.Status(); !seen[st] {
			seen[st] = true
			p.Statuses = append(p.Statuses, st)
		}
	}
	sort.Strings(p.Statuses)
	for _, d := range b.Pending {
		row := pendingRow{Dir: d}
		if o.RunLink != nil {
			row.Link = o.RunLink(d)
		}
		p.Pending = append(p.Pending, row)
	}
	if b.Summary != nil {
		raw, _ := json.MarshalIndent(b.Summary, "", "  ")
		p.Summary = string(raw)
	}
	if err := pages.ExecuteTemplate(w, "bench.html", p); err != nil {
		return fmt.Errorf("review: render bench page: %w", err)
	}
	return nil
}
