# The five-line script of five.py, timed inside the process: how long the
# client's import, launch(), new_page(), goto, title and close() each take.
# Prints one JSON line of milliseconds. With WRIGHT_TRACE_CALLS=1 it also
# prints every driver call and its time to stderr, to see what a step is
# made of. Run by BenchmarkWarmSteps in run/harness.
import json
import os
import sys
import time

began = time.perf_counter()
from playwright.sync_api import sync_playwright  # noqa: E402

times = {"import": time.perf_counter() - began}

if os.environ.get("WRIGHT_TRACE_CALLS"):
    from playwright._impl import _transport

    plain = _transport._Transport.call

    def traced(self, method, params, guard_s=None):
        t = time.perf_counter()
        try:
            return plain(self, method, params, guard_s)
        finally:
            print("  %-32s %6.1f ms" % (method, (time.perf_counter() - t) * 1000), file=sys.stderr)

    _transport._Transport.call = traced


def step(name, fn):
    t = time.perf_counter()
    if os.environ.get("WRIGHT_TRACE_CALLS"):
        print(name, file=sys.stderr)
    out = fn()
    times[name] = time.perf_counter() - t
    return out


with sync_playwright() as p:
    browser = step("launch", p.chromium.launch)
    page = step("new_page", browser.new_page)
    step("goto", lambda: page.goto(sys.argv[1]))
    title = step("title", page.title)
    step("close", browser.close)

print(json.dumps({"page_title": title, **{k: round(v * 1000, 1) for k, v in times.items()}}))
