"""Playwright's APIRequestContext (page.request) and route.fetch, made by wright's driver; its calls in a
context's trace, and a request context of its own recording a HAR."""
import json
import os
import tempfile
import zipfile

from support import check, expect_error, url
from playwright.sync_api import Error, expect, sync_playwright

tmp = tempfile.mkdtemp()

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

    # page.request's calls are actions of its context's trace
    context.tracing.start()
    page.request.get(url("help.html"))
    context.tracing.stop(path=os.path.join(tmp, "trace.zip"))
    with zipfile.ZipFile(os.path.join(tmp, "trace.zip")) as zf:
        events = [json.loads(line) for line in zf.read("trace.trace").splitlines() if line.strip()]
    fetches = [e for e in events if e.get("type") == "before" and e.get("class") == "APIRequestContext"]
    check(len(fetches) == 1 and fetches[0]["method"] == "fetch" and fetches[0]["params"]["method"] == "GET"
          and fetches[0]["params"]["url"] == url("help.html"), fetches)
    browser.close()

    # a request context of its own records its calls into a HAR: attached bodies in a .zip ...
    request = p.request.new_context()
    zipped = os.path.join(tmp, "api.har.zip")
    request.tracing.start_har(path=zipped, content="attach")
    expect_error(Error, lambda: request.tracing.start_har(path=zipped), "already been started")
    request.get(url("help.html"))
    request.post(url("help.html"), data={"q": 1})
    request.tracing.stop_har()
    with zipfile.ZipFile(zipped) as zf:
        log = json.loads(zf.read("har.har"))["log"]
        entries = log["entries"]
        check([(e["request"]["method"], e["response"]["status"]) for e in entries] == [("GET", 200), ("POST", 200)]
              and all(e["request"]["url"] == url("help.html") for e in entries), entries)
        check(entries[1]["request"]["postData"]["text"] == '{"q": 1}', entries[1]["request"])
        body = zf.read(entries[0]["response"]["content"]["_file"]).decode()
        check("Help centre" in body, body[:200])
    # ... and embedded in a .har that dispose() writes when stop_har() was not called
    plain = os.path.join(tmp, "api.har")
    request.tracing.start_har(path=plain, url_filter="**/help.html")
    request.get(url("form.html"))
    request.get(url("help.html"))
    request.dispose()
    with open(plain) as f:
        entries = json.load(f)["log"]["entries"]
    check(len(entries) == 1 and "Help centre" in entries[0]["response"]["content"]["text"], entries)
    expect_error(Error, lambda: p.request.new_context().tracing.start(), "start_har")
print("OK")
