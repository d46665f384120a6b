package harness_test

import (
	"fmt"
	"strings"
	"testing"

	"wright/run/harness"
)

// A failed script's error tail: the script's own raising line and the
// exception (the last traceback of a chain), paths without their folders,
// a long call log and long lines cut; without a traceback, the last lines.
func TestScriptErrorTail(t *testing.T) {
	frame := func(file, fn, src string) string {
		return fmt.Sprintf("  File %q, line 7, in %s\n    %s\n", file, fn, src)
	}
	chained := "step 1 action: open the shop\n" +
		"Traceback (most recent call last):\n" + frame("/x/final_script.py", "main", "int(price)") +
		"ValueError: invalid literal\n\nDuring handling of the above exception, another exception occurred:\n\n" +
		"Traceback (most recent call last):\n" +
		frame("<frozen runpy>", "run_path", "") +
		frame("/runs/r1/workspace/final_runs/run_1/final_script.py", "main", "result = run(args.book)") +
		"             ^^^^^^^^^^^^^^\n" +
		frame("/runs/r1/workspace/final_runs/run_1/final_script.py", "run", `page.get_by_role("link", name=BOOK).click()`) +
		frame("/runs/r1/lib/python/playwright/_impl/_locator.py", "_call", "raise self._api_error(exc) from None") +
		"wright_browser.TimeoutError: Locator.click: Timeout 30000ms exceeded.\n" +
		"waiting for get_by_role(\"link\", name=\"No Such Book\")\n" +
		strings.Repeat("  - still waiting\n", 40)
	got := harness.ErrorTail(chained)
	lines := strings.Split(got, "\n")
	if lines[0] != `  File "final_script.py", line 7, in run` || lines[1] != `    page.get_by_role("link", name=BOOK).click()` ||
		lines[2] != "wright_browser.TimeoutError: Locator.click: Timeout 30000ms exceeded." {
		t.Errorf("the tail does not start at the script's raising line and the error:\n%s", got)
	}
	if len(lines) > harness.ErrorTailLines || !strings.HasPrefix(lines[len(lines)-1], "[... ") || strings.Contains(got, "ValueError") || strings.Contains(got, "/runs/") {
		t.Errorf("the tail is not bounded to the last error (%d lines):\n%s", len(lines), got)
	}

	// An error raised outside the script's own file (no frame of it).
	if got := harness.ErrorTail("Traceback (most recent call last):\n" + frame("<string>", "<module>", "x") + "SystemExit: 3\n"); got != "SystemExit: 3" {
		t.Errorf("no frame in the script: %q", got)
	}
	// No traceback: the last lines that are not blank, each at most a
	// few hundred bytes, the whole bounded.
	var log strings.Builder
	for i := range 30 {
		fmt.Fprintf(&log, "line %d %s\n\n", i, strings.Repeat("x", 20*i))
	}
	got = harness.ErrorTail(log.String())
	lines = strings.Split(got, "\n")
	if len(got) > harness.ErrorTailBytes || len(lines) > harness.ErrorTailLines || !strings.HasPrefix(lines[len(lines)-1], "line 29 ") || !strings.HasPrefix(lines[0], "[... ") {
		t.Errorf("the tail of a log without a traceback (%d bytes, %d lines):\n%s", len(got), len(lines), got)
	}
	for _, l := range lines {
		if len(l) > 320 {
			t.Errorf("a line of %d bytes", len(l))
		}
	}
	if got := harness.ErrorTail("\n \n"); got != "" {
		t.Errorf("no output: %q", got)
	}
}
