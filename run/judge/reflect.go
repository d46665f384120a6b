package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"wright/internal/atomicfile"
	"wright/internal/clip"
	"wright/model"
	"wright/run/gate"
	"wright/run/output"
)

// ErrNothingToJudge marks a problem with the material to be judged (no
// run folder, no screenshots, an image that is missing or not PNG/JPEG):
// the script's fault, not the judge's. It is the gate's own, so the rerun
// gate can tell it apart.
var ErrNothingToJudge = gate.ErrNothingToJudge

// ErrInvalidResult marks a run whose result.json breaks the output schema:
// no judge call is spent on a result that cannot be accepted.
var ErrInvalidResult = errors.New("the run's result breaks the output schema")

// ReflectOptions say what `wright reflect` judges and how.
type ReflectOptions struct {
	// Workspace is the model's working directory; relative image paths and
	// RunsDir are resolved against it. Required.
	Workspace string
	// RunsDir holds the run_<N> folders; relative to Workspace. Default
	// final_runs.
	RunsDir string
	// RunDir, when set, is the one run folder to judge (the rerun gate
	// names the run it just made). Relative to Workspace.
	RunDir string
	// Images, when set, are judged instead of a run's screenshots; they
	// override the config's images. Relative to Workspace.
	Images []string
	// Prompts are the judge's texts; zero fields take the built-in ones.
	Prompts Prompts
	// ConfigImages are the images listed in self_reflect_config.json.
	ConfigImages []string
	// Model and Endpoint are recorded in the result; the client does the
	// talking.
	Model, Endpoint string
	// MaxParseRetries is how often an unreadable stage-1 answer is asked
	// again before it is recorded as ParseFailed. Default 3; negative
	// means no retry.
	MaxParseRetries int
	// Concurrency bounds the stage-1 calls in flight. Default 4.
	Concurrency int
	// MaxLogChars caps the log put into the final prompt (head and tail
	// kept). Default 30000.
	MaxLogChars int
	// Output, when set, is where the result JSON is written (relative to
	// the process's working directory).
	Output string
	// AgentNotes, when set, is text the judged agent wrote (see
	// AgentNotes()); it reaches the judge inside the user messages as
	// labelled untrusted data, never as instructions.
	AgentNotes string
	// Schema, when set, is the run's output schema: a run folder whose
	// result.json does not satisfy it is not judged (ErrInvalidResult).
	Schema *output.Schema
	// Warn receives notes for the person or model running the judge (a
	// fallback to an older run, a missing log). May be nil.
	Warn func(string)
}

// ImageRecord is stage 1's verdict on one screenshot. The capitalised JSON
// names are the ones self_reflect_result.json readers already know.
type ImageRecord struct {
	ImagePath   string `json:"image_path"`
	Score       int    `json:"Score"`
	Reasoning   string `json:"Reasoning"`
	Response    string `json:"Response"`
	Attempts    int    `json:"Attempts"`
	ParseFailed bool   `json:"ParseFailed"`
}

// ReflectResult is self_reflect_result.json.
type ReflectResult struct {
	Model    string `json:"model"`
	Endpoint string `json:"endpoint"`
	// PredictedLabel is 1 (success), 0 (failure) or nil (the judge gave no
	// readable Status line).
	PredictedLabel *int   `json:"predicted_label"`
	FinalResponse  string `json:"final_response"`
	FinalUserText  string `json:"final_user_text"`
	FinalSystemMsg string `json:"final_system_msg"`
	// ImagePaths are relative to the workspace when inside it.
	ImagePaths   []string      `json:"image_paths"`
	ImageRecords []ImageRecord `json:"image_records"`
	// RunDir is the run folder judged (relative to the workspace), empty
	// when the images came from elsewhere.
	RunDir string      `json:"run_dir,omitempty"`
	Usage  model.Usage `json:"usage"`
}

// Success reports a verdict of success.
func (r *ReflectResult) Success() bool {
	return r != nil && r.PredictedLabel != nil && *r.PredictedLabel == 1
}

// Reflect runs the two-stage screenshot judge. It returns an error when
// there is nothing to judge, the configuration is wrong (a *ConfigError) or
// the model cannot be reached; a judge that answers, whatever it answers,
// gives a result. When opts.Output is set the result is written there.
func Reflect(ctx context.Context, client model.Client, opts ReflectOptions) (*ReflectResult, error) {
	if client == nil {
		return nil, errors.New("reflect: no model client")
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	ws := opts.Workspace
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}

	runDir, images, err := pickImages(opts, warn)
	if err != nil {
		return nil, err
	}
	if err := checkResult(opts.Schema, ws, runDir); err != nil {
		return nil, err
	}
	for _, img := range images {
		if err := checkImage(img); err != nil {
			return nil, fmt.Errorf("reflect: %w", err)
		}
	}
	task := readTask(ws)
	logText := readRunLog(ws, runDir, opts.MaxLogChars, warn)

	res := &ReflectResult{
		Model:        opts.Model,
		Endpoint:     opts.Endpoint,
		ImagePaths:   make([]string, len(images)),
		ImageRecords: make([]ImageRecord, len(images)),
	}
	if runDir != "" {
		res.RunDir = gate.RelToWorkspace(ws, runDir)
	}
	for i, img := range images {
		res.ImagePaths[i] = gate.RelToWorkspace(ws, img)
	}

	usage, err := judgeImages(ctx, client, opts, task, images, res)
	res.Usage = usage
	if err != nil {
		return nil, err
	}

	vars := map[string]string{
		"task":               task,
		"action_history_log": logText,
		"image_reasonings":   formatReasonings(res.ImageRecords),
		"image_count":        strconv.Itoa(len(images)),
	}
	// Errors are impossible here: validate filled the same keys.
	res.FinalSystemMsg, _ = FillPrompt(opts.Prompts.FinalVerdictSystem, vars)
	res.FinalUserText, _ = FillPrompt(opts.Prompts.FinalVerdictUser, vars)
	res.FinalUserText += untrustedBlock(opts.AgentNotes)
	res.FinalUserText += resultForJudge(runDir, opts.MaxLogChars)
	reply, err := client.Complete(ctx, []model.Message{
		{Role: model.RoleSystem, Content: res.FinalSystemMsg},
		{Role: model.RoleUser, Content: res.FinalUserText, Images: images},
	})
	if err != nil {
		return nil, fmt.Errorf("reflect: final verdict: %w", err)
	}
	res.Usage = res.Usage.Add(reply.Usage)
	res.FinalResponse = reply.Content
	res.PredictedLabel = ParseStatus(reply.Content)

	if opts.Output != "" {
		if err := WriteResult(opts.Output, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// withDefaults checks the options and fills in the defaults: an absolute
// workspace that exists, the built-in prompts for any left empty, retries,
// concurrency and the log budget.
func (opts ReflectOptions) withDefaults() (ReflectOptions, error) {
	if opts.Workspace == "" {
		return opts, configErrorf("reflect: no workspace directory given")
	}
	ws, err := filepath.Abs(opts.Workspace)
	if err != nil {
		return opts, configErrorf("reflect: workspace: %w", err)
	}
	if st, err := os.Stat(ws); err != nil || !st.IsDir() {
		return opts, configErrorf("reflect: workspace %s is not a directory", opts.Workspace)
	}
	opts.Workspace = ws
	opts.Prompts = opts.Prompts.withDefaults()
	if err := opts.Prompts.validate(); err != nil {
		return opts, &ConfigError{Err: fmt.Errorf("reflect: %w", err)}
	}
	if opts.MaxParseRetries == 0 {
		opts.MaxParseRetries = 3
	}
	opts.MaxParseRetries = max(opts.MaxParseRetries, 0)
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.MaxLogChars <= 0 {
		opts.MaxLogChars = 30000
	}
	return opts, nil
}

func (p Prompts) withDefaults() Prompts {
	d := DefaultPrompts()
	for _, f := range []struct{ v, def *string }{
		{&p.ImageJudgeSystem, &d.ImageJudgeSystem},
		{&p.ImageJudgeUser, &d.ImageJudgeUser},
		{&p.FinalVerdictSystem, &d.FinalVerdictSystem},
		{&p.FinalVerdictUser, &d.FinalVerdictUser},
	} {
		if strings.TrimSpace(*f.v) == "" {
			*f.v = *f.def
		}
	}
	return p
}

// pickImages decides which run folder and which images are judged: the
// named run folder; else images given explicitly (the run folder then only
// supplies the log); else the newest run folder that has screenshots.
func pickImages(opts ReflectOptions, warn func(string)) (runDir string, images []string, err error) {
	ws := opts.Workspace
	runsDir := opts.RunsDir
	if runsDir == "" {
		runsDir = gate.FinalRunsDir
	}
	runsDir = resolveIn(ws, runsDir)
	explicit := opts.Images
	if len(explicit) == 0 {
		explicit = opts.ConfigImages
	}
	for _, p := range explicit {
		images = append(images, resolveIn(ws, p))
	}

	if opts.RunDir != "" {
		runDir = resolveIn(ws, opts.RunDir)
		if st, err := os.Stat(runDir); err != nil || !st.IsDir() {
			return "", nil, configErrorf("reflect: run folder %s does not exist", opts.RunDir)
		}
		if len(images) == 0 {
			images, err = gate.RunScreenshots(runDir)
			if err != nil {
				return "", nil, fmt.Errorf("reflect: %w", err)
			}
			if len(images) == 0 {
				return "", nil, fmt.Errorf("reflect: %w: %s holds no screenshots (.png/.jpg in the folder or its %s/ subfolder); the script must save them into $RUN_DIR/%s/ as final_execution_<n>_<what>.png", ErrNothingToJudge, gate.RelToWorkspace(ws, runDir), gate.ScreenshotsDir, gate.ScreenshotsDir)
			}
		}
		return runDir, images, nil
	}

	newest, ok, err := gate.NewestRun(runsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("reflect: %w", err)
	}
	if len(images) > 0 {
		if ok {
			runDir = newest.Path
		}
		return runDir, images, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, fmt.Errorf("reflect: %w: %s does not exist: run final_script.py into %s/run_1 first, saving screenshots into $RUN_DIR/%s/", ErrNothingToJudge, gate.RelToWorkspace(ws, runsDir), gate.RelToWorkspace(ws, runsDir), gate.ScreenshotsDir)
	}
	run, shots, found, err := gate.NewestRunWithScreenshots(runsDir)
	if err != nil {
		return "", nil, fmt.Errorf("reflect: %w", err)
	}
	if !found {
		return "", nil, fmt.Errorf("reflect: %w: no run folder under %s holds screenshots; the script must save them into $RUN_DIR/%s/ as final_execution_<n>_<what>.png", ErrNothingToJudge, gate.RelToWorkspace(ws, runsDir), gate.ScreenshotsDir)
	}
	if run.N != newest.N || run.Name != newest.Name {
		warn(fmt.Sprintf("the newest run %s has no screenshots; judging %s, the newest run that has some (the gate only accepts a verdict on the newest run)", newest.Name, run.Name))
	}
	return run.Path, shots, nil
}

func resolveIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// checkImage refuses a missing file or one that is not PNG or JPEG before
// any model call is spent on it.
func checkImage(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrNothingToJudge, err)
	}
	defer f.Close()
	head := make([]byte, 8)
	n, _ := f.Read(head)
	head = head[:n]
	if bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")) || bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}) {
		return nil
	}
	return fmt.Errorf("%w: %s is not a PNG or JPEG file", ErrNothingToJudge, path)
}

// readTask returns task.json for the {task} placeholder, indented when it
// is JSON, so the judge knows what success means.
func readTask(ws string) string {
	data, err := os.ReadFile(filepath.Join(ws, "task.json"))
	if err != nil {
		return "(task.json is missing from the workspace: judge against what the log says the script set out to do)"
	}
	var buf bytes.Buffer
	if json.Indent(&buf, data, "", "  ") == nil {
		data = buf.Bytes()
	}
	return clip.Thirds(strings.TrimSpace(string(data)), 8000)
}

func readRunLog(ws, runDir string, limit int, warn func(string)) string {
	if runDir == "" {
		return "(no run folder: there is no final_script_log.txt)"
	}
	data, err := os.ReadFile(filepath.Join(runDir, gate.FinalLogName))
	if err != nil {
		warn(fmt.Sprintf("%s has no %s; the judge will see no log", gate.RelToWorkspace(ws, runDir), gate.FinalLogName))
		return fmt.Sprintf("(%s is missing from %s)", gate.FinalLogName, gate.RelToWorkspace(ws, runDir))
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "(the log is empty: the script printed nothing)"
	}
	return clip.Thirds(string(data), limit)
}

// judgeImages runs stage 1 on every image with at most opts.Concurrency
// calls in flight. A model error cancels the others and is returned.
func judgeImages(ctx context.Context, client model.Client, opts ReflectOptions, task string, images []string, res *ReflectResult) (model.Usage, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		total    model.Usage
		firstErr error
	)
	sem := make(chan struct{}, opts.Concurrency)
	for i, img := range images {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rec, usage, err := judgeImage(ctx, client, opts, task, i, len(images), img)
			rec.ImagePath = res.ImagePaths[i]
			mu.Lock()
			defer mu.Unlock()
			total = total.Add(usage)
			res.ImageRecords[i] = rec
			if err != nil && firstErr == nil {
				firstErr = fmt.Errorf("reflect: judge %s: %w", res.ImagePaths[i], err)
				cancel()
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = fmt.Errorf("reflect: %w", context.Cause(ctx))
	}
	return total, firstErr
}

func judgeImage(ctx context.Context, client model.Client, opts ReflectOptions, task string, i, count int, img string) (ImageRecord, model.Usage, error) {
	vars := map[string]string{
		"task":        task,
		"image_index": strconv.Itoa(i + 1),
		"image_count": strconv.Itoa(count),
		"image_name":  filepath.Base(img),
		"image_path":  gate.RelToWorkspace(opts.Workspace, img),
	}
	system, _ := FillPrompt(opts.Prompts.ImageJudgeSystem, vars)
	user, _ := FillPrompt(opts.Prompts.ImageJudgeUser, vars)
	user += untrustedBlock(opts.AgentNotes)
	msgs := []model.Message{
		{Role: model.RoleSystem, Content: system},
		{Role: model.RoleUser, Content: user, Images: []string{img}},
	}
	var (
		rec   ImageRecord
		usage model.Usage
	)
	for attempt := 1; attempt <= 1+opts.MaxParseRetries; attempt++ {
		reply, err := client.Complete(ctx, msgs)
		if err != nil {
			return rec, usage, err
		}
		usage = usage.Add(reply.Usage)
		rec.Attempts, rec.Response = attempt, reply.Content
		score, reasoning, perr := ParseScore(reply.Content)
		if perr == nil {
			rec.Score, rec.Reasoning, rec.ParseFailed = score, reasoning, false
			return rec, usage, nil
		}
		rec.ParseFailed, rec.Reasoning = true, "unreadable answer: "+perr.Error()
		// Show the judge its own answer and what was wrong with it: a
		// plain resend tends to get the same shape back.
		msgs = append(msgs[:2:2],
			model.Message{Role: model.RoleAssistant, Content: reply.Content},
			model.Message{Role: model.RoleUser, Content: "Your answer could not be read (" + perr.Error() + "). Answer again in exactly this form:\nScore: <a whole number from 1 to 5>\nReasoning: <what you see in the screenshot that justifies the score>"},
		)
	}
	rec.Score = 0
	return rec, usage, nil
}

// formatReasonings is the {image_reasonings} text of the final prompt.
func formatReasonings(recs []ImageRecord) string {
	var b strings.Builder
	for i, r := range recs {
		if i > 0 {
			b.WriteString("\n")
		}
		if r.ParseFailed {
			fmt.Fprintf(&b, "Screenshot %d (%s): score 0 - the reviewer's answer could not be read after %d attempts; judge this screenshot yourself.\n", i+1, filepath.Base(r.ImagePath), r.Attempts)
			continue
		}
		fmt.Fprintf(&b, "Screenshot %d (%s): score %d/5\n%s\n", i+1, filepath.Base(r.ImagePath), r.Score, r.Reasoning)
	}
	return strings.TrimRight(b.String(), "\n")
}

// WriteResult writes a verdict file atomically (a temporary file renamed
// into place), so the gate never reads half a verdict.
func WriteResult(path string, res *ReflectResult) error {
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encode verdict: %w", err)
	}
	data = append(data, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write verdict: %w", err)
	}
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("write verdict: %w", err)
	}
	return nil
}
