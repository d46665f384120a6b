package demo

import (
	"fmt"
	"strings"
)

// Book is a book of the shop that the recordings know.
type Book struct {
	ID, Title, Author string
	// Price is as the shop shows it, in US dollars: "55.00".
	Price string
}

// DefaultBook is the book of the demo's task, and the saved script's
// default input.
var DefaultBook = Book{"gopl", "The Go Programming Language", "Alan Donovan, Brian Kernighan", "39.99"}

// OtherBooks are the titles the tour reruns the saved script with.
var OtherBooks = []Book{
	{"sicp", "Structure and Interpretation of Computer Programs", "Harold Abelson, Gerald Sussman", "55.00"},
	{"taocp1", "The Art of Computer Programming, Vol. 1", "Donald Knuth", "74.99"},
}

// UnrecordedBook is a book of the shop that no recording shows: a rerun
// with it is what a recorded judge must not pass.
var UnrecordedBook = Book{"tpop", "The Practice of Programming", "Brian Kernighan, Rob Pike", "42.50"}

// Result is the answer the script gives for b, as its output schema has it.
func (b Book) Result() string {
	return fmt.Sprintf(`{"title": %q, "author": %q, "price": %s}`, b.Title, b.Author, strings.TrimRight(strings.TrimRight(b.Price, "0"), "."))
}

// searchControls are, per version of the shop, the label of the search
// field and the name of its button: what the redesign changed.
var searchControls = map[int][2]string{1: {"Search books", "Search"}, 2: {"Find a book", "Go"}}

// BookScript is final_script.py as the recorded model writes it for
// version v of the shop: a command-line tool (-c crafted_cli) whose --book
// is the title to look up, defaulting to the task's.
func BookScript(v int) string {
	c := searchControls[v]
	return strings.NewReplacer("{{LABEL}}", c[0], "{{BUTTON}}", c[1], "{{BOOK}}", DefaultBook.Title).Replace(bookScript)
}

// bookScript is plain Playwright: it runs wherever Playwright's Python
// package (or wright's client) is importable.
const bookScript = `"""Find a book on the Quire Books shop by its title and report its title, author and price.

A command-line tool: python3 final_script.py --book "TITLE" searches the shop
for the book, opens its page and returns its title, author and price.
"""
import argparse
import functools
import json
import os
import re
import sys

from playwright.sync_api import expect, sync_playwright

BOOK = "{{BOOK}}"


def start_url():
    with open(os.environ.get("TASK_JSON", "task.json")) as f:
        return json.load(f)["start_url"]


@functools.lru_cache(maxsize=None)
def run_folder(base="final_runs"):
    """The folder this run records into: $WRIGHT_RUN_DIR, else the next final_runs/run_<N>."""
    if os.environ.get("WRIGHT_RUN_DIR"):
        run_dir = os.environ["WRIGHT_RUN_DIR"]
    else:
        os.makedirs(base, exist_ok=True)
        taken = [int(m.group(1)) for d in os.listdir(base) if (m := re.fullmatch(r"run_(\d+)", d))]
        run_dir = os.path.join(base, "run_%d" % (max(taken, default=0) + 1))
    os.makedirs(os.path.join(run_dir, "screenshots"), exist_ok=True)
    return run_dir


class Record:
    """step <n> action: ... lines in final_script_log.txt, one screenshot per critical point."""

    def __init__(self, run_dir):
        self.run_dir, self.shots = run_dir, 0

    def step(self, n, text):
        line = "step %d action: %s" % (n, text)
        print(line, flush=True)
        with open(os.path.join(self.run_dir, "final_script_log.txt"), "a") as f:
            f.write(line + "\n")

    def screenshot(self, page, name):
        self.shots += 1
        page.screenshot(path=os.path.join(self.run_dir, "screenshots", "final_execution_%d_%s.png" % (self.shots, name)))


def run(book: str = BOOK) -> dict:
    """Search the shop for book, open its page and return its title, author and price."""
    log = Record(run_folder())
    with sync_playwright() as p:
        browser = p.chromium.launch()
        page = browser.new_page()
        page.set_default_timeout(5000)  # on a changed page, fail in seconds rather than half a minute
        page.goto(start_url())
        log.step(1, "open the shop's home page")
        log.screenshot(page, "home")

        page.get_by_label("{{LABEL}}").fill(book)
        page.get_by_role("button", name="{{BUTTON}}", exact=True).click()
        results = page.locator("#results li")
        expect(results.first).to_be_visible()
        log.step(2, "search for %r: %d result(s)" % (book, results.count()))
        log.screenshot(page, "results")

        page.get_by_role("link", name=book, exact=True).click()
        price = page.get_by_test_id("price")
        expect(price).to_be_visible()
        log.step(3, "open the page of %s" % book)
        log.screenshot(page, "book")
        byline = page.locator("#book p").first.inner_text()  # "by <author> · <year>"
        result = {
            "title": page.locator("#book h2").inner_text().strip(),
            "author": byline.removeprefix("by ").split(" · ")[0].strip(),
            "price": float(price.inner_text().strip().lstrip("$")),
        }
        browser.close()
    log.step(4, "final result: " + json.dumps(result))
    return result


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog='Returns, prints and writes to result.json in its run folder: {"title": str, "author": str, "price": number, in US dollars}.')
    parser.add_argument("--book", default=BOOK, help="the book's exact title (default: %(default)s)")
    args = parser.parse_args()
    result = run(args.book)
    with open(os.path.join(run_folder(), "result.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
`
