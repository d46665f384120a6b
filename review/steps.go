package review

// Reading the steps, compactions, runtime errors and final runs of a run.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// readSteps builds one Step per model call: debug/steps/step_NNNN.json where
// it was written, the trajectory's assistant message where it was not (a
// crash, or a step still running).
func (r *Run) readSteps(traj *trajectory) {
	byN := map[int]*Step{}
	for _, f := range Glob(r.Dir, "debug/steps/step_*.json") {
		var s stepFile
		rel := "debug/steps/" + filepath.Base(f)
		if !r.readJSON(rel, &s, "") {
			continue
		}
		st := &Step{N: s.Step, Thought: s.Thought, Field: s.Field, Code: s.Code, Done: s.Done,
			FinalResponse: s.FinalResponse, Observation: s.Observation, Usage: s.Usage, Prompt: s.PromptTokens}
		for _, n := range s.Notes {
			st.Notes = append(st.Notes, classify(n))
		}
		st.Elapsed = number(s.Observation["elapsed_ms"])
		if p := r.relPath(str(s.Observation["screenshot_path"])); p != "" {
			st.Screenshots = []string{p}
		}
		for _, p := range strings.Split(text(s.Observation["recent_screenshots"]), "\n") {
			// A final run's screenshots are shown with its verdict.
			if p = r.relPath(p); p != "" && !strings.HasPrefix(p, "workspace/final_runs/") {
				st.Screenshots = append(st.Screenshots, p)
			}
		}
		byN[s.Step] = st
	}
	if traj != nil {
		r.mergeTrajectory(traj, byN)
	}
	r.mergeRawResponses(byN)
	for n, st := range byN {
		if st.Incomplete {
			st.Partial = r.readText(fmt.Sprintf("workspace/logs/step_%04d.log", n))
		}
	}
	for _, s := range byN {
		// The loop falls back on its own count when the endpoint reports
		// no usage: a prompt with no reported prompt tokens is that.
		s.PromptEstimated = s.Prompt > 0 && s.Usage.PromptTokens == 0
		r.Steps = append(r.Steps, *s)
	}
	sort.Slice(r.Steps, func(i, j int) bool { return r.Steps[i].N < r.Steps[j].N })
	// recent_screenshots lists the newest files of the workspace at every
	// step: a step shows the ones no earlier step showed.
	seen := map[string]bool{}
	for i := range r.Steps {
		var fresh []string
		for _, p := range r.Steps[i].Screenshots {
			if !seen[p] {
				seen[p] = true
				fresh = append(fresh, p)
			}
		}
		r.Steps[i].Screenshots = fresh
	}
}

func (r *Run) mergeTrajectory(traj *trajectory, byN map[int]*Step) {
	for _, m := range traj.Messages {
		n := int(number(m.Extra["step"]))
		switch {
		case m.Role == "assistant" && n > 0 && byN[n] == nil:
			st := incompleteStep(n, m.Content, m.Extra["usage"])
			st.Prompt = int(number(m.Extra["prompt_tokens"]))
			byN[n] = st
		case m.Role == "user" && m.Extra["interrupt_type"] == "SystemNotice" && byN[n] != nil:
			byN[n].Notes = append(byN[n].Notes, Note{Kind: NoteNotice, Text: strings.TrimPrefix(m.Content, "[notice] ")})
		}
	}
}

// mergeRawResponses adds the steps only raw_responses.jsonl knows: the
// trajectory is saved after a step, so a run killed in the middle of one
// has its reply there and nowhere else.
func (r *Run) mergeRawResponses(byN map[int]*Step) {
	readJSONL(r.Dir, "raw_responses.jsonl", func(b []byte) {
		var line struct {
			Step    int    `json:"step"`
			Content string `json:"content"`
			Usage   any    `json:"usage"`
		}
		if json.Unmarshal(b, &line) != nil || line.Step <= 0 {
			return
		}
		switch st := byN[line.Step]; {
		case st == nil:
			byN[line.Step] = incompleteStep(line.Step, line.Content, line.Usage)
		case st.hasNote(NoteFormatError) && st.Raw == "":
			// A reply the loop could not use: what the model said is the
			// step, since there is no action to show.
			st.Raw = line.Content
		}
	})
}

func (s *Step) hasNote(kind string) bool {
	for _, n := range s.Notes {
		if n.Kind == kind {
			return true
		}
	}
	return false
}

// ShowRaw reports a step whose model reply is shown as it came: one known
// only from the reply, or one the loop refused as a format error.
func (s Step) ShowRaw() bool {
	return s.Raw != "" && s.Code == "" && (s.Incomplete && s.Thought == "" || s.hasNote(NoteFormatError))
}

// incompleteStep is a step known only from the model's reply.
func incompleteStep(n int, content string, usage any) *Step {
	st := &Step{N: n, Raw: content, Incomplete: true}
	if u, ok := usage.(map[string]any); ok {
		st.Usage = Usage{PromptTokens: int(number(u["prompt_tokens"])), CompletionTokens: int(number(u["completion_tokens"])),
			TotalTokens: int(number(u["total_tokens"])), CachedTokens: int(number(u["cached_tokens"])),
			CacheWriteTokens: int(number(u["cache_write_tokens"])), Cost: number(u["cost"])}
		st.Prompt = st.Usage.PromptTokens
	}
	if a, ok := parseReply(content); ok {
		st.Thought, st.Done, st.FinalResponse = a.Thought, a.Done, a.FinalResponse
		st.Field, st.Code = fieldBash, a.Bash
		if a.Python != "" {
			st.Field, st.Code = fieldPython, a.Python
		}
	}
	return st
}

type reply struct {
	Thought       string `json:"thought"`
	Bash          string `json:"bash_command"`
	Python        string `json:"python_code"`
	Done          bool   `json:"done"`
	FinalResponse string `json:"final_response"`
}

// parseReply reads the action in a model's reply for display: the reply
// itself, or the outermost {...} in it (a code fence, prose around it).
// The loop's own parser decided what the reply meant; this only shows it.
func parseReply(content string) (reply, bool) {
	var a reply
	if json.Unmarshal([]byte(content), &a) == nil && a.Thought != "" {
		return a, true
	}
	i, j := strings.Index(content, "{"), strings.LastIndex(content, "}")
	if i < 0 || j <= i {
		return a, false
	}
	err := json.Unmarshal([]byte(content[i:j+1]), &a)
	return a, err == nil && a.Thought != ""
}

// classify names a note by the words the harness starts it with.
func classify(text string) Note {
	for prefix, kind := range map[string]string{"Format error: ": NoteFormatError, "Done refused: ": NoteGateRefusal,
		"Environment error: ": NoteEnvError} {
		if rest, ok := strings.CutPrefix(text, prefix); ok {
			return Note{Kind: kind, Text: rest}
		}
	}
	return Note{Kind: NoteOther, Text: text}
}

// relPath turns a path the run recorded (absolute, from the machine and
// directory the run was made in) into one relative to this run directory,
// when the file is here.
func (r *Run) relPath(p string) string {
	if p == "" {
		return ""
	}
	p = filepath.ToSlash(p)
	var cands []string
	if !strings.HasPrefix(p, "/") {
		cands = append(cands, p, "workspace/"+p)
	}
	if i := strings.LastIndex(p, "/workspace/"); i >= 0 {
		cands = append(cands, p[i+1:])
	}
	for _, c := range cands {
		if _, err := Stat(r.Dir, c); err == nil {
			return c
		}
	}
	return ""
}

func (r *Run) readCompactions() {
	readJSONL(r.Dir, "compactions.jsonl", func(b []byte) {
		var c Compaction
		if json.Unmarshal(b, &c) == nil {
			r.Compactions = append(r.Compactions, c)
		}
	})
	for _, c := range r.Compactions {
		for i := range r.Steps {
			if r.Steps[i].N == c.Step {
				r.Steps[i].Compacted = true
			}
		}
	}
}

func (r *Run) readErrors() {
	readJSONL(r.Dir, "runtime_errors.jsonl", func(b []byte) {
		var e RuntimeError
		if json.Unmarshal(b, &e) == nil {
			e.Error = plainError(e.Error)
			r.Errors = append(r.Errors, e)
		}
	})
}

// goWords are Go's error texts a reader should not have to know, in words.
var goWords = strings.NewReplacer(
	"context canceled", "interrupted (Ctrl-C or SIGTERM)",
	"context deadline exceeded", "timed out",
)

// plainError says an error from the run's files in words: a run stopped by
// Ctrl-C reads as interrupted, not as Go's "context canceled".
func plainError(s string) string { return goWords.Replace(s) }

// readJSONL calls fn for each line; a half-written last line is skipped.
func readJSONL(dir, rel string, fn func([]byte)) {
	f, err := Open(dir, rel)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		if line := sc.Bytes(); len(strings.TrimSpace(string(line))) > 0 {
			fn(line)
		}
	}
}

var runNumber = regexp.MustCompile(`^run_(\d+)$`)

func (r *Run) readFinalRuns() {
	dirs, _ := ReadDir(r.Dir, "workspace/final_runs")
	for _, d := range dirs {
		m := runNumber.FindStringSubmatch(d.Name())
		if !d.IsDir() || m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		rel := "workspace/final_runs/" + d.Name()
		fr := FinalRun{N: n, Dir: rel, Log: r.readText(rel + "/final_script_log.txt"), Script: r.readText(rel + "/final_script.py")}
		shots, _ := ReadDir(r.Dir, rel+"/screenshots")
		for _, s := range shots {
			if ext := strings.ToLower(filepath.Ext(s.Name())); !s.IsDir() && (ext == ".png" || ext == ".jpg" || ext == ".jpeg") {
				fr.Screenshots = append(fr.Screenshots, rel+"/screenshots/"+s.Name())
			}
		}
		sort.Slice(fr.Screenshots, func(i, j int) bool { return naturalLess(fr.Screenshots[i], fr.Screenshots[j]) })
		// The trace the gate's run recorded: a plain file in the folder only,
		// never a link the model planted there.
		if fi, err := Stat(r.Dir, rel+"/trace.zip"); err == nil && fi.Mode().IsRegular() {
			fr.Trace = rel + "/trace.zip"
		}
		fr.Videos = r.finalVideos(rel)
		var v Verdict
		if _, err := Stat(r.Dir, rel+"/self_reflect_result.json"); err == nil && r.readJSON(rel+"/self_reflect_result.json", &v, "") {
			fr.Verdict = &v
		}
		r.FinalRuns = append(r.FinalRuns, fr)
	}
	sort.Slice(r.FinalRuns, func(i, j int) bool { return r.FinalRuns[i].N < r.FinalRuns[j].N })
}

// finalVideos lists a final run's videos: the regular .webm files of its
// video/ folder, oldest first (the order the script opened its pages).
func (r *Run) finalVideos(rel string) []string {
	entries, _ := ReadDir(r.Dir, rel+"/video")
	type video struct {
		rel string
		mod time.Time
	}
	var vs []video
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.ToLower(filepath.Ext(e.Name())) != ".webm" {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		vs = append(vs, video{rel + "/video/" + e.Name(), fi.ModTime()})
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].mod.Before(vs[j].mod) })
	var out []string
	for _, v := range vs {
		out = append(out, v.rel)
	}
	return out
}

var digits = regexp.MustCompile(`\d+`)

// naturalLess orders final_execution_2 before final_execution_10.
func naturalLess(a, b string) bool {
	pad := func(s string) string {
		return digits.ReplaceAllStringFunc(s, func(d string) string { return fmt.Sprintf("%012s", d) })
	}
	return pad(a) < pad(b)
}
