package live

import (
	"strings"
	"testing"

	"wright/model"
	"wright/model/modeltest"
)

// Code with a top-level await runs against playwright.async_api's objects of
// the same live page; code without runs as plain code. The namespace is one
// for both forms, and the observation is the same.

func TestTopLevelAwaitRunsOnTheLivePage(t *testing.T) {
	site := fixtureSite(t)
	e, _ := startEnv(t, site.URL+"/", nil)

	obs := step(t, e, 1, "counter = 41\nprint('sync:', page.title())")
	wantSuccess(t, obs)

	// An awaited click on the live page: the page changes, the console shows it, the namespace is kept.
	obs = step(t, e, 2, "await page.get_by_role('button', name='Say hello').click()\n"+
		"counter += 1\n"+
		"text = await page.locator('#out').inner_text()\n"+
		"import asyncio\n"+
		"both = await asyncio.gather(page.title(), page.evaluate('6 * 7'))\n"+
		"print(counter, text, both, type(page).__module__)")
	wantSuccess(t, obs)
	if out := str(obs, "python_output"); out != "42 Clicked ['Fixture shop', 42] playwright.async_api" {
		t.Errorf("python_output %q", out)
	}
	if c := str(obs, "console_output"); !strings.Contains(c, "[log] hello from the page") {
		t.Errorf("console_output %q", c)
	}
	if aria := str(obs, "aria_snapshot"); !strings.Contains(aria, "Clicked") {
		t.Errorf("the observation does not show the click:\n%s", aria)
	}

	// Back to plain code: `page` is the sync page again, and what the async step made is still there.
	obs = step(t, e, 3, "print(counter, text, page.locator('#out').inner_text(), type(page).__module__)")
	wantSuccess(t, obs)
	if out := str(obs, "python_output"); out != "42 Clicked Clicked playwright._impl._page" {
		t.Errorf("python_output %q", out)
	}

	// A step that navigates with await leaves the observation on the new page.
	obs = step(t, e, 4, "await page.get_by_role('link', name='Contact us').click()\nawait page.wait_for_url('**/form.html')")
	wantSuccess(t, obs)
	if got := str(obs, "url"); got != site.URL+"/form.html" {
		t.Errorf("url %q after an awaited navigation", got)
	}

	// An error inside awaited code is the step's exception, trimmed to the model's code.
	obs = step(t, e, 5, "await page.locator('#nothing-here').click(timeout=300)")
	if obs["success"] != false || !strings.Contains(str(obs, "exception"), "TimeoutError") {
		t.Errorf("success %v exception %q", obs["success"], str(obs, "exception"))
	}
	obs = step(t, e, 6, "print(await page.title())")
	wantSuccess(t, obs)
	if out := str(obs, "python_output"); out == "" {
		t.Errorf("no title after a failed async step")
	}
}

// The agent loop with a scripted model whose code awaits, as models trained on
// an async live mode write it.
func TestAgentAwaitsAClick(t *testing.T) {
	site := fixtureSite(t)
	h := newLiveHarness(t, AriaModes[0], site.URL+"/",
		modeltest.Python("Click the button the snapshot shows.",
			"await page.get_by_role('button', name='Say hello').click()\n"+
				"print(await page.locator('#out').inner_text())"),
		modeltest.Done(model.FieldPython, "It says Clicked.", "The page answered Clicked."),
	)
	res := h.execute("Say hello on the shop's page.")
	wantSubmitted(t, res)
	obs := h.sent(1)
	text := obs[len(obs)-1].Text()
	if !strings.Contains(text, "<output>\nClicked\n</output>") || !strings.Contains(text, "hello from the page") {
		t.Errorf("observation:\n%s", text)
	}
}
