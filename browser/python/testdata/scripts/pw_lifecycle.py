"""Playwright's disposable init scripts, pages as context managers, browser events, waits across reloads,
and the default context of a browser attached over CDP."""
import socket

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

    # wait_for_function polls on across navigations: the page reloads itself five times, each time
    # before a check (which takes 200 ms) can finish, so every check but the last loses its document
    # mid-call and is tried again in the next one.
    page = context.new_page()
    page.add_init_script("""sessionStorage.n = String(Number(sessionStorage.n || 0) + 1);
        if (Number(sessionStorage.n) < 6) setTimeout(() => location.reload(), 60);""")
    page.goto(url("help.html"))
    page.wait_for_function("""async () => { await new Promise(r => setTimeout(r, 200));
        return Number(sessionStorage.n) >= 6; }""", polling=10, timeout=15000)
    check(page.evaluate("sessionStorage.n") == "6", "the wait ended after the last reload")

    # connect_over_cdp lists the browser's default context first, with the pages it already had open
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = p.chromium.launch(args=["--remote-debugging-port=%d" % port])
    # a tab of the browser's default context, as a user's or another tool's would be
    server.new_browser_cdp_session().send("Target.createTarget", {"url": url("help.html")})
    attached = p.chromium.connect_over_cdp("http://127.0.0.1:%d" % port)
    check(len(attached.contexts) == 1, attached.contexts)
    default = attached.contexts[0]
    tab = [pg for pg in default.pages if pg.url == url("help.html")]
    check(len(tab) == 1 and tab[0].context is default, [pg.url for pg in default.pages])
    tab[0].wait_for_load_state()
    check("Help" in tab[0].title(), tab[0].title())
    own = attached.new_context()
    check(attached.contexts == [default, own], "a new context is listed after the default one")
    attached.close()
    again = p.chromium.connect_over_cdp("http://127.0.0.1:%d" % port)
    check(any(pg.url == url("help.html") for pg in again.contexts[0].pages), "closing the attach left the tab")
    again.close()
    server.close()
    browser.close()
print("OK")
