"""Playwright's sync API: fallback overrides seen by later route handlers, route() as a Disposable,
console_messages()/page_errors() as objects, navigation timeouts, Playwright's reprs."""
from support import check, expect_error, url
from playwright.sync_api import TimeoutError, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto(url("form.html"))
    check(repr(page) == "<Page url=%r>" % page.url, repr(page))

    # a fallback's overrides show on route.request for the next handler; a None header is removed
    seen = []

    def last(route):
        r = route.request
        seen.append((r.method, r.headers.get("x-a"), r.headers.get("x-b"), r.post_data, r.url))
        route.fulfill(body="ok")

    page.route("**/api/*", last)
    page.route("**/api/one", lambda route: route.fallback(
        method="PUT", headers={**route.request.headers, "x-a": "1", "x-b": None}, post_data=b"\x00\x01",
        url=url("api/two")))
    text = page.evaluate("u => fetch(u, {method: 'POST', body: 'x', headers: {'x-b': 'gone'}}).then(r => r.text())",
                         url("api/one"))
    check(text == "ok", text)
    check(seen == [("PUT", "1", None, "\x00\x01", url("api/two"))], seen)

    # route() returns a Disposable: leaving the block unroutes
    hits = []
    with page.route("**/other", lambda route: (hits.append(1), route.fulfill(body="routed"))):
        check(page.evaluate("u => fetch(u).then(r => r.text())", url("other")) == "routed", "routed inside")
    page.unroute("**/api/*")
    page.evaluate("u => fetch(u).then(r => r.status)", url("other"))
    check(hits == [1], "the route is gone after the block: %r" % hits)

    # route.fetch: the real response, changed before it answers the page; page.request makes requests too
    def patch(route):
        resp = route.fetch()
        check(resp.status == 200 and "<form" in resp.text(), resp)
        route.fulfill(response=resp, body=resp.text().replace("</body>", "<p id=patched>patched</p></body>"))

    page.route("**/form.html", patch)
    page.goto(url("form.html"))
    check(page.locator("#patched").text_content() == "patched", "fulfilled with the fetched, changed body")
    page.unroute("**/form.html")
    got = page.request.get(url("form.html"), params={"q": "1"})
    check(got.ok and got.url.endswith("form.html?q=1") and "text/html" in got.headers["content-type"], got)

    # console messages and page errors as objects (wright's dict reading still works)
    page.evaluate("() => { console.log('hello', 5); setTimeout(() => { throw new TypeError('late') }, 0); }")
    page.wait_for_timeout(200)
    msgs = [m for m in page.console_messages() if m.text == "hello 5"]
    check(msgs and msgs[-1].type == "log" and msgs[-1]["text"] == "hello 5" and msgs[-1].page is page, msgs)
    check(repr(msgs[-1]) == "<ConsoleMessage type=log text=hello 5>", repr(msgs[-1]))
    page.clear_console_messages()
    check(not any(m.text == "hello 5" for m in page.console_messages()), "cleared")
    errs = page.page_errors()
    check(errs and errs[-1].message == "late" and errs[-1].name == "TypeError" and "late" in errs[-1]["message"],
          [(e.name, e.message) for e in errs])
    # filter="since-navigation": only what the current document logged or threw
    page.evaluate("() => { console.log('before-nav'); setTimeout(() => { throw new Error('old') }, 0); }")
    page.wait_for_timeout(100)
    page.goto(url("form.html"))
    page.evaluate("() => { console.log('after-nav'); setTimeout(() => { throw new Error('new') }, 0); }")
    page.wait_for_timeout(100)
    texts = [m.text for m in page.console_messages(filter="since-navigation")]
    check("after-nav" in texts and "before-nav" not in texts, texts)
    check("before-nav" in [m.text for m in page.console_messages()], "the whole log keeps them")
    check([e.message for e in page.page_errors(filter="since-navigation")] == ["new"],
          [e.message for e in page.page_errors(filter="since-navigation")])

    # set_default_navigation_timeout governs goto before set_default_timeout; errors carry the caller's stack
    page.set_default_timeout(1)
    page.set_default_navigation_timeout(20000)
    page.goto(url("form.html"))
    err = expect_error(TimeoutError, lambda: page.click("#missing"), "Timeout 1ms exceeded")
    check(__file__ in err.stack, err.stack)
    page.set_default_timeout(10000)
    # goto's referer is sent as given, from another origin too; the page's own requests send the page's
    with page.expect_request("**/help.html") as sent:
        page.goto(url("help.html"), referer="http://referrer.example/")
    check(sent.value.headers.get("referer") == "http://referrer.example/", sent.value.headers)
    page.set_content("<input type=checkbox>")
    page.set_checked("input", True)
    check(page.is_checked("input", timeout=10) is True, "set_checked")
    browser.close()
print("OK")
