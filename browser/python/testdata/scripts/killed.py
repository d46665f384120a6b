"""The driver is killed (by the test) while a call waits: the call fails at once, nothing is left."""

from support import alive, check, expect_error, url
from wright_browser import TargetClosed, launch

browser = launch()
page = browser.new_page()
page.goto(url("counter.html"))
pid = browser._transport.pid
print("DRIVER_PID", pid, flush=True)
err = expect_error(TargetClosed, lambda: page.wait_for_selector("#never", timeout=120000),
                   "wait_for_selector", "SIGKILL")
print("ERROR", str(err).splitlines()[0], flush=True)
check(not alive(pid), "the driver is gone")
expect_error(TargetClosed, lambda: page.title(), "page.title")
browser.close()  # never raises, even now
print("OK")
