"""Playwright's sync API: events and expect_* waiters, dialogs, popups, network events."""
from support import check, expect_error, url
from playwright.sync_api import TimeoutError, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()

    # console: listeners run during the call that caused them
    texts = []
    page.on("console", lambda m: texts.append((m.type, m.text)))
    with page.expect_console_message() as info:
        page.evaluate("console.warn('careful', 1)")
    check(info.value.text == "careful 1" and info.value.type == "warning", info.value)
    check(("warning", "careful 1") in texts, texts)
    check(info.value.args[1].json_value() == 1, "console args are handles")

    # dialogs: answered by the listener; with none, dismissed (Playwright's rule)
    page.once("dialog", lambda d: d.accept("Ada"))
    check(page.evaluate("prompt('Name?', 'x')") == "Ada", "the listener accepted the prompt")
    check(page.evaluate("confirm('Sure?')") is False, "a dialog nobody listens to is dismissed")

    # page errors
    with page.expect_event("pageerror") as err:
        page.evaluate("setTimeout(() => { throw new TypeError('bad thing') }, 0)")
    check(err.value.name == "TypeError" and err.value.message == "bad thing", err.value)

    # navigation and network events
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    with page.expect_response(lambda r: r.url.endswith("/popup.html")) as resp:
        response = page.goto(url("popup.html"))
    check(resp.value.status == 200 and response.status == 200 and response.ok, response)
    check(response.request.is_navigation_request() and response.request.method == "GET", response.request)
    check("<title>Opener</title>" in response.text(), "response.text() is the body")
    check(url("popup.html") in requests, requests)
    check(page.goto("about:blank") is None, "goto answers None for about:blank")
    page.goto(url("popup.html"))
    with page.expect_navigation(url="**/help.html"):
        page.evaluate("location.href = '/help.html'")
    check(page.url.endswith("/help.html"), page.url)

    # popups, as page and context events
    page.goto(url("popup.html"))
    with page.context.expect_page() as new_page, page.expect_popup() as popup:
        page.get_by_role("link", name="Open help").click()
    check(popup.value is new_page.value and popup.value.context is page.context, "one popup, in the opener's context")
    popup.value.wait_for_load_state()
    check(popup.value.title() != "", "the popup loaded")
    closed = []
    popup.value.on("close", lambda pg: closed.append(pg))
    popup.value.close()
    check(closed == [popup.value], "close event")

    expect_error(TimeoutError, lambda: page.wait_for_event("popup", timeout=200), "Timeout 200ms exceeded")
    browser.close()
print("OK")
