package live

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"wright/env/proctab"
)

func TestStepObservationAndPersistentNamespace(t *testing.T) {
	site := fixtureSite(t)
	e, run := startEnv(t, site.URL+"/", nil)

	obs := step(t, e, 1, "print('title:', page.title())\nprint('task:', task['task_id'])\ncounter = 41\n")
	wantSuccess(t, obs)
	out := str(obs, "python_output")
	if !strings.Contains(out, "title: Fixture shop") || !strings.Contains(out, "task: fixture") {
		t.Errorf("python_output %q", out)
	}
	if str(obs, "url") != site.URL+"/" || str(obs, "title") != "Fixture shop" {
		t.Errorf("url %q title %q", obs["url"], obs["title"])
	}
	aria := str(obs, "aria_snapshot")
	for _, want := range []string{`heading "Fixture shop"`, `link "Contact us"`, `button "Say hello"`, "[ref=e"} {
		if !strings.Contains(aria, want) {
			t.Errorf("aria_snapshot lacks %q:\n%s", want, aria)
		}
	}
	shot := str(obs, "screenshot_path")
	if !filepath.IsAbs(shot) || shot != filepath.Join(run.ws, "screenshots", "step_0001.png") {
		t.Errorf("screenshot_path %q", shot)
	}
	e.Flush() // the screenshot is written after the observation returns
	if b, err := os.ReadFile(shot); err != nil || len(b) < 1000 || string(b[1:4]) != "PNG" {
		t.Errorf("screenshot file: %d bytes, %v", len(b), err)
	}
	tabs, _ := obs["tabs"].([]map[string]any)
	if len(tabs) != 1 || tabs[0]["current"] != true || tabs[0]["title"] != "Fixture shop" {
		t.Errorf("tabs %v", obs["tabs"])
	}
	for _, k := range []string{"success", "exception", "url", "title", "python_output", "console_output", "aria_snapshot",
		"screenshot_path", "elapsed_ms", "tabs", "restarted", "restart_note", "timed_out", "notices"} {
		if _, ok := obs[k]; !ok {
			t.Errorf("observation lacks %q", k)
		}
	}
	if obs["restarted"] != false || obs["timed_out"] != false || len(notices(obs)) != 0 {
		t.Errorf("unexpected restart/timeout/notices: %v %v %v", obs["restarted"], obs["timed_out"], obs["notices"])
	}

	// The namespace lives on; a click shows up in the console output.
	obs = step(t, e, 2, "counter += 1\npage.get_by_role('button', name='Say hello').click()\nprint(counter, page.locator('#out').inner_text())")
	wantSuccess(t, obs)
	if out := str(obs, "python_output"); out != "42 Clicked" {
		t.Errorf("python_output %q, want %q", out, "42 Clicked")
	}
	if c := str(obs, "console_output"); !strings.Contains(c, "[log] hello from the page") {
		t.Errorf("console_output %q", c)
	}
	// Console messages are shown once, with the step that caused them.
	obs = step(t, e, 3, "pass")
	if c := str(obs, "console_output"); c != "" {
		t.Errorf("console_output repeated: %q", c)
	}

	for _, f := range []string{"steps/step_0001.py", "steps/step_0002.py", "script.py"} {
		if _, err := os.Stat(filepath.Join(run.ws, f)); err != nil {
			t.Error(err)
		}
	}
	script, _ := os.ReadFile(filepath.Join(run.ws, "script.py"))
	if !strings.Contains(string(script), "# ---- step 2") || !strings.Contains(string(script), "counter += 1") || !strings.Contains(string(script), "# -> ok") {
		t.Errorf("script.py:\n%s", script)
	}
}

func TestNoStrayProcessesAfterClose(t *testing.T) {
	site := fixtureSite(t)
	run := newTestRun(t, site.URL)
	ctx := context.Background()
	e, err := New(ctx, run.options(site.URL+"/"))
	if err != nil {
		t.Fatal(err)
	}
	obs := step(t, e, 1, "import subprocess\nbg = subprocess.Popen(['sleep', '300'])\nprint(run_command('echo hi; echo there >&2').strip())")
	wantSuccess(t, obs)
	chromium := e.srv.Browser().PID()
	runner := e.py.pid
	tag := e.py.tag
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	for _, pid := range []int{chromium, runner} {
		if proctab.Alive(pid) {
			t.Errorf("process %d is still running after Close", pid)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if tagged := proctab.WithEnv(tagVar+"="+tag, os.Getpid()); len(tagged) > 0 {
		t.Errorf("processes started by the code survive Close: %v", tagged)
	}
	if _, err := os.Stat(e.sockDir); !os.IsNotExist(err) {
		t.Errorf("socket dir left behind: %v", err)
	}
}

func TestTimeoutInterruptsAndNamespaceSurvives(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", func(o *Options) { o.StepTimeout = 2 * time.Second })
	wantSuccess(t, step(t, e, 1, "kept = 'still here'"))
	obs := step(t, e, 2, "n = 0\nwhile True:\n    n += 1\n")
	if obs["timed_out"] != true || obs["success"] != false {
		t.Fatalf("timed_out %v success %v", obs["timed_out"], obs["success"])
	}
	exc := str(obs, "exception")
	if !strings.Contains(exc, "TimeoutError: the step ran longer than 2 s") || !strings.Contains(exc, `File "steps/step_0002.py", line`) ||
		!strings.Contains(exc, "KeyboardInterrupt") {
		t.Errorf("exception:\n%s", exc)
	}
	if obs["restarted"] != false {
		t.Errorf("an interruptible step restarted Python: %v", obs["restart_note"])
	}
	obs = step(t, e, 3, "print(kept, n > 0)")
	wantSuccess(t, obs)
	if str(obs, "python_output") != "still here True" {
		t.Errorf("namespace lost: %q", obs["python_output"])
	}
}

func TestTimeoutIgnoringInterruptRestartsPython(t *testing.T) {
	site := fixtureSite(t)
	e, run := startEnv(t, site.URL+"/", func(o *Options) { o.StepTimeout = time.Second })
	wantSuccess(t, step(t, e, 1, "kept = 1"))
	oldPid := e.py.pid
	code := "import time\nprint('stubborn')\nwhile True:\n    try:\n        time.sleep(10)\n    except KeyboardInterrupt:\n        print('ignoring the interrupt')\n"
	obs := step(t, e, 2, code)
	if obs["timed_out"] != true || obs["restarted"] != true {
		t.Fatalf("timed_out %v restarted %v", obs["timed_out"], obs["restarted"])
	}
	if note := str(obs, "restart_note"); !strings.Contains(note, "Python process ended") || !strings.Contains(note, "gone") {
		t.Errorf("restart_note %q", note)
	}
	if out := str(obs, "python_output"); !strings.Contains(out, "stubborn") || !strings.Contains(out, "ignoring the interrupt") {
		t.Errorf("output of the killed step lost: %q", out)
	}
	if proctab.Alive(oldPid) {
		t.Errorf("the stuck runner %d still runs", oldPid)
	}
	obs = step(t, e, 3, "print('kept' in globals(), page.title())")
	wantSuccess(t, obs)
	if str(obs, "python_output") != "False Fixture shop" {
		t.Errorf("fresh namespace with page bound expected: %q", obs["python_output"])
	}
	if obs["restarted"] != false {
		t.Error("the restart was reported twice")
	}
	script, _ := os.ReadFile(filepath.Join(run.ws, "script.py"))
	if !strings.Contains(string(script), "# -> timed out") {
		t.Errorf("script.py does not record the timeout:\n%s", script)
	}
}

func TestExceptionTracebackIsTrimmedToTheModelsCode(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", nil)
	obs := step(t, e, 1, "def check(x):\n    raise ValueError('bad value %d' % x)\n\nprint('before')\ncheck(7)\n")
	if obs["success"] != false {
		t.Fatal("a raising step succeeded")
	}
	exc := str(obs, "exception")
	want := "Traceback (most recent call last):\n" +
		"  File \"steps/step_0001.py\", line 5, in <module>\n    check(7)\n" +
		"  File \"steps/step_0001.py\", line 2, in check\n    raise ValueError('bad value %d' % x)\n" +
		"ValueError: bad value 7"
	if exc != want {
		t.Errorf("exception:\n%s\nwant:\n%s", exc, want)
	}
	if str(obs, "python_output") != "before" {
		t.Errorf("output %q", obs["python_output"])
	}

	// A browser error: the client's internals are left out, the driver's
	// message is kept whole.
	obs = step(t, e, 2, "page.locator('#missing').click(timeout=300)")
	exc = str(obs, "exception")
	if !strings.Contains(exc, `File "steps/step_0002.py", line 1, in <module>`) || !strings.Contains(exc, "wright_browser.TimeoutError") {
		t.Errorf("exception:\n%s", exc)
	}
	for _, hidden := range []string{"runner.py", "wright_browser.py", "queue.py"} {
		if strings.Contains(exc, hidden) {
			t.Errorf("traceback shows %s:\n%s", hidden, exc)
		}
	}
	// The model's own module, imported from the workspace, keeps its frames.
	obs = step(t, e, 3, "run_command(\"printf 'def boom():\\n    return 1 / 0\\n' > helper.py\")\nimport helper\nhelper.boom()")
	exc = str(obs, "exception")
	if !strings.Contains(exc, `File "helper.py", line 2, in boom`) || !strings.Contains(exc, "ZeroDivisionError") {
		t.Errorf("exception:\n%s", exc)
	}
	// The agent checks syntax first; should a syntax error get here anyway,
	// it is reported the same way and nothing runs.
	obs = step(t, e, 4, "ran = True\ndef f(:\n    pass\n")
	exc = str(obs, "exception")
	if obs["success"] != false || !strings.Contains(exc, `File "steps/step_0004.py", line 2`) || !strings.Contains(exc, "SyntaxError") {
		t.Errorf("exception:\n%s", exc)
	}
	if obs = step(t, e, 5, "print('ran' in dir())"); str(obs, "python_output") != "False" {
		t.Errorf("part of a step with a syntax error ran: %q", obs["python_output"])
	}
}

func TestSysExitIsReportedNotFatal(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", nil)
	obs := step(t, e, 1, "x = 5\nprint('bye')\nimport sys\nsys.exit(3)\nprint('not reached')")
	if obs["success"] != false || obs["exit_code"] != float64(3) {
		t.Errorf("success %v exit_code %#v", obs["success"], obs["exit_code"])
	}
	if exc := str(obs, "exception"); !strings.Contains(exc, "SystemExit: 3") || !strings.Contains(exc, "variables are still there") {
		t.Errorf("exception %q", exc)
	}
	if str(obs, "python_output") != "bye" {
		t.Errorf("output %q", obs["python_output"])
	}
	obs = step(t, e, 2, "print(x)\nexit()")
	if obs["success"] != true || str(obs, "python_output") != "5" || obs["restarted"] != false {
		t.Errorf("after sys.exit: success %v output %q restarted %v", obs["success"], obs["python_output"], obs["restarted"])
	}
}

func TestPythonDyingIsRestarted(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", nil)
	wantSuccess(t, step(t, e, 1, "kept = 1"))
	obs := step(t, e, 2, "import os\nprint('going', flush=True)\nos._exit(9)")
	if obs["success"] != false || obs["restarted"] != true {
		t.Fatalf("success %v restarted %v", obs["success"], obs["restarted"])
	}
	if exc := str(obs, "exception"); !strings.Contains(exc, "exit code 9") {
		t.Errorf("exception %q", exc)
	}
	if str(obs, "python_output") != "going" {
		t.Errorf("output %q", obs["python_output"])
	}
	obs = step(t, e, 3, "print('kept' in dir(), page.url)")
	wantSuccess(t, obs)
	if str(obs, "python_output") != "False "+site.URL+"/" {
		t.Errorf("output %q", obs["python_output"])
	}
}

func TestChromiumKilledIsRestartedAtTheLastURL(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", nil)
	wantSuccess(t, step(t, e, 1, "page.goto(base + '/products.html') if 'base' in dir() else page.goto('"+site.URL+"/products.html')"))
	pid := e.srv.Browser().PID()
	// The test kills Chromium while the step runs: the model's own code
	// cannot, as its PID namespace does not hold Chromium.
	ws := e.opts.Workspace
	go func() {
		for i := 0; i < 400; i++ {
			if _, err := os.Stat(filepath.Join(ws, "killme")); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				return
			}
			time.Sleep(25 * time.Millisecond)
		}
	}()
	obs := step(t, e, 2, "import time\nopen('killme', 'w').close()\ntime.sleep(3)\nprint(1)")
	if obs["restarted"] != true {
		t.Fatalf("no restart reported: %v", obs)
	}
	note := str(obs, "restart_note")
	if !strings.Contains(note, "Chromium stopped") || !strings.Contains(note, "restarted at "+site.URL+"/products.html") {
		t.Errorf("restart_note %q", note)
	}
	if str(obs, "url") != site.URL+"/products.html" || !strings.Contains(str(obs, "aria_snapshot"), "Trail runner") {
		t.Errorf("after restart: url %q aria %q", obs["url"], obs["aria_snapshot"])
	}
	if e.srv.Browser().PID() == pid {
		t.Error("the same Chromium pid after a restart")
	}
	obs = step(t, e, 3, "print(page.title(), len(browser.pages))")
	wantSuccess(t, obs)
	if str(obs, "python_output") != "Products 1" || obs["restarted"] != false {
		t.Errorf("page not rebound: %q restarted %v", obs["python_output"], obs["restarted"])
	}
}

func TestChromiumDeadBetweenStepsIsRestartedBeforeTheNext(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/form.html", nil)
	b := e.srv.Browser()
	if err := syscall.Kill(b.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-b.Done()
	obs := step(t, e, 1, "print(page.title())")
	wantSuccess(t, obs)
	if obs["restarted"] != true || !strings.Contains(str(obs, "restart_note"), "at "+site.URL+"/form.html") {
		t.Errorf("restarted %v note %q", obs["restarted"], obs["restart_note"])
	}
	if str(obs, "python_output") != "Contact us" {
		t.Errorf("output %q", obs["python_output"])
	}
}

// The runner starts while the browser does; when the browser cannot start,
// the runner already on its way up is ended, not left behind.
func TestFailedStartLeavesNoRunner(t *testing.T) {
	run := newTestRun(t, "about:blank")
	opts := run.options("")
	broken := filepath.Join(t.TempDir(), "no-chromium")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\nsleep 0.5\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts.Browser.Executable = broken
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if e, err := New(ctx, opts); err == nil {
		e.Close()
		t.Fatal("New started with a browser that exits at once")
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		left := processesNaming(run.ws)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the failed start still run: %v", left)
		}
	}
}

// processesNaming lists the processes whose command line contains s.
func processesNaming(s string) []string {
	var out []string
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), s) {
			out = append(out, p+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}
