// Command prompts measures what a provider's prompt cache could serve on a
// long live run, and how big the observations are. It runs one scripted
// 40-step task (fills, clicks, checks, selects, two navigations) on the
// cypress kitchensink actions page through the real harness (a live
// Chromium, the Python runner, the templates, pruning and compaction),
// with the model replaced by a scripted HTTP server that speaks the chat
// completions wire format and records every request. For each arm (an
// env.aria_snapshot mode and an agent.prune_block) it prints:
//
//   - prompt chars: the characters of every request's messages, summed;
//   - prefix share: of those, the share that is a prefix of the request
//     before (what a prompt cache can serve), compaction calls included;
//   - observation chars on the steps that did not navigate, and their
//     ratio to the full arm's.
//
// usage (the pages come from npm; bench/measure/prompts/run.sh installs them):
//
//	go run ./bench/measure/prompts -site DIR     # DIR: cypress-example-kitchensink/app
//	go run ./bench/measure/prompts -site DIR -arms full:1,changes:5 -json
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"wright/run/config"
	"wright/run/harness"
)

const summaryText = "Browser state: one tab, the kitchensink actions page.\n" +
	"Progress: filled the email, focus, blur and clear fields, submitted the coupon form, clicked the buttons and the canvas, " +
	"checked and unchecked boxes and radios, chose apples and bananas; visited the querying page and came back.\n" +
	"What works: CSS locators on the page's action-* classes.\nDead ends: none.\nNext steps: the remaining fields and checks."

type arm struct {
	mode  string
	block int
}

func (a arm) String() string { return fmt.Sprintf("%s, prune_block %d", a.mode, a.block) }

func parseArms(s string) ([]arm, error) {
	var arms []arm
	for _, part := range strings.Split(s, ",") {
		mode, block, ok := strings.Cut(strings.TrimSpace(part), ":")
		n, err := strconv.Atoi(block)
		if !ok || err != nil || n < 1 || (mode != "full" && mode != "changes") {
			return nil, fmt.Errorf("arm %q: want full:N or changes:N (N the prune block, 1 or more)", part)
		}
		arms = append(arms, arm{mode, n})
	}
	return arms, nil
}

func main() {
	site := flag.String("site", os.Getenv("PROMPTS_SITE"), "the kitchensink app directory (cypress-example-kitchensink/app)")
	armsFlag := flag.String("arms", "full:1,full:5,changes:1,changes:5,changes:10", "arms to run: mode:prune_block, comma-separated")
	asJSON := flag.Bool("json", false, "also print one JSON object per arm (every request's and observation's figures) before the table")
	keep := flag.String("keep", "", "keep the run directories here (default: a temporary directory, removed)")
	flag.Parse()
	arms, err := parseArms(*armsFlag)
	if err == nil && *site == "" {
		err = errors.New("-site is required: the kitchensink app directory (bench/measure/prompts/run.sh installs it)")
	}
	if err == nil {
		// An interrupt ends the run in hand the way wright's own does:
		// the harness closes its browser and runner before run returns.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = run(ctx, *site, arms, *keep, *asJSON, os.Stdout)
		stop()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "prompts bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, site string, arms []arm, keep string, asJSON bool, w io.Writer) error {
	if _, err := os.Stat(filepath.Join(site, "commands", "actions.html")); err != nil {
		return fmt.Errorf("site: %w", err)
	}
	pages, err := serve(http.FileServer(http.Dir(site)))
	if err != nil {
		return err
	}
	defer pages.Close()
	out := keep
	if out == "" {
		if out, err = os.MkdirTemp("", "wright-prompts-"); err != nil {
			return err
		}
		defer os.RemoveAll(out)
	}
	base := "http://" + pages.Addr().String()
	var results []result
	for _, a := range arms {
		r, err := runArm(ctx, a, base, filepath.Join(out, fmt.Sprintf("%s_%d", a.mode, a.block)))
		if err != nil {
			return fmt.Errorf("%s: %w", a, err)
		}
		results = append(results, r)
		if asJSON {
			b, _ := json.Marshal(r)
			fmt.Fprintln(w, string(b))
		}
	}
	table(w, results)
	return nil
}

// server is an HTTP server on a free loopback port, ended by Close.
type server struct {
	ln  net.Listener
	srv *http.Server
	wg  sync.WaitGroup
}

func serve(h http.Handler) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	s := &server{ln: ln, srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}}
	s.wg.Add(1)
	go func() { defer s.wg.Done(); _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *server) Addr() net.Addr { return s.ln.Addr() }
func (s *server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	s.wg.Wait()
}

// scripted answers chat completion requests from the step script, and a
// summary whenever the loop asks for one; it keeps every request's
// messages as sent.
type scripted struct {
	mu       sync.Mutex
	steps    []string
	next     int
	requests [][]message
	err      error
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text is the message's text: a string content, or its text parts.
func (m message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(m.Content, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []message `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req.Messages)
	last := req.Messages[len(req.Messages)-1].text()
	var content string
	switch {
	case strings.Contains(last, "the conversation is about to be shortened"):
		content = summaryText
	case s.next < len(s.steps):
		b, _ := json.Marshal(map[string]any{"thought": fmt.Sprintf("Step %d of the script.", s.next+1),
			"python_code": s.steps[s.next], "done": false, "final_response": ""})
		content = string(b)
		s.next++
	default:
		b, _ := json.Marshal(map[string]any{"thought": "The script is done.", "python_code": "", "done": true, "final_response": "done"})
		content = string(b)
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "scripted", "object": "chat.completion", "model": "scripted", "created": time.Now().Unix(),
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
	})
}

func runArm(ctx context.Context, a arm, base, dir string) (result, error) {
	steps := script(base)
	model := &scripted{steps: steps}
	endpoint, err := serve(model)
	if err != nil {
		return result{}, err
	}
	defer endpoint.Close()
	cfg, err := config.Load([]string{"local_browser"}, map[string]any{
		"model.name":                  "scripted",
		"model.base_url":              "http://" + endpoint.Addr().String() + "/v1",
		"model.api_key_env":           "WRIGHT_PROMPTS_BENCH_KEY",
		"agent.step_limit":            len(steps),
		"agent.summary_every_n_steps": 20,
		"agent.prune_block":           a.block,
		"env.aria_snapshot":           a.mode,
		"env.sandbox":                 "none",
		"browser.headless":            true,
	})
	if err != nil {
		return result{}, err
	}
	os.Setenv("WRIGHT_PROMPTS_BENCH_KEY", "not-a-key")
	h, err := harness.Build(cfg, harness.Options{RunDir: dir})
	if err != nil {
		return result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	res, err := h.Run(ctx, harness.Task{ID: "kitchensink", Text: "Work through the form controls of the kitchensink actions page.",
		StartURL: base + "/commands/actions.html"})
	if err != nil {
		return result{}, err
	}
	if ctx.Err() != nil {
		return result{}, fmt.Errorf("interrupted: %w", ctx.Err())
	}
	r, err := measure(a, model.requests, dir)
	r.Exit = string(res.ExitStatus)
	return r, err
}
