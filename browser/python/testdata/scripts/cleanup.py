"""How a script ends (argv[1]) must never leave the driver or Chromium behind."""

import os
import sys
import time

from support import alive, check, processes_with, url
from wright_browser import launch

mode = sys.argv[1]
marker = os.environ["TMPDIR"]


def open_page(browser):
    page = browser.new_page()
    page.goto(url("counter.html"))
    check(processes_with(marker), "Chromium runs on a profile under TMPDIR")
    print("DRIVER_PID", browser._transport.pid, flush=True)
    return page


if mode == "with":
    with launch() as browser:
        open_page(browser)
        pid = browser._transport.pid
    check(not alive(pid), "the driver ended with the with block")
    check(processes_with(marker) == [], "Chromium ended with the with block: %r" % processes_with(marker))
    print("OK")
elif mode == "close":
    browser = launch()
    open_page(browser)
    browser.close()
    check(not alive(browser._transport.pid), "close() ended the driver")
    check(processes_with(marker) == [], "close() ended Chromium")
    browser.close()  # twice is fine
    print("OK")
elif mode == "exception":
    try:
        with launch() as browser:
            open_page(browser)
            raise RuntimeError("the script broke")
    except RuntimeError:
        pass
    check(not alive(browser._transport.pid), "the driver ended despite the exception")
    check(processes_with(marker) == [], "Chromium ended despite the exception")
    print("OK")
elif mode == "atexit":
    browser = launch()
    open_page(browser)
    print("EXITING", flush=True)  # no close(): the interpreter's exit must end everything
elif mode == "sigterm":
    browser = launch()
    open_page(browser)
    print("READY", flush=True)
    time.sleep(120)
    print("still running after SIGTERM")
else:
    sys.exit("unknown mode " + mode)
