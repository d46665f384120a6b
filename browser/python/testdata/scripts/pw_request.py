"""Playwright's APIRequestContext (page.request) and route.fetch, made by wright's driver."""
from support import check, expect_error, url
from playwright.sync_api import expect, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    context = browser.new_context()
    page = context.new_page()
    page.goto(url("form.html"))
    context.add_cookies([{"name": "who", "value": "me", "url": url("/")}])

    resp = page.request.get(url("help.html"))
    check(resp.ok and resp.status == 200 and "Help centre" in resp.text(), resp)
    check(resp.headers["content-type"].startswith("text/html"), resp.headers)
    expect(resp).to_be_ok()
    missing = page.request.get(url("no-such-page"))
    check(missing.status == 404 and not missing.ok, missing)
    expect(missing).not_to_be_ok()
    err = expect_error(AssertionError, lambda: expect(missing).to_be_ok(), "\u2192 GET " + url("no-such-page"),
                       "\u2190 404")

    # a route that fetches the real answer and changes it
    def handle(route):
        real = route.fetch()
        route.fulfill(response=real, status=201, headers={"x-changed": "1"}, body=real.text().replace("Help", "Aid"))

    page.route("**/help.html", handle)
    answer = page.goto(url("help.html"))
    check(answer.status == 201 and answer.headers.get("x-changed") == "1", answer)
    check("Aid centre" in page.content(), page.content())

    # fallback(...) changes the request the next handlers see and the one that is sent
    seen = []

    def last(route):
        seen.append((route.request.method, route.request.header_value("X-Tag")))
        route.continue_()

    context.route("**/form.html", last)
    page.route("**/form.html", lambda route: route.fallback(headers={**route.request.headers, "X-Tag": "t"}))
    page.goto(url("form.html"))
    check(seen == [("GET", "t")], seen)
    browser.close()
print("OK")
