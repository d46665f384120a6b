"""Find the price of a book on the Quire Books shop, recording the run."""
import json
import os
import sys

import wright_browser
from wright_browser import launch

BOOK = "The Go Programming Language"


def start_url():
    with open(os.environ.get("TASK_JSON", "task.json")) as f:
        return json.load(f)["start_url"]


def main():
    run_dir = wright_browser.next_run_dir("final_runs")
    log = wright_browser.ActionLog(run_dir)
    with launch() as browser:
        page = browser.new_page()
        page.goto(start_url())
        log.step(1, "open the shop's home page")
        log.screenshot(page, "home")

        page.get_by_label("Search books").fill("Go Programming")
        page.get_by_role("button", name="Search").click()
        results = page.locator("#results li")
        results.first.wait_for()
        log.step(2, "search for 'Go Programming': %d result(s)" % results.count())
        log.screenshot(page, "results")

        page.get_by_role("link", name=BOOK).click()
        price = page.get_by_test_id("price")
        price.wait_for()
        log.step(3, "open the page of %s" % BOOK)
        log.screenshot(page, "book")
        log.step(4, "final result: %s costs %s" % (BOOK, price.inner_text()))
    print("run folder:", run_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
