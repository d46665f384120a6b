package live

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"wright/browser"
	"wright/model"
	"wright/model/modeltest"
	"wright/run/agent"
	"wright/run/gate"
	"wright/run/rundir"
)

// End-to-end: the agent loop with this environment and the browser
// templates, driven by a scripted model over real HTTP, solving fixture
// tasks in a real Chromium.

type liveHarness struct {
	t     *testing.T
	srv   *modeltest.Server
	run   *rundir.Run
	agent *agent.Agent
	env   *Env
}

// bothModes runs an end-to-end task with whole snapshots and with change
// observations: the tasks must come out the same.
func bothModes(t *testing.T, task func(t *testing.T, mode string)) {
	for _, mode := range AriaModes {
		t.Run(mode, func(t *testing.T) { task(t, mode) })
	}
}

func newLiveHarness(t *testing.T, mode, startURL string, responses ...modeltest.Response) *liveHarness {
	t.Helper()
	srv := modeltest.New(t, responses...)
	run, err := rundir.Create(filepath.Join(t.TempDir(), "run"))
	if err != nil {
		t.Fatal(err)
	}
	if err := run.WriteJSON(filepath.Join("workspace", "task.json"), map[string]any{"task_id": "fixture", "task": "a fixture task", "start_url": startURL}); err != nil {
		t.Fatal(err)
	}
	client, err := model.New(model.Config{Name: "scripted", BaseURL: srv.URL + "/v1", ActionField: model.FieldPython,
		ResponseFormat: model.FormatJSONSchema, APIKeyEnv: modeltest.NoKeyEnv,
		Retry: model.Retry{Attempts: 2, InitialDelaySeconds: 0.01, MaxDelaySeconds: 0.05}}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e, err := New(ctx, Options{
		Workspace:   run.Workspace,
		TaskJSON:    filepath.Join(run.Workspace, "task.json"),
		StartURL:    startURL,
		Browser:     browser.Options{Timeout: 15 * time.Second}, // room for a loaded machine to open a tab
		StepTimeout: 20 * time.Second,
		AriaMode:    mode,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	a := &agent.Agent{
		Config: agent.Config{
			StepLimit: 10, MaxConsecutiveFormatErrors: 3,
			SystemTemplate: "builtin:browser_system.j2", InstanceTemplate: "builtin:browser_instance.j2",
			ObservationTemplate: "builtin:browser_observation.j2", FormatErrorTemplate: "builtin:format_error.j2",
			GateRefusalTemplate: "builtin:gate_refusal.j2", SummaryUserPrompt: "builtin:summary_browser.j2",
			KeepLastNObservations: 1, Mode: "browser",
		},
		AttachScreenshot: true, ModelName: "scripted",
		Vars:  map[string]any{"workspace": run.Workspace, "mode": "browser", "step_timeout_seconds": 20, "aria_snapshot": mode},
		Model: client, Env: e, Gate: gate.Open{}, Dir: run,
	}
	return &liveHarness{t: t, srv: srv, run: run, agent: a, env: e}
}

func (h *liveHarness) execute(task string) rundir.Result {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := h.agent.Execute(ctx, agent.Task{ID: "fixture", Text: task, StartURL: h.env.opts.StartURL})
	if err != nil {
		h.t.Fatalf("Execute: %v", err)
	}
	return res
}

// sent is the messages of the i-th request the model got.
func (h *liveHarness) sent(i int) []modeltest.ChatMessage {
	return h.srv.Requests()[i].Chat().Messages
}

func wantSubmitted(t *testing.T, res rundir.Result) {
	t.Helper()
	if res.ExitStatus != agent.Submitted {
		t.Fatalf("exit status %s (%s), want Submitted", res.ExitStatus, res.Message)
	}
}

func TestAgentFillsAndSubmitsAForm(t *testing.T) { bothModes(t, agentFillsAndSubmitsAForm) }

func agentFillsAndSubmitsAForm(t *testing.T, mode string) {
	site := fixtureSite(t)
	h := newLiveHarness(t, mode, site.URL+"/form.html",
		modeltest.Python("Look at the form first.", "print(page.title())"),
		modeltest.Python("The snapshot shows labelled fields; fill them and send.",
			"page.get_by_label('Your name').fill('Ada Lovelace')\n"+
				"page.get_by_label('Email').fill('ada@example.org')\n"+
				"page.get_by_label('Send me the newsletter').check()\n"+
				"page.get_by_role('button', name='Send message').click()\n"+
				"page.wait_for_url('**/submit*')\n"+
				"print(page.get_by_role('heading', level=1).inner_text())"),
		modeltest.Done(model.FieldPython, "The page thanks Ada: done.", "The message was sent; the site answered \"Thank you, Ada Lovelace\"."),
	)
	res := h.execute("Send a message through the contact form as Ada Lovelace (ada@example.org), with the newsletter.")
	wantSubmitted(t, res)
	if res.ModelCalls != 3 || !strings.Contains(res.FinalResponse, "Thank you, Ada Lovelace") {
		t.Errorf("result %+v", res)
	}

	// The system prompt teaches python_code and the bound names.
	first := h.sent(0)
	if sys := first[0].Text(); !strings.Contains(sys, `"python_code"`) || !strings.Contains(sys, "run_command(cmd)") || !strings.Contains(sys, "aria-ref=e12") {
		t.Errorf("system prompt:\n%s", sys)
	}
	if inst := first[1].Text(); !strings.Contains(inst, "The browser is open at "+site.URL+"/form.html") {
		t.Errorf("instance prompt:\n%s", inst)
	}

	// After step 1 the model saw the form's ARIA snapshot and a screenshot.
	second := h.sent(1)
	obs1 := second[len(second)-1]
	for _, want := range []string{"<output>\nContact us\n</output>", `textbox "Your name"`, `checkbox "Send me the newsletter"`, `button "Send message"`, "url: " + site.URL + "/form.html"} {
		if !strings.Contains(obs1.Text(), want) {
			t.Errorf("observation 1 lacks %q:\n%s", want, obs1.Text())
		}
	}
	if imgs := obs1.ImageURLs(); len(imgs) != 1 || !strings.HasPrefix(imgs[0], "data:image/png;base64,") {
		t.Errorf("observation 1 images: %d", len(imgs))
	}

	// After step 2: the older snapshot is pruned, the new page is shown,
	// and the navigation notice follows as a message of its own.
	third := h.sent(2)
	var pruned, obs2, notice string
	for _, m := range third {
		switch txt := m.Text(); {
		case strings.HasPrefix(txt, "[notice] "):
			notice = txt
		case strings.Contains(txt, "<aria_snapshot>") && strings.Contains(txt, "ARIA snapshot pruned"):
			pruned = txt
		case strings.Contains(txt, "<aria_snapshot>"):
			obs2 = txt
		}
	}
	if pruned == "" || strings.Contains(pruned, `textbox "Your name"`) {
		t.Errorf("observation 1 was not pruned:\n%s", pruned)
	}
	if !strings.Contains(obs2, `heading "Thank you, Ada Lovelace"`) || !strings.Contains(obs2, "<output>\nThank you, Ada Lovelace\n</output>") {
		t.Errorf("observation 2:\n%s", obs2)
	}
	if !strings.Contains(notice, "The page moved to "+site.URL+"/submit?name=Ada+Lovelace&email=ada%40example.org") || !strings.Contains(notice, "newsletter=yes") {
		t.Errorf("navigation notice %q", notice)
	}
	if last := third[len(third)-1].Text(); last != notice {
		t.Errorf("the notice is not the last message: %q", last)
	}

	for _, f := range []string{"screenshots/step_0001.png", "screenshots/step_0002.png", "steps/step_0002.py", "script.py"} {
		if fi, err := os.Stat(filepath.Join(h.run.Workspace, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestAgentChoosesFromADropdown(t *testing.T) { bothModes(t, agentChoosesFromADropdown) }

func agentChoosesFromADropdown(t *testing.T, mode string) {
	site := fixtureSite(t)
	h := newLiveHarness(t, mode, site.URL+"/order.html",
		modeltest.Python("Choose the size by its label and place the order.",
			"page.get_by_label('Size').select_option('EU 42')\n"+
				"page.get_by_role('button', name='Place order').click()\n"+
				"print(page.get_by_role('status').inner_text())"),
		modeltest.Done(model.FieldPython, "Ordered.", "Ordered a shoe in size EU 42."),
	)
	res := h.execute("Order a shoe in size EU 42.")
	wantSubmitted(t, res)
	obs := h.sent(1)
	text := obs[len(obs)-1].Text()
	if !strings.Contains(text, "<output>\nOrdered size EU 42\n</output>") || !strings.Contains(text, `combobox "Size"`) {
		t.Errorf("observation:\n%s", text)
	}
	if strings.Contains(text, "<console>") {
		t.Errorf("a clean step shows console output:\n%s", text)
	}
}

var outputRE = regexp.MustCompile(`(?s)<output>\n(.*?)\n</output>`)

func TestAgentReadsATableAndReports(t *testing.T) { bothModes(t, agentReadsATableAndReports) }

func agentReadsATableAndReports(t *testing.T, mode string) {
	site := fixtureSite(t)
	h := newLiveHarness(t, mode, site.URL+"/",
		modeltest.Python("Open the products page.", "page.get_by_role('link', name='Products').click()\npage.wait_for_url('**/products.html')"),
		modeltest.Python("Read the Road racer's price from its row.",
			"row = page.get_by_role('row').filter(has_text='Road racer')\nprice = row.get_by_role('cell').nth(2).inner_text()\nprint(price)"),
		// The model reports what it read: the answer comes from the page.
		modeltest.Func(func(r modeltest.Request) modeltest.Response {
			var seen string
			for _, m := range r.Chat().Messages {
				if mm := outputRE.FindStringSubmatch(m.Text()); mm != nil {
					seen = mm[1]
				}
			}
			return modeltest.Done(model.FieldPython, "The price is in the output.", "The Road racer costs "+seen+".")
		}),
	)
	res := h.execute("What does the Road racer cost?")
	wantSubmitted(t, res)
	if res.FinalResponse != "The Road racer costs €119.50." {
		t.Errorf("final response %q", res.FinalResponse)
	}
	second := h.sent(1)
	if obs := second[len(second)-2].Text(); !strings.Contains(obs, `table "Price list"`) || !strings.Contains(obs, "€119.50") {
		t.Errorf("the table was not in the snapshot:\n%s", obs)
	}
	if n := second[len(second)-1].Text(); !strings.HasPrefix(n, "[notice] The page moved to "+site.URL+"/products.html") {
		t.Errorf("last message %q", n)
	}
	script, err := os.ReadFile(filepath.Join(h.run.Workspace, "script.py"))
	if err != nil || !strings.Contains(string(script), "# ---- step 1") || !strings.Contains(string(script), "# ---- step 2") || strings.Count(string(script), "# -> ok") != 2 {
		t.Errorf("script.py (%v):\n%s", err, script)
	}
}

var checkboxRef = regexp.MustCompile(`checkbox "Send me the newsletter" \[ref=(e\d+)\]`)

// With change observations the model acts on a ref it read from a whole
// snapshot, sees its effect as changes, and after a compaction (which
// took every snapshot out of its context) gets the whole snapshot again.
func TestAgentWorksFromChangeObservations(t *testing.T) {
	site := fixtureSite(t)
	var refSeen string
	h := newLiveHarness(t, AriaChanges, site.URL+"/prefs.html",
		modeltest.Python("Look at the page.", "print(page.title())"),
		modeltest.Func(func(r modeltest.Request) modeltest.Response {
			msgs := r.Chat().Messages
			if m := checkboxRef.FindStringSubmatch(msgs[len(msgs)-1].Text()); m != nil {
				refSeen = m[1]
			}
			return modeltest.Python("Tick the newsletter by its ref and save.",
				"page.locator('aria-ref="+refSeen+"').check()\npage.get_by_role('button', name='Save').click()")
		}),
		modeltest.Reply("SUMMARY: ticked the newsletter box and saved."),
		modeltest.Python("Read the status.", "print(page.get_by_role('status').inner_text())"),
		modeltest.Done(model.FieldPython, "Saved.", "The preferences were saved."),
	)
	h.agent.Config.SummaryEveryNSteps = 2
	res := h.execute("Subscribe to the newsletter and save.")
	wantSubmitted(t, res)
	if refSeen == "" {
		t.Fatal("the first observation showed no ref for the checkbox")
	}
	// The summary request holds the change observation of step 2.
	sum := h.sent(2)
	var change string
	for _, m := range sum {
		if strings.Contains(m.Text(), "[changes since the snapshot of step 1") {
			change = m.Text()
		}
	}
	for _, want := range []string{`~   - checkbox "Send me the newsletter" [checked] [ref=` + refSeen + `]`, "status: Saved"} {
		if !strings.Contains(change, want) {
			t.Errorf("change observation lacks %q:\n%s", want, change)
		}
	}
	if strings.Contains(change, `heading "Recently viewed"`) {
		t.Errorf("the change observation repeats unchanged lines:\n%s", change)
	}
	// After the compaction: a whole snapshot.
	after := h.sent(4)
	last := after[len(after)-1].Text()
	if !strings.Contains(last, "<output>\nSaved\n</output>") || !strings.Contains(last, `heading "Recently viewed"`) || strings.Contains(last, "[changes since") {
		t.Errorf("the observation after the compaction:\n%s", last)
	}
	if sys := h.sent(0)[0].Text(); !strings.Contains(sys, "request_full_snapshot()") || !strings.Contains(sys, "`~ ` changed") {
		t.Errorf("the system prompt does not explain change observations:\n%s", sys)
	}
}
