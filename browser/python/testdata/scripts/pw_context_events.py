"""Playwright's context events: pages, popups' console, loads, navigations, frames, closes, errors."""
from support import check, url
from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    context = browser.new_context()
    page = context.new_page()

    # a popup's console output reaches the context, even before the popup is announced
    with context.expect_console_message() as msg, page.expect_popup() as popup:
        page.evaluate("() => { const w = window.open(''); w.console.log('from the popup'); }")
    check(msg.value.text == "from the popup", msg.value)
    check(msg.value.page is popup.value and popup.value.context is context, "the message names the popup")

    # a shift- or ctrl-click on a link opens a page of the context with no opener, set up as the context's
    page.set_content('<a href="%s">help</a>' % url("help.html"))
    for key in ("Shift", "Control"):
        with context.expect_page() as opened:
            page.click("a", modifiers=[key])
        tab = opened.value
        tab.wait_for_load_state()
        check(tab.opener() is None and tab.context is context and tab in context.pages, (key, tab))
        check(tab.url == url("help.html") and tab.evaluate("innerWidth") == 1280, (key, tab.url))
        tab.close()

    # loads and navigations of any page
    popup.value.wait_for_load_state()
    with context.expect_event("pageload", lambda pg: pg is page) as loaded:
        page.goto(url("form.html"))
    check(loaded.value is page, loaded.value)
    with context.expect_event("framenavigated") as nav:
        page.goto(url("help.html"))
    check(nav.value == page.main_frame and nav.value.url == url("help.html"), nav.value)

    # frames attached and detached, with their parent
    with context.expect_event("frameattached") as attached:
        page.evaluate("() => { const f = document.createElement('iframe'); f.id = 'x';"
                      " f.src = '/form.html'; document.body.appendChild(f); }")
    frame = attached.value
    check(frame.parent_frame == page.main_frame, frame.parent_frame)
    page.wait_for_selector("iframe")
    check(frame.frame_element().get_attribute("id") == "x", "the frame's element is its iframe")
    with context.expect_event("framedetached") as detached:
        page.evaluate("() => document.getElementById('x').remove()")
    check(detached.value is frame and frame.is_detached(), detached.value)

    # uncaught errors with where they were thrown
    with context.expect_event("weberror") as err:
        page.goto(url("error.html"))
    check(err.value.page is page and err.value.error.message == "boom", err.value.error)
    check(err.value.location["url"] == url("error.js") and err.value.location["line"] == 2, err.value.location)

    # a page closing
    other = context.new_page()
    with context.expect_event("pageclose") as closed:
        other.close()
    check(closed.value is other, closed.value)
    browser.close()
print("OK")
