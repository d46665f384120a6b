# wright's side of bench/measure/perf, through wright's Python client: the same
# measures as pw.mjs, plus, on pages named with "budget", the snapshot cut
# at 12,000 characters beside the uncut one.
# usage: python3 wright_side.py REPS PAGE::SELECTOR...   (wright_browser on PYTHONPATH)
import json
import sys
import time

from wright_browser import launch


def timed(fn):
    t = time.perf_counter()
    v = fn()
    return (time.perf_counter() - t) * 1000, v


reps = int(sys.argv[1])
with launch(viewport=(1280, 1800)) as browser:
    page = browser.new_page()
    for item in sys.argv[2:]:
        url, selector = item.split("::")
        page.goto(url, wait_until="load")
        sums = {"aria": 0.0, "cached": 0.0, "shot": 0.0, "click": 0.0, "cut": 0.0}
        snap = ""
        for i in range(reps):
            # A change first (untimed, as on Playwright's side): an unchanged
            # page is answered from the last snapshot, timed apart ("cached").
            page.evaluate("i => { document.body.dataset.perf = String(i); }", i)
            d, snap = timed(page.aria_snapshot)
            sums["aria"] += d
            sums["cached"] += timed(page.aria_snapshot)[0]
            sums["shot"] += timed(page.screenshot)[0]
            if "budget" in url:
                page.evaluate("i => { document.body.dataset.perf = 'cut' + i; }", i)
                sums["cut"] += timed(lambda: page.aria_snapshot(max_chars=12000))[0]
            if selector:
                sums["click"] += timed(lambda: page.locator(selector).first.click())[0]
        row = {"side": "wright", "url": url, "snapshot": snap}
        row.update({k + "_ms": v / reps for k, v in sums.items()})
        print(json.dumps(row))
