package review

import (
	"embed"
	"fmt"
	"html/template"
	"io"
	"path"
	"path/filepath"
	"strings"
	"wright/bench/results"
)

//go:embed assets/*
var assets embed.FS

// attemptTokens is the figure an attempt's tokens cell shows: the reported
// count, or, when its endpoint reported none, wright's estimate (est).
func attemptTokens(a Attempt) (n int, est bool) {
	if a.Tokens == 0 && a.EstimatedPromptTokens > 0 {
		return a.EstimatedPromptTokens, true
	}
	return a.Tokens, false
}

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"md":    renderMarkdown,
	"code":  highlight,
	"lines": lines,
	"money": func(f float64) string { return fmt.Sprintf("$%.4f", f) },
	"secs":  func(f float64) string { return fmt.Sprintf("%.1fs", f) },
	"ms":    func(f float64) string { return fmt.Sprintf("%.1fs", f/1000) },
	"lower": strings.ToLower,
	"wall":  secsText,
	"join":  strings.Join,
	"first": func(s string) string { return firstLine(s, 140) },
	// plural is "1 attempt", "2 attempts".
	"plural": plural,
	// tokens is an attempt's tokens cell: the reported count, or the
	// estimate marked when its endpoint reported none.
	"tokens": func(a Attempt) string {
		if n, est := attemptTokens(a); est {
			return fmt.Sprintf("~%d est.", n)
		}
		return fmt.Sprint(a.Tokens)
	},
	// tokensN is the figure the tokens cell shows, for sorting.
	"tokensN": func(a Attempt) int { n, _ := attemptTokens(a); return n },
	// evalClass is an evaluator's CSS class, from its mark.
	"evalClass": func(e results.Eval) string {
		return map[string]string{"✓": "pass", "✗": "fail", "?": "unknown"}[e.Mark()]
	},
}).ParseFS(assets, "assets/*.html"))

// HTMLOptions say where a page's links go.
type HTMLOptions struct {
	// FileBase is prepended to a path relative to the run directory (the
	// bench directory on a bench page) to link to the full file: "" when
	// the page sits in that directory, a relative path when it is written
	// elsewhere, a URL when served.
	FileBase string
	// PollURL, when set, is asked every few seconds for the run's state;
	// the page reloads itself when it changes (served pages only).
	PollURL string
	// Version is the fingerprint PollURL answered before the page was
	// made: a change after it, however early, reloads the page.
	Version string
	// Up links back to the page this one was reached from (a bench).
	Up string
	// RunLink turns a bench row's run directory into the link of its page.
	RunLink func(runDir string) string
	// Attempt, on a run page reached from a bench, is the bench's record
	// of the run: its outcome and what each evaluator said.
	Attempt *results.Record
}

// LinkBase is the FileBase for a page written to outFile about dir.
func LinkBase(dir, outFile string) string {
	absDir, err1 := filepath.Abs(dir)
	absOut, err2 := filepath.Abs(filepath.Dir(outFile))
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(absOut, absDir)
	if err != nil || rel == "." {
		return ""
	}
	return filepath.ToSlash(rel) + "/"
}

type runPage struct {
	Title       string
	H           Header
	Missing     []string
	Steps       []stepView
	Chart       template.HTML
	FinalRuns   []finalView
	Plan        string
	FinalScript string
	Errors      []RuntimeError
	Compactions []Compaction
	CSS         template.CSS
	CodeCSS     template.CSS
	JS          template.JS
	PollURL     string
	Version     string
	Up          string
	GateText    string
	Attempt     *results.Record
}

type stepView struct {
	Step
	StatusText  string
	StatusClass string
	Lang        string
	Out         string
	Fold        bool
	Images      []imageView
	Compaction  *Compaction
}

type imageView struct {
	Name      string
	Src       template.URL
	Href      string
	Note      string // what of the file the page does not show
	Score     int
	Reasoning string
	Judged    bool
}

type finalView struct {
	FinalRun
	Label     string
	Images    []imageView
	TraceHref string // the link to its Playwright trace
	Clips     []clipView
}

// clipView is a final run's video, played from its file (too big to
// carry in the page).
type clipView struct {
	Name string
	Href string
}

// WriteRunHTML writes the run as one self-contained page.
func WriteRunHTML(w io.Writer, r *Run, o HTMLOptions) error {
	css, _ := assets.ReadFile("assets/style.css")
	js, _ := assets.ReadFile("assets/review.js")
	th := &thumbs{root: r.Dir}
	th.prefetch(r.screenshots())
	p := runPage{Title: "wright review · " + orDash(r.Header.TaskID), H: r.Header, Missing: r.Missing, Errors: r.Errors,
		Compactions: r.Compactions, Plan: r.Plan, FinalScript: r.FinalScript, CSS: template.CSS(css), CodeCSS: codeCSS(),
		JS: template.JS(js), PollURL: o.PollURL, Version: o.Version, Up: o.Up, GateText: gateText(r.Header), Attempt: o.Attempt}
	for _, s := range r.Steps {
		p.Steps = append(p.Steps, r.stepView(s, th, o))
	}
	p.Chart = tokenChart(r.Steps, r.Compactions)
	for _, fr := range r.FinalRuns {
		fv := finalView{FinalRun: fr, Label: fr.Verdict.Label()}
		if fr.Trace != "" {
			fv.TraceHref = o.FileBase + fr.Trace
		}
		for _, s := range fr.Screenshots {
			iv := r.image(s, th, o)
			if rec := fr.Verdict.Record(s); rec != nil {
				iv.Judged, iv.Score, iv.Reasoning = true, rec.Score, rec.Reasoning
			}
			fv.Images = append(fv.Images, iv)
		}
		for _, v := range fr.Videos {
			fv.Clips = append(fv.Clips, clipView{Name: path.Base(v), Href: o.FileBase + v})
		}
		p.FinalRuns = append(p.FinalRuns, fv)
	}
	if err := pages.ExecuteTemplate(w, "run.html", p); err != nil {
		return fmt.Errorf("review: render page: %w", err)
	}
	return nil
}

// screenshots are every screenshot the page shows, full paths.
func (r *Run) screenshots() []string {
	var ps []string
	for _, s := range r.Steps {
		for _, p := range s.Screenshots {
			ps = append(ps, r.path(p))
		}
	}
	for _, fr := range r.FinalRuns {
		for _, p := range fr.Screenshots {
			ps = append(ps, r.path(p))
		}
	}
	return ps
}

func (r *Run) image(rel string, th *thumbs, o HTMLOptions) imageView {
	s := th.get(r.path(rel))
	return imageView{Name: path.Base(rel), Src: s.URL, Href: o.FileBase + rel, Note: s.Note()}
}

func (r *Run) stepView(s Step, th *thumbs, o HTMLOptions) stepView {
	v := stepView{Step: s, StatusText: s.Status(), Lang: "bash", Out: s.Output()}
	if s.Field == "python_code" {
		v.Lang = "python"
	}
	v.StatusClass = "ok"
	switch {
	case len(s.Notes) > 0 && s.Notes[0].Kind != NoteNotice:
		v.StatusClass = s.Notes[0].Kind
	case s.Incomplete:
		v.StatusClass = "incomplete"
	case s.Failed():
		v.StatusClass = "failed"
	}
	v.Fold = lines(v.Out) > 25
	for _, p := range s.Screenshots {
		v.Images = append(v.Images, r.image(p, th, o))
	}
	for i := range r.Compactions {
		if r.Compactions[i].Step == s.N {
			v.Compaction = &r.Compactions[i]
		}
	}
	return v
}

// tokenChart draws the prompt size of every step as bars, each a link to
// its step, with the compactions marked.
func tokenChart(steps []Step, comps []Compaction) template.HTML {
	if len(steps) == 0 {
		return ""
	}
	peak := 1
	for _, s := range steps {
		peak = max(peak, s.Prompt)
	}
	const w, h = 800.0, 120.0
	bw := w / float64(len(steps))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" preserveAspectRatio="none" role="img" aria-label="prompt tokens per step">`, w, h+14)
	compacted := map[int]Compaction{}
	for _, c := range comps {
		compacted[c.Step] = c
	}
	for i, s := range steps {
		bh := h * float64(s.Prompt) / float64(peak)
		fmt.Fprintf(&b, `<a href="#step-%d"><rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" class="bar %s"><title>step %d: %s</title></rect></a>`,
			s.N, float64(i)*bw+bw*0.1, h-bh, bw*0.8, bh, statusClassFor(s), s.N, s.TokensText())
		if c, ok := compacted[s.N]; ok {
			x := float64(i)*bw + bw
			fmt.Fprintf(&b, `<line x1="%.2f" x2="%.2f" y1="0" y2="%.0f" class="compaction"><title>history compacted after step %d: %d → %d tokens</title></line>`,
				x, x, h, s.N, c.TokensBefore, c.TokensAfter)
			fmt.Fprintf(&b, `<text x="%.2f" y="%.0f" class="cmark">⟳</text>`, x, h+12)
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func statusClassFor(s Step) string {
	for _, n := range s.Notes {
		if n.Kind != NoteNotice {
			return n.Kind
		}
	}
	if s.Failed() {
		return "failed"
	}
	return "ok"
}
