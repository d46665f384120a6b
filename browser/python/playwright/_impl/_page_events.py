"""Page events (page.on(...)) and the expect_* waiters of a page, with the frames those events report."""

import re
import time

from ._errors import NavigationError
from ._helpers import _url_matches
from ._events import _EventWaiter


def _describe_pattern(p):
    if isinstance(p, re.Pattern):
        return "matching /%s/" % p.pattern
    if callable(p):
        return "matching the predicate"
    return '"%s"' % p


def _url_predicate(url_or_predicate, page):
    if url_or_predicate is None:
        return None
    if callable(url_or_predicate) and not isinstance(url_or_predicate, re.Pattern):
        return url_or_predicate
    base = page._context._options.get("base_url") if page._context is not None else None
    return lambda r: _url_matches(url_or_predicate, r.url, base)


class _NavFailures:
    """Mixed into navigation waiters: a navigation of the waited frame that fails (a refused
    certificate, an unreachable host) ends the wait with its error instead of a timeout."""

    _failure = None

    def _navigation_failed(self, req):
        if not req._navigation or not self._frame_matches(req) or self._failure is not None:
            return
        if (req.failure or "net::ERR_ABORTED") == "net::ERR_ABORTED":
            return  # replaced by another navigation, which the waiter follows
        self._failure = NavigationError("%s at %s" % (req.failure, req.url), method="expect_navigation")
        if not self._done:
            self._error, self._done = self._failure, True

    def __enter__(self):
        self._page.on("requestfailed", self._navigation_failed)
        return super().__enter__()

    def __exit__(self, exc_type, exc, tb):
        try:
            return super().__exit__(exc_type, exc, tb)
        finally:
            self._page.remove_listener("requestfailed", self._navigation_failed)

    def _raise_failure(self):
        if self._failure is not None:
            raise self._failure


class _NavigationWaiter(_NavFailures, _EventWaiter):
    def __init__(self, page, url, wait_until, timeout):
        base = page._context._options.get("base_url") if page._context is not None else None

        def pred(frame):  # the page's navigations are its main frame's
            return not isinstance(frame, _EventFrame) and (url is None or _url_matches(url, frame.url, base))
        super().__init__(page, "framenavigated", pred, page._navigation_timeout(timeout, {}), "navigation")
        self._page = page
        self._wait_until = wait_until

    def _frame_matches(self, req):
        return req._main_frame

    def __enter__(self):
        self._page._nav_response = None
        return super().__enter__()

    def _wait(self):
        started = time.monotonic()
        super()._wait()
        self._raise_failure()
        limit = self._timeout if self._timeout is not None else self._page._timeout_ms()
        left = max(1, int(limit - (time.monotonic() - started) * 1000)) if limit else None
        self._page.wait_for_load_state(self._wait_until or "load", timeout=left)
        self._raise_failure()
        self._frame_value = self._value
        self._value = self._page._nav_response


def _link():
    """Bind the names this module uses only when called, from modules loaded after it."""
    global _EventFrame
    from ._frame import _EventFrame
