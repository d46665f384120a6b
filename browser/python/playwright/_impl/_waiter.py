"""Waiting for navigations (expect_navigation, wait_for_url) and the URL patterns waits match."""

import re
import time

from ._errors import NavigationError
from . import _glob
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
    base = _base_url(page)
    return lambda r: _url_matches(url_or_predicate, r.url, base)


def _base_url(page):
    """The base_url of the page's context (None without one)."""
    return page._context._options.get("base_url") if page._context is not None else None


def _against_base(page, url):
    """A str URL or glob made absolute against the page's context's base_url (as goto and route do)."""
    base = _base_url(page)
    return _glob.resolve_glob(base, url) if base and isinstance(url, str) else url


class _NavigationWaiter(_EventWaiter):
    """expect_navigation / wait_for_url: the next navigation of one frame (the page's main frame, or
    frame) to a matching URL, then its load state. A navigation of that frame that fails (a refused
    certificate, an unreachable host) ends the wait with its error instead of a timeout."""

    def __init__(self, page, url, wait_until, timeout, frame=None):
        base = _base_url(page)
        want = page.main_frame if frame is None else frame

        def pred(f):
            return f is want and (url is None or _url_matches(url, f.url, base))
        super().__init__(page, "framenavigated", pred, page._navigation_timeout(timeout, {}), "navigation")
        self._page = page
        self._frame = frame  # None: the main frame, whose navigations are the page's
        self._wait_until = wait_until
        self._failure = None
        self._frame_value = None  # the Frame the event gave, before value becomes the Response

    def _frame_matches(self, req):
        return req._main_frame if self._frame is None else req._frame_id == self._frame._frame_id

    def _navigation_failed(self, req):
        if not req._navigation or not self._frame_matches(req) or self._failure is not None:
            return
        if (req.failure or "net::ERR_ABORTED") == "net::ERR_ABORTED":
            return  # replaced by another navigation, which the waiter follows
        self._failure = NavigationError("%s at %s" % (req.failure, req.url), method="expect_navigation")
        if not self._done:
            self._error, self._done = self._failure, True

    def _responses(self):
        return None if self._frame is None else self._page._frame_nav_responses()

    def __enter__(self):
        if self._frame is None:
            self._page._nav_response = None
        else:
            self._responses().pop(self._frame._frame_id, None)
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

    def _wait(self):
        started = time.monotonic()
        super()._wait()
        self._raise_failure()
        limit = self._timeout if self._timeout is not None else self._page._timeout_ms()
        left = max(1, int(limit - (time.monotonic() - started) * 1000)) if limit else None
        (self._page if self._frame is None else self._frame).wait_for_load_state(self._wait_until or "load",
                                                                                 timeout=left)
        self._raise_failure()
        self._frame_value = self._value
        if self._frame is None:
            self._value = self._page._nav_response
        else:
            self._value = self._responses().get(self._frame._frame_id)
