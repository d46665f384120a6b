"""HAR round trip (run by TestHARReplayOffline): record a page, or replay it from the recording.

    har.py record HAR_ZIP HAR_FULL   records FIXTURE_URL/page.html into both (a .zip, and a full .har)
    har.py replay HAR_ZIP            answers the same page from the .zip alone (its server is gone)

Each prints what the page showed as one JSON line, then OK.
"""
import json
import sys

from support import check, url
from playwright.sync_api import Error, sync_playwright


def visit(page):
    page.goto(url("page.html"))
    page.wait_for_function("document.querySelector('#data').textContent !== ''")
    seen = {
        "title": page.title(),
        "text": page.locator("#data").text_content(),
        "color": page.evaluate("getComputedStyle(document.body).backgroundColor"),
        "image": page.evaluate("document.querySelector('img').naturalWidth"),
        "posted": page.evaluate("fetch('/echo', {method: 'POST', body: 'two'}).then(r => r.text())"),
    }
    print(json.dumps(seen, sort_keys=True))


mode = sys.argv[1]
with sync_playwright() as p:
    browser = p.chromium.launch()
    if mode == "record":
        full = browser.new_context(record_har_path=sys.argv[3])
        visit(full.new_page())
        full.close()
        context = browser.new_context(record_har_path=sys.argv[2])
        visit(context.new_page())
        context.close()
    else:
        context = browser.new_context()
        context.route_from_har(sys.argv[2], not_found="abort")
        page = context.new_page()
        visit(page)
        try:
            page.goto(url("never-recorded.html"))
            raise AssertionError("a page the HAR does not hold was served")
        except Error as err:
            check("net::ERR_FAILED" in str(err), err)
        context.close()
    browser.close()
print("OK")
