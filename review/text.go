package review

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/charmbracelet/glamour"
	"github.com/muesli/termenv"
)

// TextOptions choose what the terminal view shows.
type TextOptions struct {
	// Step, when positive, shows that step alone, with its whole output.
	Step int
	// Grep keeps the steps whose thought, code, output or notes hold it
	// (case-insensitive).
	Grep string
	// Plain prints Markdown as it is, with no colours; otherwise it is
	// rendered for a terminal of Width columns.
	Plain bool
	Width int
	// Style is a glamour style name ("dark", "light", "notty"); empty: dark.
	Style string
}

// Markdown is the run as a Markdown document, the source of the terminal view.
func (r *Run) Markdown(o TextOptions) (string, error) {
	b := &mdOut{plain: o.Plain}
	r.headerMD(b)
	steps := r.Steps
	if o.Step > 0 {
		steps = nil
		for _, s := range r.Steps {
			if s.N == o.Step {
				steps = append(steps, s)
			}
		}
		if len(steps) == 0 {
			return "", fmt.Errorf("review: the run has no step %d (it has %d)", o.Step, len(r.Steps))
		}
	}
	shown := 0
	for _, s := range steps {
		if o.Grep != "" && !s.matches(o.Grep) {
			continue
		}
		shown++
		r.stepMD(b, s, o.Step > 0)
	}
	if o.Grep != "" {
		verb := "hold"
		if shown == 1 {
			verb = "holds"
		}
		fmt.Fprintf(b, "*%d of %s %s %s.*\n\n", shown, plural(len(r.Steps), "step"), verb, b.lit(strconv.Quote(o.Grep)))
	}
	if o.Step == 0 && o.Grep == "" {
		r.finalRunsMD(b)
		r.errorsMD(b)
	}
	return b.String(), nil
}

// Text is the terminal view: Markdown rendered with glamour, or as it is
// when o.Plain.
func (r *Run) Text(o TextOptions) (string, error) {
	md, err := r.Markdown(o)
	if err != nil || o.Plain {
		return md, err
	}
	return renderTerminal(md, o)
}

func renderTerminal(md string, o TextOptions) (string, error) {
	width, style := o.Width, o.Style
	if width <= 0 {
		width = 100
	}
	if style == "" {
		style = "dark"
	}
	tr, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(width),
		glamour.WithColorProfile(termenv.ANSI256))
	if err != nil {
		return "", fmt.Errorf("review: terminal renderer: %w", err)
	}
	out, err := tr.Render(md)
	if err != nil {
		return "", fmt.Errorf("review: render: %w", err)
	}
	return out, nil
}

func (s Step) matches(q string) bool {
	q = strings.ToLower(q)
	hay := []string{s.Thought, s.Code, s.Output(), s.FinalResponse, s.Raw, s.Page()}
	for _, n := range s.Notes {
		hay = append(hay, n.Text)
	}
	for _, h := range hay {
		if strings.Contains(strings.ToLower(h), q) {
			return true
		}
	}
	return false
}

func (r *Run) headerMD(b *mdOut) {
	h := r.Header
	fmt.Fprintf(b, "# %s\n\n", b.lit(orDash(h.TaskID)))
	if h.Task != "" {
		fmt.Fprintf(b, "%s\n\n", b.quote(h.Task))
	}
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(b, "- **%s:** %s\n", k, b.lit(oneLine(v)))
		}
	}
	row("Exit status", h.ExitStatus)
	row("Final response", h.FinalResponse)
	row("Why it ended", h.Message)
	row("Start URL", h.StartURL)
	row("Mode", h.Mode)
	row("Model", h.Model)
	row("Steps", fmt.Sprint(h.Steps))
	row("Tokens", h.TokensText())
	row("Cost", fmt.Sprintf("$%.4f", h.Cost))
	row("Seconds", fmt.Sprintf("%.1f", h.Seconds))
	row("Started", h.StartedAt)
	row("Gate verdict", gateText(h))
	row("Gate label", h.GateLabelText())
	if len(r.Compactions) > 0 {
		row("Compactions", fmt.Sprintf("%d (after steps %s)", len(r.Compactions), compactionSteps(r.Compactions)))
	}
	b.WriteString("\n")
	for _, m := range r.Missing {
		fmt.Fprintf(b, "> **Missing:** %s\n>\n", b.lit(m))
	}
	if len(r.Missing) > 0 {
		b.WriteString("\n")
	}
}

func gateText(h Header) string {
	switch {
	case h.GateVerdict == "":
		return "nothing judged"
	case h.JudgedRun != "":
		return h.GateVerdict + " (judged " + h.JudgedRun + ")"
	}
	return h.GateVerdict
}

func compactionSteps(cs []Compaction) string {
	var s []string
	for _, c := range cs {
		s = append(s, fmt.Sprint(c.Step))
	}
	return strings.Join(s, ", ")
}

// noteMark is the marker a note kind gets in text.
var noteMark = map[string]string{NoteFormatError: "✗ Format error", NoteGateRefusal: "⛔ Done refused",
	NoteEnvError: "✗ Environment error", NoteNotice: "ℹ Notice", NoteOther: "Note"}

func (r *Run) stepMD(b *mdOut, s Step, full bool) {
	title := []string{fmt.Sprintf("Step %d", s.N)}
	if st := s.Status(); st != "" {
		title = append(title, st)
	}
	if s.Elapsed > 0 {
		title = append(title, fmt.Sprintf("%.1fs", s.Elapsed/1000))
	}
	title = append(title, s.TokensText())
	fmt.Fprintf(b, "## %s\n\n", strings.Join(title, " · "))
	if s.Thought != "" {
		fmt.Fprintf(b, "%s\n\n", s.Thought)
	}
	if s.Code != "" {
		lang := "bash"
		if s.Field == "python_code" {
			lang = "python"
		}
		fmt.Fprintf(b, "%s\n\n", fenced(s.Code, lang))
	}
	if s.Done {
		fmt.Fprintf(b, "**Done:** %s\n\n", b.lit(oneLine(s.FinalResponse)))
	}
	if s.ShowRaw() {
		fmt.Fprintf(b, "Model reply:\n\n%s\n\n", fenced(head(s.Raw, 20, 2000), ""))
	}
	if p := s.Page(); p != "" {
		fmt.Fprintf(b, "Page: %s\n\n", b.lit(oneLine(p)))
	}
	if out := s.Output(); out != "" {
		if !full {
			out = head(out, 12, 1500)
		}
		fmt.Fprintf(b, "%s\n\n", fenced(out, "text"))
	}
	for _, p := range s.Screenshots {
		fmt.Fprintf(b, "Screenshot: `%s`\n\n", p)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(b, "> **%s:** %s\n\n", noteMark[n.Kind], b.quoteBody(n.Text))
	}
	if s.Incomplete {
		b.WriteString("> **No result recorded for this step** (the run is in it, or ended in it).\n\n")
	}
	for _, c := range r.Compactions {
		if c.Step == s.N {
			fmt.Fprintf(b, "**⟳ History compacted after this step: %d → %d tokens.**\n\n", c.TokensBefore, c.TokensAfter)
			if full {
				fmt.Fprintf(b, "%s\n\n", b.quote(c.Summary))
			}
		}
	}
}

func (r *Run) finalRunsMD(b *mdOut) {
	if len(r.FinalRuns) == 0 {
		return
	}
	b.WriteString("## Final runs\n\n")
	for _, fr := range r.FinalRuns {
		verdict := fr.Verdict.Label()
		if verdict == "" {
			verdict = "not judged"
		}
		fmt.Fprintf(b, "### run_%d · %s\n\n", fr.N, verdict)
		for _, s := range fr.Screenshots {
			line := "- `" + s + "`"
			if rec := fr.Verdict.Record(s); rec != nil {
				line += fmt.Sprintf(" — score %d: %s", rec.Score, b.lit(oneLine(rec.Reasoning)))
			}
			b.WriteString(line + "\n")
		}
		for _, v := range fr.Videos {
			b.WriteString("- video `" + v + "`\n")
		}
		if fr.Verdict != nil && strings.TrimSpace(fr.Verdict.FinalResponse) != "" {
			fmt.Fprintf(b, "\nThe judge's verdict:\n\n%s\n", b.quote(fr.Verdict.FinalResponse))
		}
		if fr.Trace != "" {
			fmt.Fprintf(b, "\nPlaywright trace: `%s` (npx playwright show-trace)\n", fr.Trace)
		}
		if fr.Log != "" {
			fmt.Fprintf(b, "\nfinal_script_log.txt (last lines):\n\n%s\n", fenced(tail(fr.Log, 8), "text"))
		}
		b.WriteString("\n")
	}
}

func (r *Run) errorsMD(b *mdOut) {
	if len(r.Errors) == 0 {
		return
	}
	b.WriteString("## Runtime errors\n\n")
	for _, e := range r.Errors {
		fmt.Fprintf(b, "- step %d, %s: %s\n", e.Step, e.Kind, b.lit(firstLine(e.Error, 300)))
	}
	b.WriteString("\n")
}

// fenced wraps text in a code fence longer than any backtick run inside it.
func fenced(text, lang string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f
}

// cell makes text safe for one table cell or one line.
// TokensText is the run's token count for a person, by the rule every
// view follows: what the endpoint reported as it is, and wright's estimate
// of the prompts it reported nothing for, marked "est.".
func (h Header) TokensText() string {
	reported := fmt.Sprintf("%d (%d prompt, %d cached)", h.Tokens, h.PromptTokens, h.CachedTokens)
	switch {
	case h.EstimatedPrompt == 0:
		return reported
	case h.Tokens == 0:
		return fmt.Sprintf("~%d prompt tokens est. (the endpoint reported none)", h.EstimatedPrompt)
	}
	return fmt.Sprintf("%s + ~%d prompt tokens est.", reported, h.EstimatedPrompt)
}

// TokensText is a step's prompt for a person: the endpoint's count with
// its cached part, or wright's estimate, marked "est.".
func (s Step) TokensText() string {
	if s.PromptEstimated {
		return fmt.Sprintf("~%d prompt tokens est.", s.Prompt)
	}
	return fmt.Sprintf("%d prompt tokens (%d cached, %d uncached)", s.Prompt, s.Usage.CachedTokens, s.Uncached())
}

// GateLabelText is the gate's label in words: "1 (success)", "0
// (failure)", or "" when the run recorded none.
func (h Header) GateLabelText() string {
	switch {
	case h.GateLabel == nil:
		return ""
	case *h.GateLabel == 1:
		return "1 (success)"
	case *h.GateLabel == 0:
		return "0 (failure)"
	}
	return fmt.Sprint(*h.GateLabel)
}

func cell(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// mdOut builds the Markdown of a view. What the harness, the judge or the
// task wrote is plain text: for the terminal renderer it is escaped, so that
// "final_execution_<n>_<what>.png" is not read as emphasis and a tag; with
// --plain it is printed as it is.
type mdOut struct {
	strings.Builder
	plain bool
}

var mdSpecial = regexp.MustCompile("[\\\\`*_{}\\[\\]<>()#+\\-.!|~]")

// lit is s as literal text.
func (b *mdOut) lit(s string) string {
	if b.plain {
		return s
	}
	return mdSpecial.ReplaceAllString(s, `\$0`)
}

// quoteBody is literal text for a block quote, its lines kept: the
// terminal renderer joins soft and hard breaks alike, so each line is a
// paragraph of the quote there.
func (b *mdOut) quoteBody(s string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		switch {
		case b.plain:
			lines = append(lines, l)
		case strings.TrimSpace(l) != "":
			// Leading spaces would make an indented code block.
			lines = append(lines, b.lit(strings.TrimSpace(l)))
		}
	}
	if b.plain {
		return strings.Join(lines, "\n> ")
	}
	return strings.Join(lines, "\n>\n> ")
}

func (b *mdOut) quote(s string) string { return "> " + b.quoteBody(s) }

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
