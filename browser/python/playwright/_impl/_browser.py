"""Browser: one browser behind one driver connection, its pages and contexts."""

import threading

from ._errors import Error, TargetClosed, TimeoutError
from ._transport import _guard_seconds
from ._events import _Emitter
from ._page import Page
from ._browser_context import BrowserContext
from . import _har_router
from ._cdp_session import _cdp_notify, _new_cdp_session


_page_lock = threading.Lock()


class Browser(_Emitter):
    """One browser behind one driver connection. Get it from launch() or connect()."""

    def __init__(self, transport, launched, default_timeout, owns_driver, viewport=None, browser_type=None,
                 isolated_pages=False):
        _Emitter.__init__(self)  # its events: "context", "disconnected"
        self._transport = transport
        self.id = launched.get("browser", "b1")
        self._default_timeout = default_timeout
        self._owns_driver = owns_driver
        self._pages = {}
        self._closed = False
        self._downloads_on = False  # pages without a context: the driver reports downloads once asked
        self._contexts = []
        self._default_ctx = None
        self._viewport = viewport  # what its pages get unless their context says otherwise
        self._traces_dir = None  # launch(traces_dir=): where tracing also leaves each chunk's files
        self._version = launched.get("version")
        self._browser_type = browser_type  # the BrowserType of sync_playwright(); None from wright_browser
        self._dialogs_ours = False
        self._isolated_pages = isolated_pages  # Playwright's rule: browser.new_page() makes a context
        self._cdp_sessions = {}  # session id -> CDPSession (_cdp_session.py)
        for pid in launched.get("pages") or []:
            self._page(pid)

    def __repr__(self):
        return "<Browser type=%s version=%s>" % (self._browser_type, self.version)

    @property
    def _impl_obj(self):
        # Playwright's sync objects wrap an implementation object; here they are one and the same.
        return self

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()
        return False

    def _call(self, method, params, timeout_ms=None):
        guard = None if timeout_ms is False else _guard_seconds(timeout_ms or self._default_timeout)
        return self._transport.call(method, params, guard_s=guard)

    def _page(self, page_id):
        page = self._pages.get(page_id)
        if page is None:
            # Under the async API a call's thread and the dispatcher may both meet a new page first.
            with _page_lock:
                page = self._pages.get(page_id)
                if page is None:
                    page = Page(self, page_id)
                    self._pages[page_id] = page
        return page

    def _page_infos(self):
        return self._call("browser.pages", {"browser": self.id}).get("pages") or []

    @property
    def pages(self):
        """Open pages (popups included), in the order they were created."""
        return [self._page(info["page"]) for info in self._page_infos()]

    def _subscribe(self, dialogs=False):
        """Ask the driver for events (page.on(...), expect_*); with dialogs, this client answers dialogs."""
        self._transport.on_notify = self._on_notify
        self._dialogs_ours = dialogs
        self._call("events.subscribe", {"browser": self.id, "dialogs": dialogs})

    def _answer_dialogs(self):
        if not self._dialogs_ours:
            self._subscribe(dialogs=True)

    def _on_notify(self, method, params):
        if method.startswith("cdp."):
            return _cdp_notify(self, method, params)
        pid = params.get("page")
        if not pid or self._closed:
            return
        opener = params.get("opener")
        if opener and pid not in self._pages:
            # A popup's events can come before browser.page (its console
            # replayed while the driver attaches): it joins its opener's
            # context at the first, and is announced once it is ready.
            self._place_popup(self._page(pid), opener, announce=False)
        page = self._page(pid)
        if method == "browser.page":
            if opener:
                self._place_popup(page, opener, announce=True)
            elif params.get("context") and page._context is None:
                # opened by a page of that context without an opener (a shift- or ctrl-click on a link)
                for context in self._contexts:
                    if context._id == params["context"]:
                        context._adopt(page, popup=True)  # its "page" event
                        break
            return
        page._on_driver_event(method, params)

    def _place_popup(self, page, opener, announce):
        op = self._page(opener)
        if page._context is None and op._context is not None:
            op._context._adopt(page, popup=True, quiet=not announce)
        elif announce and page._context is not None and page in page._context._quiet:
            page._context._quiet.discard(page)
            page._context._emit("page", page)
        if announce:
            op._emit("popup", page)

    def new_browser_cdp_session(self):
        """A raw CDP session on the browser (inside a run: only reading, such as Target.getTargets)."""
        return _new_cdp_session(self)

    def start_tracing(self, page=None, path=None, screenshots=None, categories=None):
        """Record Chromium's own performance trace (the DevTools timeline) until stop_tracing().

        One at a time a browser; page is accepted as Playwright's is, the trace is the browser's whole.
        """
        params = {"browser": self.id, "screenshots": bool(screenshots)}
        if page is not None:
            params["page"] = page.id
        if categories is not None:
            params["categories"] = [str(c) for c in categories]
        self._call("browser.start_tracing", params)
        self._trace_path = path

    def stop_tracing(self):
        """End the trace start_tracing() began; its JSON as bytes, also written to its path if one was given."""
        import base64
        import os

        data = base64.b64decode(self._call("browser.stop_tracing", {"browser": self.id}).get("data") or "")
        path, self._trace_path = getattr(self, "_trace_path", None), None
        if path is not None:
            path = os.fspath(path)
            folder = os.path.dirname(path)
            if folder:
                os.makedirs(folder, exist_ok=True)
            with open(path, "wb") as f:
                f.write(data)
        return data

    def _new_page_raw(self):
        result = self._call("browser.new_page", {"browser": self.id})
        return self._page(result["page"])

    def new_page(self, **options):
        """A new page.

        Under Playwright's API (sync_playwright()) it gets a new context of its own, as in Playwright
        (options: as new_context(); closing the page closes it). A browser from launch() or connect()
        opens the page in the browser's default context instead, sharing its cookies and storage.
        """
        if not self._isolated_pages and not options:
            page = self._new_page_raw()
            self._default_context()._adopt(page)
            return page
        context = self.new_context(**options)
        page = context.new_page()
        page._owned_context = context
        context._page_owned = True
        return page

    def new_context(self, **options):
        """A new BrowserContext (Playwright's options: viewport, base_url, ...)."""
        if self._closed:
            raise TargetClosed("new_context: the browser has been closed", method="new_context")
        context = BrowserContext(self, options)
        self._contexts.append(context)
        self._emit("context", context)
        return context

    @property
    def contexts(self):
        return list(self._contexts)

    @property
    def browser_type(self):
        return self._browser_type

    def _default_context(self):
        if self._default_ctx is None:
            self._default_ctx = BrowserContext(self, isolated=False)
        return self._default_ctx

    @property
    def version(self):
        return self._version or ""

    def is_connected(self):
        return not self._closed and not self._transport._gone

    def close(self, reason=None):
        """Close the browser and end the driver (for connect(): only disconnect). Never raises."""
        if self._closed:
            return
        for context in list(self._contexts):
            try:
                _har_router.export_all(context)  # as closing the context would (the HAR is written on close)
            except Error:
                pass
        grace = 5.0
        for context in list(self._contexts) + ([self._default_ctx] if self._default_ctx is not None else []):
            context.tracing._context_closing()  # a trace is written before its pages go
        self._closed = True
        if self._owns_driver and not self._transport._gone:
            try:
                # A healthy driver answers within seconds; a stuck one must not
                # hold the script for a whole action timeout.
                self._transport.call("browser.close", {"browser": self.id}, guard_s=10.0)
            except TimeoutError:
                grace = 0.5  # it did not answer: no point waiting for it to exit by itself
            except Error:
                pass
        self._transport.shutdown(grace=grace)
        for context in list(self._contexts):  # they closed with the browser: say so, as Playwright does
            if not context._closed:
                context._closed = True
                context._emit("close", context)
        self._emit("disconnected", self)

    def _listener_added(self, event):
        pass
