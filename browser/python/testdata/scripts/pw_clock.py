"""page.clock / context.clock: a setTimeout countdown driven by the fake clock; the time a new document
(a reload, a popup, a new page, an iframe) starts with; bad input refused with nothing changed."""
import datetime

from support import check, expect_error, url
from playwright.sync_api import Error, sync_playwright

START = datetime.datetime(2024, 2, 2, 8, 0, tzinfo=datetime.timezone.utc)
START_MS = int(START.timestamp() * 1000)


def left(page):
    return page.locator("#left").text_content()


with sync_playwright() as p:
    browser = p.chromium.launch()
    context = browser.new_context()
    page = context.new_page()
    page.clock.install(time=START)
    page.clock.pause_at(START + datetime.timedelta(hours=1))  # before the page loads: nothing runs by itself
    page.goto(url("clock.html"))
    check(page.locator("#opened").text_content() == "2024-02-02T09:00:00.000Z", page.content())
    check(page.evaluate("innerTime") == START_MS + 3_600_000, "the iframe has the clock too")
    check(left(page) == "10", left(page))

    page.clock.run_for(3000)  # three timers, each at its own second
    check(left(page) == "7", left(page))
    page.clock.fast_forward("01:00")  # the lid closed for a minute: the due timer fires once
    check(left(page) == "6", left(page))
    page.clock.run_for(10_000)
    check(left(page) == "0", left(page))
    now = START_MS + 3_600_000 + 3000 + 60_000 + 10_000
    check(page.evaluate("Date.now()") == now, page.evaluate("Date.now()"))
    check(page.evaluate("new Date().constructor === Date && new Date(0).getTime() === 0"), "Date stays Date")

    # a new document keeps the fake time: the reload, a popup's first about:blank, a new page
    page.reload()
    check(page.locator("#opened").text_content() == "2024-02-02T09:01:13.000Z", page.content())
    check(left(page) == "10", "the reloaded countdown starts again")
    popup_now = page.evaluate("() => window.open('about:blank').Date.now()")
    check(popup_now == now, (popup_now, now))
    other = context.new_page()
    check(other.evaluate("Date.now()") == now, other.evaluate("Date.now()"))
    other.clock.run_for(2000)  # one clock for the context
    check(left(page) == "8", left(page))
    now += 2000

    # a timer that throws: the others still run, and run_for says what was thrown
    page.evaluate("setTimeout(() => { throw new Error('boom in a timer'); }, 10); "
                  "setTimeout(() => { window.after = Date.now(); }, 20)")
    expect_error(Error, lambda: page.clock.run_for(20), "boom in a timer")
    check(page.evaluate("after") == now + 20, page.evaluate("after"))
    now += 20

    # bad input: a clear error, and the clock is where it was
    expect_error(Error, lambda: page.clock.run_for("1:02:03:04"), "hh:mm:ss")
    expect_error(Error, lambda: page.clock.run_for(-5), "0 or more")
    expect_error(Error, lambda: page.clock.pause_at("not a date"), "Invalid date: not a date")
    expect_error(Error, lambda: page.clock.pause_at(START), "Cannot pause at 2024-02-02T08:00:00.000Z")
    expect_error(Error, lambda: page.clock.install(time=[1]), "time must be")
    expect_error(Error, lambda: page.clock.set_system_time(1e300), "Invalid date")
    check(page.evaluate("Date.now()") == now, page.evaluate("Date.now()"))
    page.reload()
    check(page.evaluate("Date.now()") == now, "the refused calls left no trace for new documents")

    # a page that moves its own clock or tries to replace it changes only its own document
    tampered = page.evaluate("""async () => {
        try { window.__wrightClock = null; Object.defineProperty(window, '__wrightClock', {value: 1}); }
        catch (e) {}
        await __wrightClock.apply('run_for', {ms: 3600000}, Date.now());
        return Date.now();
    }""")
    check(tampered == now + 3_600_000, tampered)
    check(other.evaluate("Date.now()") == now, "another page keeps the context's time")
    page.reload()
    check(page.evaluate("Date.now()") == now, "a new document has the context's time again")

    # animation frames, performance.now and AbortSignal.timeout follow the clock too
    page.evaluate("window.sig = AbortSignal.timeout(100); window.seen = [performance.now()]; "
                  "requestAnimationFrame(t => seen.push(t, performance.now()))")
    page.clock.run_for(100)
    got = page.evaluate("[sig.aborted, sig.reason.name, seen.length, seen[1] - seen[0] <= 16, seen[1] === seen[2]]")
    check(got == [True, "TimeoutError", 3, True, True], got)

    # Date only: a fixed time keeps the real timers; another context keeps the real clock
    page.clock.set_fixed_time("2030-01-01T00:00:00Z")
    check(page.evaluate("new Date().getUTCFullYear()") == 2030, "fixed time")
    fresh = browser.new_page()
    check(fresh.evaluate("new Date().getUTCFullYear()") >= 2025, "another context is not touched")
    browser.close()
print("OK")
