import re

from support import check, expect_error, url
from wright_browser import StaleRef, launch

with launch() as browser:
    page = browser.new_page()
    page.goto(url("counter.html"))
    full = page.aria_snapshot()
    check('heading "Counter"' in full, "the full snapshot has the heading:\n" + full)
    snap = page.aria_snapshot(interactive_only=True)
    m = re.search(r'button "Increment" \[ref=(e\d+)\]', snap)
    check(m, "the button has a ref:\n" + snap)
    button = page.locator("aria-ref=" + m.group(1))
    button.click()
    button.click()
    check(page.locator("#count").inner_text() == "2", "clicked twice through the ref")
    scoped = page.locator("body").aria_snapshot()
    check("Increment" in scoped, "locator.aria_snapshot:\n" + scoped)

    messages = [msg["text"] for msg in page.console_messages()]
    check("counter ready" in messages, "console: %r" % messages)
    errors = [e["message"] for e in page.page_errors()]
    check(any("late failure" in e for e in errors), "page errors: %r" % errors)

    page.reload()
    expect_error(StaleRef, lambda: button.click(timeout=2000))
    check(page.locator("#count").inner_text() == "0", "a stale ref clicked nothing")
    snap = page.aria_snapshot(interactive_only=True)
    ref = re.search(r'button "Increment" \[ref=(e\d+)\]', snap).group(1)
    page.locator("aria-ref=" + ref).click()
    check(page.locator("#count").inner_text() == "1", "a fresh ref works")
    page.goto(url("help.html"))
    expect_error(StaleRef, lambda: page.locator("aria-ref=" + ref).click(timeout=2000))
print("OK")
