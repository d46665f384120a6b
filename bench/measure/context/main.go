// Command context measures what context control buys on long runs. It
// simulates the history of a 100-step workspace run (10k-character command
// outputs) and a 100-step live run (15k-character ARIA snapshots), and
// counts the prompt tokens of every model call under three policies:
//
//   - none:      the history grows without limit;
//   - reference: a summary every 20 calls that keeps only the system message,
//     and pruning of ARIA snapshots only (command outputs stay);
//   - ours:      a summary every 20 calls that keeps system + task + summary,
//     and pruning of ARIA snapshots and command outputs beyond the last
//     keep_last_n_observations (3 workspace, 1 live).
//
// The histories are built with the real templates, compact.Prune,
// compact.Compactor and compact.Tokenizer; only the model is replaced, by a
// client that answers every summary request with a fixed-size text. It
// checks that ours stays flat after the first compaction and never loses the
// task, prints a markdown table (or per-step CSV) and draws a PNG plot.
//
//	go run ./bench/measure/context                     # table, and docs/context-tokens.png
//	go run ./bench/measure/context -csv > tokens.csv   # every step of every policy
//	go run ./bench/measure/context -prefix             # what block pruning leaves to a prompt cache
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"wright/model"
	"wright/run/compact"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.model, "model", "gpt-4.1", "model name that picks the tokenizer")
	flag.IntVar(&cfg.steps, "steps", 100, "model calls per simulated run")
	flag.IntVar(&cfg.every, "every", 20, "summary_every_n_steps")
	flag.IntVar(&cfg.summaryChars, "summary-chars", 3000, "size of the fake summary")
	flag.IntVar(&cfg.outputChars, "output-chars", 10000, "command output per workspace step")
	flag.IntVar(&cfg.ariaChars, "aria-chars", 15000, "ARIA snapshot per live step")
	plotPath := flag.String("plot", filepath.Join("docs", "context-tokens.png"), "PNG to write; empty for none")
	csv := flag.Bool("csv", false, "print every step as CSV instead of the summary table")
	prefix := flag.Bool("prefix", false, "print the reused-prefix table of block pruning (workspace) instead")
	flag.Parse()

	if *prefix {
		if err := prefixTable(cfg, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "context bench:", err)
			os.Exit(1)
		}
		return
	}

	if err := run(cfg, *plotPath, *csv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "context bench:", err)
		os.Exit(1)
	}
}

type config struct {
	model        string
	steps        int
	every        int
	summaryChars int
	outputChars  int
	ariaChars    int
}

func run(cfg config, plotPath string, csv bool, out io.Writer) error {
	if cfg.steps < 1 || cfg.every < 1 {
		return errors.New("-steps and -every must be positive")
	}
	tok := compact.NewTokenizer(cfg.model)
	modes := []mode{workspaceMode(cfg), liveMode(cfg)}
	var results []result
	for _, m := range modes {
		for _, p := range policies(m) {
			r, err := simulate(cfg, m, p, tok)
			if err != nil {
				return fmt.Errorf("%s/%s: %w", m.name, p.name, err)
			}
			results = append(results, r)
		}
	}
	if err := check(cfg, results); err != nil {
		return err
	}
	if csv {
		writeCSV(out, results)
	} else {
		writeTable(out, cfg, results)
		if err := writeInputs(out, cfg, modes, tok); err != nil {
			return err
		}
	}
	if plotPath != "" {
		if err := writePlot(plotPath, cfg, results); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "wrote %s\n", plotPath)
	}
	return nil
}

// policy is one way of controlling the context.
type policy struct {
	name      string
	keepLast  int // compact.Prune's keepLast; 0 = no pruning
	ariaOnly  bool
	keepTask  bool // the compacted history keeps the task message
	summarize bool
}

func policies(m mode) []policy {
	return []policy{
		{name: "none"},
		// The reference prunes ARIA snapshots only. Live observations hold
		// no command output and workspace ones no snapshot, so that is
		// Prune in live mode and nothing in workspace mode.
		{name: "reference", keepLast: m.keepLast, ariaOnly: true, summarize: true},
		{name: "ours", keepLast: m.keepLast, keepTask: true, summarize: true},
	}
}

// result is the prompt size of every call of one simulated run.
type result struct {
	mode, policy  string
	prompt        []int // prompt tokens of call 1..steps
	summaryPrompt []int // prompt tokens of each summary call
	taskKept      []bool
	compactions   []int // steps after which the history was compacted
}

func (r result) total() int {
	n := 0
	for _, p := range r.prompt {
		n += p
	}
	for _, p := range r.summaryPrompt {
		n += p
	}
	return n
}

func (r result) peak() int {
	m := 0
	for _, p := range r.prompt {
		m = max(m, p)
	}
	return m
}

// simulate replays one run: before each call the policy prunes, the prompt
// is counted, then the call's action and its observation are appended; every
// `every` calls the policy compacts.
func simulate(cfg config, m mode, p policy, tok compact.Tokenizer) (result, error) {
	r := result{mode: m.name, policy: p.name}
	hist := []model.Message{
		{Role: model.RoleSystem, Content: m.system},
		{Role: model.RoleUser, Content: m.task},
	}
	c := &compact.Compactor{
		Client:    fakeSummarizer{tok: tok, text: fakeSummary(cfg.summaryChars)},
		Prompt:    m.summaryPrompt,
		Tokenizer: tok,
	}
	render := m.render
	if p.ariaOnly && m.name != "live" {
		render = nil // nothing to prune: see policies
	}
	for step := 1; step <= cfg.steps; step++ {
		if p.keepLast > 0 && render != nil {
			if _, err := compact.Prune(hist, p.keepLast, render); err != nil {
				return r, err
			}
		}
		r.prompt = append(r.prompt, compact.CountMessages(tok, hist))
		r.taskKept = append(r.taskKept, hasTask(hist, m.task))

		hist = append(hist, model.Message{Role: model.RoleAssistant, Content: m.action(step)})
		obs := m.observe(step)
		content, err := m.render(obs)
		if err != nil {
			return r, err
		}
		hist = append(hist, model.Message{Role: model.RoleUser, Content: content, Meta: &model.Meta{Observation: &obs, Step: step}})

		if p.summarize && step%cfg.every == 0 && step < cfg.steps {
			next, rec, err := c.Compact(context.Background(), hist, step)
			if err != nil {
				return r, err
			}
			if !p.keepTask {
				next = []model.Message{next[0], next[2]}
			}
			hist = next
			r.summaryPrompt = append(r.summaryPrompt, rec.Usage.PromptTokens)
			r.compactions = append(r.compactions, step)
		}
	}
	return r, nil
}

// hasTask reports whether the prompt still holds the task, verbatim, as
// its task message.
func hasTask(hist []model.Message, task string) bool {
	return len(hist) > 1 && hist[1].Role == model.RoleUser && hist[1].Content == task
}

// fakeSummarizer stands in for the model on summary calls only: a fixed-size
// summary, and the prompt size it was sent as usage.
type fakeSummarizer struct {
	tok  compact.Tokenizer
	text string
}

func (f fakeSummarizer) Complete(_ context.Context, msgs []model.Message) (model.Reply, error) {
	return model.Reply{
		Content:      f.text,
		FinishReason: "stop",
		Usage:        model.Usage{PromptTokens: compact.CountMessages(f.tok, msgs), CompletionTokens: f.tok.Count(f.text)},
	}, nil
}

// check holds ours to its promises: the task is in every prompt, and after
// the first compaction the prompt size repeats the same saw-tooth instead of
// growing (every window between compactions peaks within 2% of the first).
func check(cfg config, results []result) error {
	for _, r := range results {
		if r.policy != "ours" {
			continue
		}
		for i, kept := range r.taskKept {
			if !kept {
				return fmt.Errorf("%s/ours: the task message is missing from the prompt of call %d", r.mode, i+1)
			}
		}
		if len(r.compactions) == 0 {
			continue
		}
		first := r.compactions[0]
		var peaks []int
		for start := first; start < len(r.prompt); start += cfg.every {
			end := min(start+cfg.every, len(r.prompt))
			if end-start < cfg.every {
				break // a partial last window peaks lower; nothing to compare
			}
			peak := 0
			for _, p := range r.prompt[start:end] {
				peak = max(peak, p)
			}
			peaks = append(peaks, peak)
		}
		for i, pk := range peaks {
			if diff := pk - peaks[0]; diff > peaks[0]/50 || -diff > peaks[0]/50 {
				return fmt.Errorf("%s/ours: not flat after the first compaction: window %d peaks at %d tokens, the first at %d", r.mode, i+1, pk, peaks[0])
			}
		}
	}
	return nil
}

func writeCSV(w io.Writer, results []result) {
	fmt.Fprintln(w, "mode,policy,step,prompt_tokens,task_in_prompt")
	for _, r := range results {
		for i, p := range r.prompt {
			fmt.Fprintf(w, "%s,%s,%d,%d,%t\n", r.mode, r.policy, i+1, p, r.taskKept[i])
		}
	}
}

func writeTable(w io.Writer, cfg config, results []result) {
	cols := []int{1, 10, cfg.every, cfg.every + 1, cfg.steps / 2, cfg.steps}
	var head strings.Builder
	head.WriteString("| mode | policy |")
	for _, c := range cols {
		fmt.Fprintf(&head, " call %d |", c)
	}
	head.WriteString(" peak | all calls + summaries | task in every prompt |")
	fmt.Fprintln(w, head.String())
	fmt.Fprintln(w, "|"+strings.Repeat(" --- |", len(cols)+5))
	for _, r := range results {
		var row strings.Builder
		fmt.Fprintf(&row, "| %s | %s |", r.mode, r.policy)
		for _, c := range cols {
			if c >= 1 && c <= len(r.prompt) {
				fmt.Fprintf(&row, " %s |", thousands(r.prompt[c-1]))
			} else {
				row.WriteString(" - |")
			}
		}
		kept := "yes"
		for i, k := range r.taskKept {
			if !k {
				kept = fmt.Sprintf("no (lost at call %d)", i+1)
				break
			}
		}
		fmt.Fprintf(&row, " %s | %s | %s |", thousands(r.peak()), thousands(r.total()), kept)
		fmt.Fprintln(w, row.String())
	}
}

// writeInputs lists what the histories are made of, in tokens, so the
// table can be checked by hand.
func writeInputs(w io.Writer, cfg config, modes []mode, tok compact.Tokenizer) error {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| mode | system | task | action | observation | pruned observation | summary message |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- |")
	for _, m := range modes {
		full, err := m.render(m.observe(1))
		if err != nil {
			return err
		}
		two := []model.Message{
			{Role: model.RoleUser, Content: full, Meta: &model.Meta{Observation: ptr(m.observe(1))}},
			{Role: model.RoleUser, Content: full, Meta: &model.Meta{Observation: ptr(m.observe(1))}},
		}
		if _, err := compact.Prune(two, 1, m.render); err != nil {
			return err
		}
		summary := compact.SummaryContent(cfg.every, fakeSummary(cfg.summaryChars))
		cell := func(s string) string {
			return fmt.Sprintf("%s chars, %s tokens", thousands(len(s)), thousands(tok.Count(s)))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", m.name, cell(m.system), cell(m.task), cell(m.action(1)), cell(full), cell(two[0].Content), cell(summary))
	}
	return nil
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }
