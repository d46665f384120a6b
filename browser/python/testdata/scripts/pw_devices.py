"""Device descriptors, taps on a touch context, page.pdf, request timing and a CDP session, through
playwright.sync_api."""
import os
import tempfile

from support import check, expect_error, url
from playwright.sync_api import Error, sync_playwright

with sync_playwright() as p:
    phone = p.devices["iPhone 13"]
    check(phone["viewport"] == {"width": 390, "height": 664} and phone["is_mobile"] and phone["has_touch"], phone)
    check("iPhone" in phone["user_agent"] and phone["default_browser_type"] == "webkit", phone)
    check("iPhone 13 landscape" in p.devices and "Pixel 7" in p.devices and "Desktop Chrome" in p.devices,
          "device names")
    browser = p.chromium.launch()
    context = browser.new_context(**phone)
    page = context.new_page()
    with page.expect_event("requestfinished") as finished:
        page.goto(url("form.html"))
    timing = finished.value.timing
    check(timing["startTime"] > 0 and timing["responseEnd"] >= timing["responseStart"] >= timing["requestStart"],
          "timing %r" % timing)
    got = page.evaluate("[screen.width, devicePixelRatio, navigator.userAgent.includes('iPhone'), 'ontouchstart' in window]")
    check(got == [390, 3, True, True], "the page as an iPhone 13 sees it: %r" % got)

    page.evaluate("""() => {
        document.body.innerHTML = '<button id=b style="width:120px;height:60px">tap</button>';
        window.seen = [];
        for (const t of ['touchstart', 'touchend', 'click']) b.addEventListener(t, () => seen.push(t));
    }""")
    page.tap("#b")
    page.locator("#b").tap()
    page.touchscreen.tap(20, 20)
    check(page.evaluate("seen") == ["touchstart", "touchend", "click"] * 3, page.evaluate("seen"))

    pdf = page.pdf(format="A4", margin={"top": "1cm"})
    check(pdf.startswith(b"%PDF-"), pdf[:8])
    out = os.path.join(tempfile.mkdtemp(), "page.pdf")
    page.pdf(path=out, width="10in", height=400)
    with open(out, "rb") as f:
        check(f.read(5) == b"%PDF-", "the written pdf")
    expect_error(Error, lambda: page.pdf(format="B7"), "unknown paper format")

    session = context.new_cdp_session(page)
    result = session.send("Runtime.evaluate", {"expression": "6 * 7", "returnByValue": True})
    check(result["result"]["value"] == 42, result)
    session.detach()
    expect_error(Error, lambda: session.send("Runtime.evaluate", {"expression": "1"}), "has been closed")

    desktop = browser.new_page()
    expect_error(Error, lambda: desktop.touchscreen.tap(1, 1), "hasTouch must be enabled")
    browser.close()
print("OK")
