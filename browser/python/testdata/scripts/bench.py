"""Round trips through the client: CLICK_MS is one locator.click, CALL_MS one page.title()."""

import os
import time

from support import check, url
from wright_browser import launch

n = int(os.environ.get("BENCH_N", "100"))
with launch() as browser:
    page = browser.new_page()
    page.goto(url("bench.html"))
    button = page.get_by_role("button", name="Click me")
    for _ in range(5):
        button.click()
    start = time.perf_counter()
    for _ in range(n):
        button.click()
    click_ms = (time.perf_counter() - start) * 1000 / n
    start = time.perf_counter()
    for _ in range(n):
        page.title()
    call_ms = (time.perf_counter() - start) * 1000 / n
    check(button.get_attribute("data-n") == str(n + 5), "every click landed")
print("CLICK_MS %.3f" % click_ms)
print("CALL_MS %.3f" % call_ms)
