"""Playwright's sync API: isolated contexts and their options, cookies, storage state, routing."""
import json
import os

from support import check, expect_error, url
from playwright.sync_api import Error, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    one = browser.new_context(user_agent="wright-test-agent", locale="de-DE", viewport={"width": 500, "height": 400})
    two = browser.new_context()
    a, b = one.new_page(), two.new_page()
    check(a.evaluate("[navigator.userAgent, navigator.language, innerWidth]") == ["wright-test-agent", "de-DE", 500],
          "context options reach the page")
    # base_url: goto, wait_for_url and route take URLs relative to it
    based = browser.new_page(base_url=url("sub/"))
    based.goto("/form.html")
    based.wait_for_url("/form.html", timeout=5000)
    check(based.url == url("form.html"), based.url)
    based.route("./routed.html", lambda route: route.fulfill(body="<p>routed</p>", content_type="text/html"))
    based.goto("./routed.html")
    check(based.url == url("sub/routed.html") and based.text_content("p") == "routed", based.url)
    based.close()
    media = browser.new_context(contrast="more", forced_colors="active")
    mp = media.new_page()
    check(mp.evaluate("[matchMedia('(prefers-contrast: more)').matches, matchMedia('(forced-colors: active)').matches]")
          == [True, True], "a context's contrast and forced colors")
    mp.emulate_media(color_scheme="dark")  # the context's other media features stay
    check(mp.evaluate("matchMedia('(prefers-contrast: more)').matches"), "contrast kept by emulate_media")
    media.close()

    # isolation: cookies and localStorage are per context
    a.goto(url("form.html"))
    b.goto(url("form.html"))
    a.evaluate("() => { document.cookie = 'k=v; path=/'; localStorage.setItem('s', '1'); }")
    check(b.evaluate("document.cookie") == "" and b.evaluate("localStorage.getItem('s')") is None, "isolated")
    check([c["name"] for c in one.cookies()] == ["k"] and two.cookies() == [], "cookies per context")
    two.add_cookies([{"name": "z", "value": "9", "url": url("/")}])
    check(b.evaluate("document.cookie") == "z=9", "add_cookies")

    # storage state round trip
    path = os.path.join(os.getcwd(), "state.json")
    one.storage_state(path=path)
    with open(path) as f:
        state = json.load(f)
    check(state["cookies"][0]["name"] == "k" and state["origins"][0]["localStorage"] == [{"name": "s", "value": "1"}],
          state)
    three = browser.new_context(storage_state=path)
    c = three.new_page()
    c.goto(url("form.html"))
    check(c.evaluate("[document.cookie, localStorage.getItem('s')]") == ["k=v", "1"], "storage state loaded")

    # routing: fulfill, abort, fall back, continue with changes
    seen = []
    a.route("**/*.css", lambda route: (seen.append(route.request.url), route.abort()))
    a.route("**/fake.html", lambda route: route.fulfill(body="<title>Fake</title><p>made up</p>", content_type="text/html"))
    a.route("**/fake.html", lambda route: route.fallback())  # newest first, falls back to the one above
    a.goto(url("fake.html"))
    check(a.title() == "Fake", "fulfilled: %r" % a.title())
    a.unroute("**/fake.html")
    a.route("**/renamed.html", lambda route: route.continue_(url=url("form.html")))
    a.goto(url("renamed.html"))
    check(a.locator("form").count() == 1, "continue_ with a new url")
    three.close()
    one.close()
    check(browser.contexts == [two], "closed contexts leave browser.contexts")
    expect_error(Error, lambda: browser.new_context(client_certificates=[{}]), "client_certificates")
    browser.close()
print("OK")
