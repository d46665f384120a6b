"""A live context's set_storage_state, init scripts in a new page's first document calling an exposed
function, child frames' script and style tags, page.url in a close handler, and two clients attached
over CDP seeing each other's tabs."""
import json
import os
import socket
import tempfile

from support import check, url
from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()

    # set_storage_state: the context's cookies and storage are replaced, from a dict or a file
    src = browser.new_context()
    page = src.new_page()
    page.goto(url("help.html"))
    page.evaluate("localStorage.setItem('k', 'v')")
    src.add_cookies([{"name": "a", "value": "1", "url": url("")}])
    state = src.storage_state()
    src.close()
    dst = browser.new_context()
    page = dst.new_page()
    page.goto(url("help.html"))
    page.evaluate("localStorage.setItem('old', 'x')")
    dst.add_cookies([{"name": "b", "value": "2", "url": url("")}])
    dst.set_storage_state(state)
    check(page.evaluate("[localStorage.getItem('k'), localStorage.getItem('old')]") == ["v", None],
          "the open page's origin holds the state's storage alone")
    check([c["name"] for c in dst.cookies()] == ["a"], dst.cookies())
    path = os.path.join(tempfile.mkdtemp(), "state.json")
    with open(path, "w") as f:
        json.dump({"cookies": [], "origins": []}, f)
    dst.set_storage_state(path)
    check(dst.cookies() == [] and page.evaluate("localStorage.length") == 0, "an empty state from a file")

    # an init script of the context runs in a new page's first document, where its functions are bound
    calls = []
    dst.expose_function("woof", lambda arg: calls.append(arg))
    dst.add_init_script("woof('context')")
    fresh = dst.new_page()
    fresh.evaluate("undefined")
    check(calls == ["context"], calls)

    # a child frame's own script and style tags
    fresh.goto(url("help.html"))
    fresh.evaluate("""u => new Promise(r => { const f = document.createElement('iframe'); f.src = u;
        f.onload = r; document.body.appendChild(f); })""", url("form.html"))
    child = fresh.frames[1]
    child.add_script_tag(content="window.__injected = 42")
    child.add_style_tag(content="body { margin: 17px }")
    check(child.evaluate("window.__injected") == 42 and fresh.evaluate("window.__injected") is None,
          "the script ran in the child frame only")
    check(child.evaluate("getComputedStyle(document.body).margin") == "17px", "the style is the child's")

    # a close handler reads the URL the page last showed
    seen = []
    fresh.on("close", lambda pg: seen.append(pg.url))
    fresh.close()
    check(seen == [url("help.html")], seen)

    # two clients of one browser: each lists the tab the other opened in the default context
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = p.chromium.launch(args=["--remote-debugging-port=%d" % port])
    one = p.chromium.connect_over_cdp("http://127.0.0.1:%d" % port)
    two = p.chromium.connect_over_cdp("http://127.0.0.1:%d" % port, headers={"x-test": "1"})
    one.contexts[0].new_page().goto(url("help.html"))
    two.contexts[0].new_page().goto(url("form.html"))
    for client in (one, two):
        urls = sorted(pg.url for pg in client.contexts[0].pages)
        check(url("help.html") in urls and url("form.html") in urls, urls)
    one.close()
    two.close()
    server.close()
    browser.close()
print("OK")
