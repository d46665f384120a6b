"""Playwright's sync API: content, evaluate's value transfer, handles, scripts, bindings, frames, input, expect()."""
import datetime
import math
import re

from support import check, expect_error
from playwright.sync_api import Error, TimeoutError, expect, sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    check(page.viewport_size == {"width": 1280, "height": 720}, "Playwright's default viewport: %r" % page.viewport_size)
    check(page.evaluate("innerWidth") == 1280, "the viewport is applied")

    # set_content waits for the new document's load
    page.set_content("<title>T</title><div id=a class='x y'>Hello <b>world</b></div><input id=n value=3>"
                     "<button onclick='window.clicked=(window.clicked||0)+1'>Go</button>")
    check(page.title() == "T", "set_content replaced the document")

    # value transfer, both ways
    sent = {"nan": math.nan, "inf": math.inf, "neg0": -0.0, "big": 2 ** 60, "when": datetime.datetime(2020, 5, 27, 1, 31, 38,
            tzinfo=datetime.timezone.utc), "re": re.compile("a+b", re.I), "list": [1, None, "x"]}
    back = page.evaluate("v => v", sent)
    check(math.isnan(back["nan"]) and back["inf"] == math.inf and math.copysign(1, back["neg0"]) < 0, back)
    check(back["big"] == 2 ** 60 and back["when"] == sent["when"] and back["re"].pattern == "a+b", back)
    got = page.evaluate("() => ({u: undefined, n: 42n, t: new Uint8Array([1, 2]), url: new URL('https://x.test/p?q=1')})")
    check(got["u"] is None and got["n"] == 42 and got["t"] == [1, 2] and got["url"].netloc == "x.test", got)
    cyclic = page.evaluate("() => { const a = {name: 'a'}; a.self = a; return a; }")
    check(cyclic["self"] is cyclic, "a cycle comes back as a cycle")
    check(page.evaluate("1 + 2") == 3, "an expression is evaluated")
    expect_error(Error, lambda: page.evaluate("() => { throw new Error('boom') }"), "boom")

    # handles
    el = page.query_selector("#a")
    check(el is not None and el.text_content() == "Hello world", "query_selector finds the element")
    check(page.query_selector("#missing") is None, "query_selector answers None when nothing matches")
    check(len(page.query_selector_all("div, b")) == 2, "query_selector_all")
    check(page.eval_on_selector("#a", "(e, suffix) => e.id + suffix", "!") == "a!", "eval_on_selector")
    check(page.eval_on_selector_all("div, b", "els => els.map(e => e.tagName)") == ["DIV", "B"], "eval_on_selector_all")
    obj = page.evaluate_handle("() => ({answer: 41})")
    check(page.evaluate("o => o.answer + 1", obj) == 42, "a handle passed back is the same object")
    check(obj.get_property("answer").json_value() == 41 and str(obj) == "JSHandle@object", str(obj))
    button = page.wait_for_selector("button")
    button.click()
    check(page.evaluate("window.clicked") == 1, "an ElementHandle acts like a locator")
    obj.dispose()
    expect_error(Error, lambda: obj.evaluate("o => o"), "disposed")

    # script and style tags, init scripts, bindings
    page.add_script_tag(content="window.fromTag = 7")
    check(page.evaluate("window.fromTag") == 7, "add_script_tag")
    page.add_style_tag(content="#a { color: rgb(1, 2, 3) }")
    check(page.eval_on_selector("#a", "e => getComputedStyle(e).color") == "rgb(1, 2, 3)", "add_style_tag")
    page.add_init_script("window.early = 'yes'")
    page.expose_function("mul", lambda a, b: a * b)
    page.goto("data:text/html,<p>next</p>")
    check(page.evaluate("window.early") == "yes", "an init script runs in the next document")
    check(page.evaluate("mul(6, 7)") == 42, "an exposed function answers the page")

    # frames
    page.set_content("<p>top</p><iframe srcdoc='<button>inner</button><p id=x>in frame</p>'></iframe>")
    page.wait_for_function("document.querySelector('iframe').contentDocument.readyState === 'complete'")
    check(len(page.frames) == 2, "main frame and one child: %r" % page.frames)
    check(page.frames[1].evaluate("() => document.querySelector('#x').textContent") == "in frame", "frame evaluate")
    check(page.frame_locator("iframe").locator("#x").inner_text() == "in frame", "frame_locator")

    # keyboard.down/up and dispatch_event
    page.set_content("<input id=t><div id=d>d</div>")
    page.click("#t")
    page.keyboard.down("Shift")
    page.keyboard.press("KeyA")
    page.keyboard.up("Shift")
    page.keyboard.insert_text("é")
    check(page.input_value("#t") == "Aé", "Shift held by keyboard.down: %r" % page.input_value("#t"))
    page.evaluate("() => document.querySelector('#d').addEventListener('click', e => window.ev = e.type)")
    page.dispatch_event("#d", "click")
    check(page.evaluate("window.ev") == "click", "dispatch_event")

    # expect(): retries, then fails with Playwright's message shape
    page.set_content("<div id=later></div><title>Ready</title>")
    page.evaluate("setTimeout(() => document.querySelector('#later').textContent = 'done', 300)")
    expect(page.locator("#later")).to_have_text("done")
    expect(page).to_have_title(re.compile("Rea"))
    expect(page.locator("#nothing")).to_have_count(0)
    expect(page.locator("#later")).not_to_have_text("other", timeout=200)
    err = expect_error(AssertionError, lambda: expect(page.locator("#later")).to_have_text("nope", timeout=300),
                       "Locator expected to have text 'nope'", "Actual value: done",
                       'Expect "to_have_text" with timeout 300ms')
    expect_error(TimeoutError, lambda: page.click("#nothing", timeout=300), "Timeout 300ms exceeded")
    browser.close()
print("OK")
