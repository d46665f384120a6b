"""sync_playwright() and the Playwright object it yields (chromium, selectors, devices)."""

import os
import sys
import threading

from ._errors import Error
from ._browser_type import BrowserType
from ._selectors import Selectors
from ._devices import devices
from ._fetch import APIRequest


class Playwright:
    """What sync_playwright() yields: chromium (firefox, webkit), devices, selectors."""

    def __init__(self):
        self._browsers = []
        self.chromium = BrowserType(self, "chromium")
        self.firefox = BrowserType(self, "firefox")
        self.webkit = BrowserType(self, "webkit")
        self.selectors = Selectors(self)
        self.devices = devices()
        self.request = APIRequest(self)

    def _started(self, browser):
        """A browser this Playwright launched: it is closed by stop() and gets the registered engines."""
        self._browsers.append(browser)
        self.selectors._apply(browser)

    def __getitem__(self, name):
        return {"chromium": self.chromium, "firefox": self.firefox, "webkit": self.webkit}[name]

    def stop(self):
        if _running_here() is self:
            _running.playwright = (None, None)
        for browser in self._browsers:
            browser.close()
        self._browsers.clear()
        self.request._stop()


# The Playwright object started and not yet stopped in each thread, with the process it belongs to (a forked
# child inherits the parent's record, not its Playwright): as in Playwright, a thread runs one at a time.
_running = threading.local()


def _running_here():
    pid, playwright = getattr(_running, "playwright", (None, None))
    return playwright if pid == os.getpid() else None


def _refuse_nested():
    # No loop runs where asyncio was never imported; importing it only to ask would cost every
    # process that uses the sync API about 10 MB (asyncio pulls in ssl and concurrent.futures).
    aio = sys.modules.get("asyncio")
    in_loop = False
    if aio is not None:
        try:
            aio.get_running_loop()
            in_loop = True
        except RuntimeError:
            pass
    if in_loop or _running_here() is not None:
        raise Error("It looks like you are using Playwright Sync API inside the asyncio loop. Please use the Async "
                    "API instead. (%s)" % ("this thread runs an asyncio event loop" if in_loop else
                                          "a sync_playwright() is already running in this thread: use the Playwright "
                                          "object it gave, or stop() it before starting another"))


class PlaywrightContextManager:
    def __init__(self):
        self._playwright = None

    def start(self):
        _refuse_nested()
        self._playwright = Playwright()
        _running.playwright = (os.getpid(), self._playwright)
        return self._playwright

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        if self._playwright:
            self._playwright.stop()
        return False


def sync_playwright():
    """The entry point: `with sync_playwright() as p: browser = p.chromium.launch()`."""
    return PlaywrightContextManager()
