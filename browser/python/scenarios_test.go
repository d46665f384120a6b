package python

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// scenarios are the scripts under testdata/scripts that TestScenarios runs
// against the fixture site, each printing OK after its own checks: the one
// list of what `go test ./browser/python` covers through a real browser.
// Scripts that need more than a run (a killed driver, a socket driver, a
// signal, a benchmark) are in harnessScripts, with the test that runs them.
var scenarios = []struct{ name, what string }{
	// wright_browser: launch() and wright's own API
	{"form", "fill, check, select and submit a form; the submitted fields"},
	{"strict", "a locator matching two elements: StrictModeViolation listing both"},
	{"dialog", "alert, confirm and prompt answered by the driver, and page.dialogs()"},
	{"popup", "expect_popup and the popup's page"},
	{"overlay", "a covered button: the click waits, then names what covers it"},
	{"lazy", "an element that appears later: the click waits for it"},
	{"shadow", "locators through open shadow roots"},
	{"getby", "get_by_role, get_by_label, get_by_text, get_by_placeholder and friends"},
	{"aria", "aria_snapshot() with refs, and aria-ref= locators"},
	{"slow", "timeouts of goto, wait_for_selector and click"},
	{"screenshot", "launch viewport, page, full-page and element screenshots, ActionLog screenshots"},
	// playwright.sync_api: Playwright's API
	{"pw_content", "content, evaluate's value transfer, handles, scripts, bindings, frames, input, expect()"},
	{"pw_events", "events and expect_* waiters, dialogs, popups, network events"},
	{"pw_context", "isolated contexts and their options, cookies, storage state, routing"},
	{"pw_storage_aria", "Web Storage helpers, locator ARIA snapshots in Playwright's format"},
	{"pw_locator_handler", "page.add_locator_handler"},
	{"pw_network_more", "fallback overrides seen by later route handlers, route() as a Disposable"},
	{"pw_context_events", "context events: pages, popups' console, loads, navigations, frames, closes, errors"},
	{"pw_handles", "element handles: previews, owner frames, detached elements, page state shortcuts"},
	{"pw_request", "APIRequestContext (page.request) and route.fetch"},
	{"pw_http_credentials", "http_credentials: Basic auth for the context's origin only, in pages and context.request"},
	{"pw_proxy", "proxy=: per browser and per context, the proxy's own credentials, bad values, refused under a run's proxy"},
	{"pw_locators", "or_/and_, description, regex test ids, repr, wait_for_function"},
	{"pw_lifecycle", "disposable init scripts, pages as context managers, browser events"},
	{"pw_context_state", "set_storage_state, init scripts in a first document, child frames' tags, two CDP clients"},
	{"pw_files", "files, file choosers, downloads, drag and drop"},
	{"pw_assertions_more", "the accessible error message assertion and soft assertions"},
	{"pw_popup_context", "a popup has its context's settings before its first script runs"},
	{"pw_frames", "one object per frame, frame events, detaching, child-frame navigation"},
	{"pw_beforeunload", "page.close(run_before_unload=True) and leaving a page that asks to stay"},
	{"pw_selectors", "selectors.register in every page and frame, both JavaScript worlds"},
	{"pw_misc", "console values, page errors of thrown non-Errors, exposed functions, Frame.eval_on_selector"},
	{"pw_devices", "device descriptors, taps on a touch context, page.pdf, request timing, a CDP session"},
	{"pw_websocket", "WebSocket routes: in place of a server, forwarding to one, binary, closes, context routes"},
	{"pw_websocket_events", "WebSocket events: frames as str and bytes, waits failing on a close, errors, page close"},
	{"pw_video", "record_video_dir videos, page.screencast frames and show_actions labels"},
	{"pw_expect_locators", "expect() details (class lists, JS values, regex case, labels, viewport ratio)"},
	{"pw_clock", "page.clock: a countdown run by the fake clock, new documents' time, bad input"},
	// playwright.async_api: the same implementation, awaited
	{"pw_async", "gathered slow routes overlap, coroutine listeners, async with expect_*, a cancelled task, timeouts"},
}

// harnessScripts run from their own tests; support.py is the scripts' helper.
var harnessScripts = map[string]string{
	"killed":       "TestDriverKilled",
	"cleanup":      "TestCleanup",
	"live":         "TestConnectSocket",
	"bench":        "BenchmarkClickRoundTrip",
	"trace_viewer": "TestTraceViewer",
	"trace_env":    "TestTraceFromEnvironment",
	"har":          "TestHARReplayOffline",
	"video":        "TestVideoWhenTheScriptEnds",
	"support":      "(helpers of the other scripts)",
}

// TestScenarios runs every scenario script against the package install.
func TestScenarios(t *testing.T) {
	needWright(t)
	base := fixtureServer(t)
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			stdout, stderr, tmp, err := script{name: sc.name + ".py", fixture: base}.run(t)
			if err != nil || !strings.HasSuffix(strings.TrimSpace(stdout), "OK") {
				t.Fatalf("%s.py (%s): %v\nstdout:\n%s\nstderr:\n%s", sc.name, sc.what, err, stdout, stderr)
			}
			assertNothingLeft(t, tmp, 0)
		})
	}
}

// TestScenarioListComplete keeps the list whole: every script under
// testdata/scripts is a scenario or a harness script, and every listed one
// exists.
func TestScenarioListComplete(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "scripts", "*.py"))
	if err != nil {
		t.Fatal(err)
	}
	onDisk := map[string]bool{}
	for _, f := range files {
		onDisk[strings.TrimSuffix(filepath.Base(f), ".py")] = true
	}
	listed := map[string]bool{}
	for _, sc := range scenarios {
		if listed[sc.name] {
			t.Errorf("%s is listed twice", sc.name)
		}
		listed[sc.name] = true
	}
	for name := range harnessScripts {
		listed[name] = true
	}
	var unlisted, missing []string
	for name := range onDisk {
		if !listed[name] {
			unlisted = append(unlisted, name)
		}
	}
	for name := range listed {
		if !onDisk[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(unlisted)
	sort.Strings(missing)
	if len(unlisted) > 0 {
		t.Errorf("scripts no test runs (add them to scenarios): %v", unlisted)
	}
	if len(missing) > 0 {
		t.Errorf("listed scripts that do not exist: %v", missing)
	}
}
