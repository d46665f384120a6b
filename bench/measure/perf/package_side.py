# The `playwright` package against wright_browser: the same page, the same
# calls (click, fill, ARIA snapshot, screenshot), one browser each, taken in
# turns so both see the same load. The package is wright_browser's classes
# behind Playwright's entry points, so the two should cost the same.
# usage: python3 package_side.py ROUNDS REPS   (wright client python --out DIR on PYTHONPATH)
import statistics
import sys
import time

import wright_browser
from playwright.sync_api import sync_playwright

PAGE = """<h1>Order</h1><form><label>Name <input id=name></label>
<label>Email <input id=email type=email></label><button type=button id=go
onclick="this.textContent = 'Sent ' + (++window.n || (window.n = 1))">Send</button></form>
<ul>""" + "".join("<li><a href='#%d'>item %d</a></li>" % (i, i) for i in range(200)) + "</ul>"


def measure(page, reps, out):
    page.set_content(PAGE)
    for i in range(reps):
        for name, fn in (("click", lambda: page.locator("#go").click()),
                         ("fill", lambda: page.locator("#name").fill("value %d" % i)),
                         ("aria", page.aria_snapshot),
                         ("shot", page.screenshot)):
            if name == "aria":
                # a change first, so the snapshot is built, not reused
                page.evaluate("i => { document.body.dataset.perf = String(i); }", i)
            t = time.perf_counter()
            fn()
            out.setdefault(name, []).append((time.perf_counter() - t) * 1000)


def main():
    rounds, reps = int(sys.argv[1]), int(sys.argv[2])
    sides = {"wright_browser": {}, "playwright package": {}}
    def client():
        with wright_browser.launch(viewport=(1280, 720)) as browser:
            measure(browser.new_page(), reps, sides["wright_browser"])

    def package():
        with sync_playwright() as p:
            browser = p.chromium.launch()
            measure(browser.new_page(), reps, sides["playwright package"])
            browser.close()

    for r in range(rounds):
        # each goes first every other round: neither gets the warmer machine
        for side in ((client, package) if r % 2 == 0 else (package, client)):
            side()
    base = sides["wright_browser"]
    print("%-8s %16s %20s %8s" % ("call", "wright_browser ms", "playwright pkg ms", "ratio"))
    for name in ("click", "fill", "aria", "shot"):
        a = statistics.median(base[name])
        b = statistics.median(sides["playwright package"][name])
        print("%-8s %16.2f %20.2f %7.2fx" % (name, a, b, b / a))


if __name__ == "__main__":
    main()
