"""Playwright's disposable init scripts, pages as context managers, browser events."""
from support import check, expect_error, url
from playwright.sync_api import Error, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    contexts = []
    browser.on("context", contexts.append)
    context = browser.new_context()
    check(contexts == [context], "browser 'context' event")
    with context.new_page() as page:
        with page.add_init_script("window.injected = 123"):
            page.goto(url("form.html"))
            check(page.evaluate("window.injected") == 123, "the init script ran")
        page.goto(url("help.html"))
        check(page.evaluate("window.injected") is None, "disposed: it no longer runs")
        expect_error(Error, lambda: page.add_init_script({"not": "a script"}),
                     "Either path or script parameter must be specified")
        kept = page
    check(kept.is_closed() and context.pages == [], "the with block closed the page")
    browser.close()
print("OK")
