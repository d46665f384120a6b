"""beforeunload: page.close(run_before_unload=True) and leaving a page that asks to stay."""
from support import check, url
from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    context = browser.new_context()
    page = context.new_page()
    # Nobody answers the dialog: leaving is not refused.
    page.goto(url("frames/leave.html"))
    page.click("body")  # beforeunload handlers run only after a user gesture
    page.goto(url("help.html"))
    check(page.url.endswith("/help.html"), "navigated away: %s" % page.url)

    page.goto(url("frames/leave.html"))
    page.click("body")
    with page.expect_event("dialog") as asked:
        page.close(run_before_unload=True)
    dialog = asked.value
    check(dialog.type == "beforeunload" and dialog.default_value == "", "dialog: %s" % dialog)
    check(not page.is_closed(), "the page waits for the answer")
    with page.expect_event("close"):
        dialog.accept()
    check(page.is_closed(), "accepted: closed")

    page = context.new_page()
    page.goto(url("frames/leave.html"))
    page.click("body")
    with page.expect_event("dialog") as asked:
        page.close(run_before_unload=True)
    asked.value.dismiss()
    check(page.evaluate("() => document.title") == "Leave?" and not page.is_closed(), "dismissed: the page stays")
    page.close()
    check(page.is_closed(), "a plain close skips beforeunload")
    browser.close()
print("OK")
